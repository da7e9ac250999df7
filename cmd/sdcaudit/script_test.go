package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"sdcaudit": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI scenarios in testdata/script/*.txtar. $REPO is
// the repository root (the reference data lies in $REPO/testdata/reference).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			wd, _ := os.Getwd()
			env.Setenv("REPO", wd+"/../..")
			return nil
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// genmicro N FILE writes N microdata records with three
			// dimensions (50, 40 and 10 levels) and a value, fixed seed.
			"genmicro": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: genmicro N FILE")
				}
				n, err := strconv.Atoi(args[0])
				ts.Check(err)
				var b strings.Builder
				b.WriteString("a,b,c,v\n")
				r := rand.New(rand.NewPCG(1, 2))
				for i := 0; i < n; i++ {
					fmt.Fprintf(&b, "A%d,B%d,C%d,%d\n", r.IntN(50), r.IntN(40), r.IntN(10), 1+r.IntN(100000))
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
			},
			// waitfile FILE waits until FILE exists (a run reached a
			// stage); it gives up after ten minutes, a failure.
			"waitfile": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: waitfile FILE")
				}
				for deadline := time.Now().Add(10 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
						return
					}
				}
				ts.Fatalf("%s did not appear", args[0])
			},
			// sleep DURATION pauses the script.
			"sleep": func(ts *testscript.TestScript, neg bool, args []string) {
				d, err := time.ParseDuration(args[0])
				ts.Check(err)
				time.Sleep(d)
			},
			// notemp DIR fails when DIR holds a temporary (dot) file.
			"notemp": func(ts *testscript.TestScript, neg bool, args []string) {
				ents, err := os.ReadDir(ts.MkAbs(args[0]))
				if err != nil && !os.IsNotExist(err) {
					ts.Fatalf("%v", err)
				}
				for _, e := range ents {
					if strings.HasPrefix(e.Name(), ".") {
						ts.Fatalf("temporary file left: %s", e.Name())
					}
				}
			},
			// exitcode N prog args... runs prog and checks its exit code;
			// stdout and stderr are then available to the next commands.
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exitcode N program [args...]")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("%v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("exit code %d, want %d", got, want)
				}
			},
		},
	})
}
