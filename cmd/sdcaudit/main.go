// Command sdcaudit audits statistical output tables for disclosure risk.
//
// The command is thin: each subcommand parses its flags, builds the
// options of one package call and runs it with the context run sets up
// (cancelled on an interrupt). exitCode (errors.go) maps every error to the
// exit codes of the contract.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sdcaudit/sdcaudit/configs"
)

// Build information, set with -ldflags "-X main.version=...".
var version = "dev"

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "sdcaudit",
		Short:         "Audit statistical output tables for disclosure risk",
		Long:          "sdcaudit checks output tables cell by cell with sensitivity rules, mean/SD reconstruction and moment-release attacks, decides what to suppress, and writes a checker's report and a publishable table.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), "sdcaudit", version)
			return nil
		},
	})
	root.AddCommand(newCheckCmd(), newRunCmd(), newReconstructCmd(), newMomentsCmd(),
		newAuditCmd(), newRulesCmd(), newSQLCmd(), newMergeCmd())
	addExamples(root)
	return root
}

// flagError is every command's answer to a flag it cannot parse: a usage
// error, with the closest flag of the command when the name looks like a
// typo of one ("unknown flag: --dim (did you mean --dims?)").
func flagError(cmd *cobra.Command, err error) error {
	const unknown = "unknown flag: --"
	msg := err.Error()
	if !strings.HasPrefix(msg, unknown) {
		return usageErr(err)
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(msg, unknown), "=")
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if s := configs.Suggest(name, names); s != "" {
		return usageErr(fmt.Errorf("%w (did you mean --%s?)", err, s))
	}
	return usageErr(err)
}

// run executes the command line and returns the exit code. It is the one
// place that handles signals: an interrupt or SIGTERM cancels the context
// every command runs with (cmd.Context()).
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	code := exitCode(err)
	if err != nil && !errors.Is(err, errNeedsPerson) {
		if jsonLogs(root, args) {
			// with --log-format json every line of stderr is JSON
			line, _ := json.Marshal(struct {
				Level    string `json:"level"`
				ExitCode int    `json:"exit_code"`
				Error    string `json:"error"`
				Message  string `json:"message"`
			}{"fatal", code, err.Error(), "sdcaudit stopped"})
			fmt.Fprintln(stderr, string(line))
		} else {
			fmt.Fprintln(stderr, "sdcaudit:", err)
		}
	}
	return code
}

// jsonLogs reports whether the command line asked for JSON logs.
func jsonLogs(root *cobra.Command, args []string) bool {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return false
	}
	f := cmd.Flags().Lookup("log-format")
	return f != nil && f.Value.String() == "json"
}

func main() {
	stop := startProfiles()
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
