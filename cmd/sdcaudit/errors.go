package main

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
)

// Exit codes of the contract.
const (
	exitOK     = 0
	exitFlag   = 1 // done, but some cell failed a rule or needs review
	exitUsage  = 2 // usage or configuration error
	exitInput  = 3 // input could not be read
	exitFailed = 4 // interrupted, or an output could not be written
)

// errNeedsPerson is returned by commands whose work is done but whose
// result must stop a release; it maps to exit code 1 without a message.
var errNeedsPerson = errors.New("some cells failed a rule or need review")

// usageError is a command-line error found by a command itself (a flag
// value out of range, flags that exclude each other).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageErr marks err as a usage error (exit 2).
func usageErr(err error) error { return &usageError{err} }

// interruptedError is a run stopped by its context; it wraps both the
// error the work returned and the context's.
type interruptedError struct{ err, ctx error }

func (e *interruptedError) Error() string {
	return "interrupted; no output was left half-written: " + e.err.Error()
}
func (e *interruptedError) Unwrap() []error { return []error{e.err, e.ctx} }

// exitCode maps an error to the contract's exit codes. It is the only
// place that does: commands return typed errors (or wrap them with %w).
func exitCode(err error) int {
	var (
		ue *usageError
		re *readers.Error
		ce *configs.Error
		pe *rules.ParamError
		fe *fs.PathError
		le *os.LinkError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errNeedsPerson):
		return exitFlag
	case errors.Is(err, context.Canceled):
		return exitFailed // an interrupt wins over what it caused
	case errors.As(err, &ue), errors.As(err, &ce), errors.As(err, &pe), errors.Is(err, pipeline.ErrManyTables):
		return exitUsage
	case errors.As(err, &re), errors.Is(err, suppress.ErrInconsistent):
		return exitInput
	case errors.As(err, &fe), errors.As(err, &le):
		return exitFailed // an output could not be written
	}
	// cobra's own argument errors ("unknown command", "accepts 1 arg")
	return exitUsage
}
