package intervals

import (
	"context"

	"github.com/sdcaudit/sdcaudit/audit"
)

// For the external tests of this directory (package intervals_test),
// which may import the suppression method.
var (
	ReceivedTable = receivedTable
	BenchTuning   = benchTuning
	BenchLimit    = benchLimit
)

// CertifiedIntervals is certifiedIntervals and CertifiedSample
// certifiedSample (oracle_test.go).
var (
	CertifiedIntervals = certifiedIntervals
	CertifiedSample    = certifiedSample
)

// SparseCells audits the pattern of tb with exact bounds, as Audit does,
// and returns how many cells went through the sparse LP.
func SparseCells(tb *audit.Table, opt Options) (int, error) {
	s, err := newStructure(tb, opt)
	if err != nil {
		return 0, err
	}
	sup := make([]bool, len(tb.Cells))
	for i := range tb.Cells {
		sup[i] = s.IsSuppressed(i)
	}
	opt.exact = true
	iv, err := s.intervals(context.Background(), sup, opt)
	if err != nil {
		return 0, err
	}
	return iv.sparse, nil
}

// AuditStats is Audit returning also the counted work of its sparse LPs:
// cells given to them, the bulk phase's LPs and iterations, the chunks'
// iterations and every LP.
func AuditStats(ctx context.Context, tb *audit.Table, opt Options) (audit.Intervals, map[string]int, error) {
	opt.exact = true
	st := map[string]int{}
	opt.stats = func(iv *intervalSet) {
		st["sparse-cells"], st["bulk-lps"], st["bulk-iters"] = iv.sparse, iv.bulkLPs, iv.bulkIters
		st["chunk-iters"], st["lps"], st["witnessed"] = iv.chunkIters, iv.lps, iv.witnessed
		st["bulk-pooled-lps"] = iv.bulkPooled
	}
	res, _, err := audit1(ctx, tb, opt)
	return res, st, err
}
