package intervals

import (
	"fmt"
	"math"

	"github.com/sdcaudit/sdcaudit/audit"
)

// Protection sets how far an intruder's interval for a sensitive cell must
// reach on either side of its true value x: the upper protection level U
// (the interval's upper end must be at least x + U) and the lower level L
// (its lower end at most x - L). L never exceeds x, because cells are
// non-negative.
//
// By default both levels are Share × x (tau-argus's "safety range" as a
// percentage of the cell value), at least Min. With PPercent or Dominance
// set and the cell's largest contributions known, the level is the one the
// SDC handbook derives from the rule (Hundepool et al., Statistical
// Disclosure Control, 2012, §4.3):
//
//	p% rule:     U = p/100·x1 − (X − x1 − x2)
//	(n,k) rule:  U = 100/k·(x1+…+xn) − X
//
// the amount by which the upper bound of X must exceed X so that the
// intruder's estimate of x1 misses by p% (or the n largest no longer exceed
// k% of the bound); the largest positive value over the configured rules is
// used, and Share × x only when no rule gives a positive level.
type Protection struct {
	// Share of the cell value; 0 means DefaultShare (10%, the same margin
	// as the default p% rule). NoShare (any negative value) asks for no
	// share-based level.
	Share float64
	// Min is the smallest level in value units (e.g. 1 in a frequency
	// table, so that a primary cell is never left as a point).
	Min float64
	// PPercent > 0 derives the level from the p% rule with this p.
	PPercent float64
	// Dominance derives the level from (n,k) dominance rules.
	Dominance []DominanceRule
	// CellLevels, when set, gives a cell's own upper and lower protection
	// levels in value units (tau-argus's UPPERPL and LOWERPL, or an
	// a-priori file's "pl"); ok false keeps the levels above.
	CellLevels func(c *audit.Cell) (upper, lower float64, ok bool)
}

// The protection shares that are not a fraction of the cell value.
const (
	// DefaultShare is the share a zero Protection.Share stands for.
	DefaultShare = 0.10
	// NoShare, as Protection.Share, asks for no share-based level: the
	// levels come from Min, the rules and CellLevels only (the
	// configuration's suppression.protection: 0).
	NoShare = -1.0
)

// DominanceRule is one (n,k) dominance rule: the n largest contributions
// must not exceed k% of the cell total.
type DominanceRule struct {
	N int
	K float64
}

func (p Protection) validate() error {
	if math.IsNaN(p.Share) || p.Share > 10 {
		return fmt.Errorf("protection share %v: want a fraction such as 0.1", p.Share)
	}
	if p.Min < 0 || math.IsNaN(p.Min) {
		return fmt.Errorf("protection min %v: want a non-negative value", p.Min)
	}
	if p.PPercent < 0 || p.PPercent > 100 {
		return fmt.Errorf("protection p %v: want 0 < p <= 100", p.PPercent)
	}
	for _, r := range p.Dominance {
		if r.N < 1 || r.K <= 0 || r.K > 100 {
			return fmt.Errorf("protection dominance (%d,%v): want n >= 1, 0 < k <= 100", r.N, r.K)
		}
	}
	return nil
}

func (p Protection) share() float64 {
	switch {
	case p.Share == 0:
		return DefaultShare
	case p.Share < 0:
		return 0
	}
	return p.Share
}

// Levels returns the upper and lower protection levels of cell c whose
// value (as the relations count it) is x.
func (p Protection) Levels(c *audit.Cell, x float64) (upper, lower float64) {
	if c != nil && p.CellLevels != nil {
		if u, l, ok := p.CellLevels(c); ok {
			return u, math.Min(l, math.Max(x, 0))
		}
	}
	u := -1.0
	if c != nil && c.HasTotal && len(c.Top) > 0 {
		X := c.Total.Float64()
		if p.PPercent > 0 {
			x1, x2 := c.TopN(0).Float64(), c.TopN(1).Float64()
			u = math.Max(u, p.PPercent/100*x1-(X-x1-x2))
		}
		for _, r := range p.Dominance {
			var top float64
			for i := 0; i < r.N; i++ {
				top += c.TopN(i).Float64()
			}
			u = math.Max(u, 100/r.K*top-X)
		}
	}
	if u <= 0 {
		u = p.share() * math.Abs(x)
	}
	u = math.Max(u, p.Min)
	return u, math.Min(u, math.Max(x, 0))
}
