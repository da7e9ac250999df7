package pipeline

import (
	"context"

	"github.com/sdcaudit/sdcaudit/readers"
)

// Parallel decoding of Parquet files (docs/performance.md): when the
// source decodes its row groups on several goroutines
// (readers.ParallelDecoder), the reading goroutine of build only hands
// out batches already decoded, in the order of the sequential reader, so
// that batch i still goes to shard i mod n and every result is the same.

// parallelDecode lets tests compare the parallel decoding with the
// sequential one.
var parallelDecode = true

// decodeInParallel asks src, or the source under its wrappers (which see
// the same batches), for n decoders until ctx is done.
func decodeInParallel(ctx context.Context, src readers.Source, n int) {
	if !parallelDecode || n < 2 {
		return
	}
	if p, ok := readers.As[readers.ParallelDecoder](src); ok {
		p.DecodeParallel(ctx, n)
	}
}
