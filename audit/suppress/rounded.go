package suppress

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sdcaudit/sdcaudit/audit/intervals"
)

// Rounded tables (Options.Rounded, docs/suppression.md "Rounded tables"):
// the intruder knows every published cell only within its rounding
// interval [v − B/2, v + B/2] (cut at 0), so the set of tables consistent
// with a pattern only grows with the rounding and with every cell
// suppressed. The methods use this in two places: a primary that the
// rounding already protects with the cells suppressed before the search
// gets no complement (roundedProtected), and the checks of the
// redundancy passes (allProtected, unprotected) audit with the rounding
// intervals, as the interval audit afterwards does, so that a secondary
// cell the rounding makes unnecessary is published again.

// checkOptions are the options of the interval checks a suppression
// method runs on its own patterns: its protection levels, the rounding of
// the published values (Options.Rounded) and, when pinned >= 0, that cell
// published exactly (a singleton's contributor knows its value whatever
// the rounding), within the time left (remaining: 0 none).
func (o Options) checkOptions(workers int, remaining time.Duration, pinned int, n int) intervals.Options {
	io := intervals.Options{Workers: workers, Protection: o.Protection, TimeLimit: remaining, Tuning: o.AuditTuning, Rounded: o.Rounded}
	if o.Rounded > 0 && pinned >= 0 {
		io.Pinned = make([]bool, n)
		io.Pinned[pinned] = true
	}
	return io
}

// roundedProtected returns the primaries of prim that the rounding alone
// protects with the cells suppressed now (sp.sup): their interval, every
// published cell within its rounding interval, reaches their levels, also
// with any one suppressed singleton published exactly (its contributor
// knows it) unless that singleton covers the primary. Suppressing more
// cells only widens every interval, so such a primary needs no
// complement. Nil when the table is not rounded or no primary is
// protected so.
//
// The answer is computed once per Protect (knowRounded) and shared by
// the methods it runs: each starts from the same cells suppressed.
func (sp *suppressor) roundedProtected(ctx context.Context, prim []int, deadline time.Time) (map[int]bool, error) {
	if sp.opt.rounded != nil {
		return sp.opt.rounded.done, nil
	}
	return sp.findRounded(ctx, prim, deadline)
}

// roundedSingletonChecks bounds the checks of findRounded with one
// suppressed singleton published (each is an LP over the whole table):
// with more suppressed singletons no primary is taken as protected by
// the rounding alone.
const roundedSingletonChecks = 16

// roundedDone is the cached answer of roundedProtected.
type roundedDone struct{ done map[int]bool }

// knowRounded computes roundedProtected once, before the methods run,
// and keeps it in sp.opt (Options.rounded), which the methods' options
// copy.
func (sp *suppressor) knowRounded(ctx context.Context, prim []int, deadline time.Time) error {
	if sp.opt.rounded != nil || sp.opt.Rounded <= 0 {
		return nil
	}
	done, err := sp.findRounded(ctx, prim, deadline)
	if err != nil {
		return err
	}
	sp.opt.rounded = &roundedDone{done}
	msg := roundedNote(sp.opt.Rounded, sp.opt.Column)
	for _, p := range prim {
		if c := sp.s.T.Cells[p]; done[p] && !slices.Contains(c.Notes, msg) {
			c.Notes = append(c.Notes, msg)
		}
	}
	return nil
}

// roundedNote is the note on a primary that the rounding alone protects
// (in the count column column, when not "": Options.Column).
func roundedNote(base float64, column string) string {
	of := ""
	if column != "" {
		of = " of " + column
	}
	return fmt.Sprintf("protected with the rounding of the published values (base %v): with the cells withheld before secondary suppression and every published value taken anywhere within its rounding, this cell's interval%s reaches its protection levels, so secondary suppression adds no cell for it", base, of)
}

// findRounded is roundedProtected, computed.
func (sp *suppressor) findRounded(ctx context.Context, prim []int, deadline time.Time) (map[int]bool, error) {
	s, opt := sp.s, sp.opt
	if opt.Rounded <= 0 || len(prim) == 0 {
		return nil, nil
	}
	remaining := func() time.Duration {
		if deadline.IsZero() {
			return 0
		}
		return max(time.Until(deadline), time.Nanosecond)
	}
	n := len(s.T.Cells)
	ok := map[int]bool{}
	for _, p := range prim {
		ok[p] = true
	}
	check := func(except int) error {
		iv, err := intervals.Check(ctx, s.Structure, sp.sup, opt.checkOptions(max(opt.Workers, 1), remaining(), except, n))
		if err != nil {
			return err
		}
		for _, p := range prim {
			if !ok[p] || p == except || (except >= 0 && s.Covers(except, p)) {
				continue
			}
			x := s.Val[p]
			up, down := s.levels(opt, p, x)
			if !iv.Reaches(p, x, up, down) || iv.Failed(p) {
				delete(ok, p)
			}
		}
		return nil
	}
	singles := 0
	for i := range s.T.Cells {
		if sp.sup[i] && sp.singleton(i) {
			singles++
		}
	}
	if singles > roundedSingletonChecks {
		// a whole-table check per singleton is too much work: the
		// methods protect every primary as if the values were exact
		return nil, nil
	}
	if err := check(-1); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// No values within the rounding satisfy the margins (the audit
		// afterwards says so): the rounding protects nothing here.
		return nil, nil
	}
	for i := range s.T.Cells {
		if len(ok) == 0 {
			break
		}
		if !sp.sup[i] || !sp.singleton(i) {
			continue
		}
		sp.sup[i] = false
		err := check(i)
		sp.sup[i] = true
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, nil
		}
	}
	if len(ok) == 0 {
		return nil, nil
	}
	return ok, nil
}
