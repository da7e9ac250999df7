package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
)

// TestExitCode checks that exitCode reaches the typed root cause through
// wrapping, and that an interrupt wins over the error it caused.
func TestExitCode(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("table x: %w", err) }
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, exitOK},
		{"needs person", errNeedsPerson, exitFlag},
		{"usage", wrap(usageErr(errors.New("bad flag"))), exitUsage},
		{"config", wrap(&configs.Error{File: "c.yaml", Line: 3, Msg: "unknown key"}), exitUsage},
		{"rule parameter", wrap(&rules.ParamError{Rule: "moments", Param: "step", Msg: "negative"}), exitUsage},
		{"many tables", wrap(fmt.Errorf("x.xlsx has 2 tables: %w", pipeline.ErrManyTables)), exitUsage},
		{"input", wrap(&readers.Error{File: "x.csv", Row: 3, Column: "v", Err: readers.ErrNotNumber}), exitInput},
		{"inconsistent table", wrap(suppress.ErrInconsistent), exitInput},
		{"cancelled", wrap(context.Canceled), exitFailed},
		{"interrupted reading", &interruptedError{&readers.Error{File: "x.csv", Err: errors.New("closed")}, context.Canceled}, exitFailed},
		{"output", wrap(&fs.PathError{Op: "open", Path: "out/x", Err: fs.ErrPermission}), exitFailed},
		{"cobra", errors.New(`unknown command "frob" for "sdcaudit"`), exitUsage},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", c.name, c.err, got, c.want)
		}
	}
}
