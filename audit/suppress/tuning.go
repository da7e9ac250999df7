package suppress

// Tuning bounds the suppression method's searches by deterministic
// counts (never a clock), so that the pattern does not depend on the
// machine. Options.Tuning nil means DefaultTuning; tests set their own to
// reach a path on a small table or to compare.
type Tuning struct {
	// CompareLarge lets the lp method of a large table compare its
	// pattern with the joint and hypercube methods' and keep the
	// cheapest that protects (protectBest); off, the lp method's own
	// pattern stands.
	CompareLarge bool
	// BoxCells are the sizes (in cells) of the boxes around a primary in
	// a larger table, tried in turn until one holds a deviation: the box
	// grows only when the smaller one has none (the dense simplex's cost
	// grows with the square of the box).
	BoxCells []float64
	// RedundancyLimit bounds the table size of the redundancy pass that
	// re-audits the whole table per candidate; larger tables use the
	// local pass (dropLocal) when LocalRedundancy is on, else none.
	RedundancyLimit int
	LocalRedundancy bool
	// LocalSearchBudget bounds the support searches of one local
	// redundancy pass: the candidates are tried most costly first, so the
	// pass stops where the remaining ones are the cheapest.
	LocalSearchBudget int
	// JointBounded: joint masters with at most this many variables keep
	// the bounds y ≤ 1.
	JointBounded int
}

// DefaultTuning returns the suppression method's search bounds.
func DefaultTuning() Tuning {
	return Tuning{
		CompareLarge:      true,
		BoxCells:          []float64{40, 80, 150, 300},
		RedundancyLimit:   1200,
		LocalRedundancy:   true,
		LocalSearchBudget: 3000,
		JointBounded:      1000,
	}
}

// tuning is opt.Tuning, or the defaults.
func (o Options) tuning() Tuning {
	if o.Tuning != nil {
		return *o.Tuning
	}
	return DefaultTuning()
}
