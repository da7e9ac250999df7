package intervals

// Tuning bounds the interval audit's work by deterministic counts
// (never a clock), so that its verdicts do not depend on the machine.
// Options.Tuning nil means DefaultTuning; tests set their own to
// reach a path on a small table.
type Tuning struct {
	// LargeComponent is the size above which a component whose true
	// values are known is audited by witnesses and neighbourhoods rather
	// than as one LP.
	LargeComponent int
	// Sparse enables the sparse whole-component LP of the large-component
	// audit (off: the witnesses and neighbourhood LPs alone).
	Sparse bool
	// NbhdRounds are the neighbourhood LP rounds of the large-component
	// audit; each round takes the cells the previous ones left unsettled.
	NbhdRounds []NbhdRound
	// ExactIters is the simplex iterations per target cell that a chunk
	// may spend on exact bounds (pooled over the chunk's targets), and
	// ExactBudget the iterations a whole component may spend on them
	// (shared equally among its chunks). Cells whose bounds it does not
	// reach keep their inner and outer bounds (approximate, their verdict
	// proven by them or undetermined). The verdict LPs (to the protection
	// levels) are not counted: only each LP's own iteration limit bounds
	// them. These budgets and BulkIters hold for components of up to
	// 2,500 LP rows; larger ones get proportionally fewer iterations (each
	// costs in proportion to the rows).
	ExactIters, ExactBudget int
	// Phase1Iters bounds the phase 1 of a component without a feasible
	// start (received tables): beyond it the component's cells keep their
	// outer bounds, undetermined, with a warning.
	Phase1Iters int
	// BulkIters bounds the simplex iterations of the bulk phase of the
	// sparse LP's exact bounds (sparseRun.bulk: LPs over many cells at
	// once, before one LP per cell side); 0 skips it.
	BulkIters int
	// BulkSplit keeps the bulk phase of before (the baseline of the
	// benchmarks, with BulkIters 300,000; not for use): each lane has
	// half of BulkIters, the low lane stops when its objective is
	// through, and a lane stops below a side per 150 iterations, where by
	// default the budget is pooled, the low lane, once through, maximises
	// too (over other targets than the high lane's), and a lane stops
	// below a side per bulkYield (300) iterations.
	BulkSplit bool
	// Dantzig prices the sparse LPs by Dantzig's rule, the simplex
	// before devex pricing (lp.SparseOptions): the baseline of the
	// benchmarks, not for use.
	Dantzig bool
}

// NbhdRound is one round of neighbourhood LPs: cells audited per LP
// (Core) and cells free in the LP (Nbhd, core and halo).
type NbhdRound struct{ Core, Nbhd int }

// DefaultTuning returns the interval audit's work bounds.
func DefaultTuning() Tuning {
	return Tuning{
		LargeComponent: 400,
		Sparse:         true,
		NbhdRounds:     []NbhdRound{{50, 450}, {15, 1200}},
		ExactIters:     1000,
		ExactBudget:    300000,
		Phase1Iters:    40000,
		BulkIters:      1000000,
	}
}

// BeforeBulk returns t with the exact bounds' budgets of before the bulk
// phase (ExactIters 32, ExactBudget 20,000, no bulk phase): the baseline
// of the benchmarks, and the tuning of tests on large tables that need
// the audit's verdicts rather than every interval exact (every cell still
// gets a verdict, proven by its inner and outer bounds, or is
// undetermined; fewer intervals are exact).
func (t Tuning) BeforeBulk() Tuning {
	t.ExactIters, t.ExactBudget, t.BulkIters = 32, 20000, 0
	return t
}

// tuning is opt.Tuning, or the defaults.
func (o Options) tuning() Tuning {
	if o.Tuning != nil {
		return *o.Tuning
	}
	return DefaultTuning()
}
