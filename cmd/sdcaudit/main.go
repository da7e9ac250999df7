// Command sdcaudit audits statistical output tables for disclosure risk.
//
// This file only wires the command tree; each subcommand lives in its own
// file and registers itself with addCommand. Errors are mapped to the exit
// codes of the contract: 0 done, 1 cells need a person, 2 usage or
// configuration error, 3 input could not be read.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Build information, set with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes of the contract.
const (
	exitOK     = 0
	exitFlag   = 1 // done, but some cell failed a rule or needs review
	exitUsage  = 2
	exitInput  = 3
	exitFailed = 4 // an internal or output error (cannot write, cancelled)
)

// errNeedsPerson is returned by commands whose work is done but whose
// result must stop a release; it maps to exit code 1 without a message.
var errNeedsPerson = errors.New("some cells failed a rule or need review")

// codeError carries an exit code with an error.
type codeError struct {
	code int
	err  error
}

func (e *codeError) Error() string { return e.err.Error() }
func (e *codeError) Unwrap() error { return e.err }

// usageErr marks err as a usage or configuration error (exit 2).
func usageErr(err error) error { return &codeError{exitUsage, err} }

// inputErr marks err as unreadable input (exit 3).
func inputErr(err error) error { return &codeError{exitInput, err} }

var commands []func() *cobra.Command

// addCommand registers a subcommand constructor; called from init functions.
func addCommand(f func() *cobra.Command) { commands = append(commands, f) }

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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), "sdcaudit", version)
			return nil
		},
	})
	for _, f := range commands {
		root.AddCommand(f())
	}
	return root
}

// run executes the command line and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	code := exitCode(err)
	if err != nil && !errors.Is(err, errNeedsPerson) {
		fmt.Fprintln(stderr, "sdcaudit:", err)
	}
	return code
}

// exitCode maps an error to the contract's exit codes.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errNeedsPerson) {
		return exitFlag
	}
	var ce *codeError
	if errors.As(err, &ce) {
		return ce.code
	}
	if classify != nil {
		if c := classify(err); c != 0 {
			return c
		}
	}
	// cobra's own argument errors ("unknown command", "accepts 1 arg")
	return exitUsage
}

// classify maps package errors (readers, configs) to exit codes; set by
// the file that knows those packages.
var classify func(error) int

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
