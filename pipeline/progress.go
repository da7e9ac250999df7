package pipeline

import "context"

// The stages of a table, in order, as the progress display shows them.
const (
	StageRead        = "read"        // reading rows (and building cells as they come)
	StageCells       = "cells"       // merging and finishing the cells
	StageRules       = "rules"       // the sensitivity rules on every cell
	StageSuppression = "suppression" // secondary suppression
	StageAudit       = "audit"       // the LP interval audit of the pattern
	StageWrite       = "write"       // writing the outputs
)

type stageKey struct{}

// withStage returns a context whose stage reports go to f (nil: none).
func withStage(ctx context.Context, f func(string)) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, stageKey{}, f)
}

// enterStage reports that the table being processed under ctx enters a
// stage.
func enterStage(ctx context.Context, stage string) {
	if f, ok := ctx.Value(stageKey{}).(func(string)); ok {
		f(stage)
	}
}

// cellsStage returns the hook a builder calls when it enters StageCells.
func cellsStage(ctx context.Context) func() {
	return func() { enterStage(ctx, StageCells) }
}

// byteCounter is a writer that reports how many bytes pass through it
// (the input bytes a reader has consumed, via readers.Options.Tee).
type byteCounter func(int64)

func (b byteCounter) Write(p []byte) (int, error) {
	b(int64(len(p)))
	return len(p), nil
}
