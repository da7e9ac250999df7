package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/configs"
)

// Release over release (--previous DIR, previous:): the previous
// release's NAME.report.json gives each cell's status last time. The new
// pattern is kept as close to it as protection allows
// (protectWithPrevious):
//
//   - a cell withheld last time (primary, secondary or review) that its
//     own data no longer make primary is withheld again as a secondary
//     before secondary suppression runs, so that the primary cells are
//     first protected by last time's pattern: publishing it now would
//     give away the value the previous release hid;
//   - a cell published last time is kept out of secondary suppression,
//     unless its own data make it primary; when the interval audit then
//     finds a primary cell not protected (no pattern exists otherwise),
//     secondary suppression runs again with such cells allowed at
//     previousPublishedFactor times their cost, and cells withheld last
//     time at suppression.previous_cost (default 0.1) times theirs
//     (suppress.Options.CostOf).
//
// Every cell whose status differs from last time is listed in the report
// ("changed_since_previous") with why.

// previousPublishedFactor multiplies the cost of a cell published last
// time.
const previousPublishedFactor = 1000

// maxPreviousReport bounds the size of a previous report read.
const maxPreviousReport = 4 << 30

// previousStatuses reads the statuses of table name's cells from the
// previous release's report in dir: key (joined by \x00 in the order of
// dims) -> status. ok is false when dir has no report of that name.
func previousStatuses(dir, name string, dims []string) (map[string]audit.Status, bool, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return nil, false, &configs.Error{File: dir, Msg: fmt.Sprintf("previous release %s: %v", dir, err), Err: configs.ErrInvalid}
	}
	path := filepath.Join(dir, name+".report.json")
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, &configs.Error{File: path, Err: err}
	}
	defer f.Close()
	var rep struct {
		Dims  []string `json:"dims"`
		Cells []struct {
			Key    map[string]string `json:"key"`
			Status audit.Status      `json:"status"`
		} `json:"cells"`
	}
	if err := json.NewDecoder(io.LimitReader(f, maxPreviousReport)).Decode(&rep); err != nil {
		return nil, false, &configs.Error{File: path, Msg: fmt.Sprintf("the previous release's report cannot be read: %v", err), Err: configs.ErrInvalid}
	}
	a, b := slices.Clone(rep.Dims), slices.Clone(dims)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		return nil, false, &configs.Error{File: path, Msg: fmt.Sprintf("the previous release's table %s has dimensions %s, this one %s", name, strings.Join(rep.Dims, ", "), strings.Join(dims, ", ")), Err: configs.ErrInvalid}
	}
	out := make(map[string]audit.Status, len(rep.Cells))
	key := make([]string, len(dims))
	for _, c := range rep.Cells {
		for i, d := range dims {
			key[i] = c.Key[d]
		}
		out[strings.Join(key, "\x00")] = c.Status
	}
	return out, true, nil
}

// previousResult is what the previous release gives a table.
type previousResult struct {
	status map[*audit.Cell]audit.Status // last time's status of the cells it had
	share  float64                      // suppression.previous_cost
	dir    string
}

// applyPrevious reads the previous release's statuses of table t (nil
// when there is no previous release, or no report of the table in it,
// which a warning says).
func applyPrevious(t *audit.Table, s *configs.Settings) (*previousResult, error) {
	if s.Previous == "" {
		return nil, nil
	}
	prev, ok, err := previousStatuses(s.Previous, t.Name, t.Dims)
	if err != nil {
		return nil, err
	}
	if !ok {
		t.Warnings = append(t.Warnings, fmt.Sprintf("no report of table %s in the previous release (%s): protected on its own", t.Name, s.Previous))
		return nil, nil
	}
	share, _ := s.Suppression.PreviousCost.Rat().Float64()
	r := &previousResult{status: map[*audit.Cell]audit.Status{}, share: share, dir: s.Previous}
	seen := 0
	for _, c := range t.Cells {
		if st, ok := prev[strings.Join(c.Key, "\x00")]; ok {
			r.status[c] = st
			seen++
		}
	}
	if gone := len(prev) - seen; gone > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d cell(s) of the previous release are not in this one", gone))
	}
	return r, nil
}

// withPrevious scales the costs of secondary suppression by the previous
// release's statuses.
func withPrevious(opt *suppress.Options, r *previousResult) {
	if r == nil || len(r.status) == 0 {
		return
	}
	prev := opt.CostOf
	role := opt.Role
	model := opt.Cost
	opt.CostOf = func(c *audit.Cell) (float64, bool) {
		cost, ok := 0.0, false
		if prev != nil {
			cost, ok = prev(c)
		}
		if !ok {
			cost = baseCost(c, role, model)
		}
		st, had := r.status[c]
		switch {
		case !had:
			return cost, ok
		case st == audit.StatusOK || st == "":
			return cost * previousPublishedFactor, true
		default:
			return cost * r.share, true
		}
	}
}

// baseCost is a cell's cost under the cost model (suppress.Options.Cost:
// value, count or unity) for the figure the relations add up (role).
func baseCost(c *audit.Cell, role audit.Role, model string) float64 {
	switch {
	case model == "unity":
		return 1
	case model == "count" && c.HasN, role == audit.RoleCount && c.HasN:
		return float64(c.N)
	case c.HasTotal:
		return math.Abs(c.Total.Float64())
	case c.HasN:
		return float64(c.N)
	}
	return 1
}

// previousChanges lists the cells whose status differs from the previous
// release's, with why.
func previousChanges(t *audit.Table, r *previousResult) {
	if r == nil {
		return
	}
	for _, c := range t.Cells {
		was, had := r.status[c]
		if !had {
			continue
		}
		if was == "" {
			was = audit.StatusOK
		}
		now := statusOf(c)
		if now == was {
			continue
		}
		var why string
		switch now {
		case audit.StatusPrimary:
			if f := failing(c, ""); f != "" {
				why = "its own data now make it primary: " + f
			} else {
				why = "suppressed a priori or by a checker's override"
			}
		case audit.StatusSecondary:
			if was == audit.StatusOK {
				why = "chosen as a complement although published last time: no pattern of cells suppressed last time (or other cheaper cells) protects the primary cells"
			} else {
				why = "no longer primary itself, still withheld as a complement (it was suppressed last time, the cheapest complement)"
			}
		case audit.StatusReview:
			why = "could not be assessed: " + failing(c, "")
		case audit.StatusOK:
			switch was {
			case audit.StatusPrimary:
				why = "its own data now pass every rule"
			case audit.StatusSecondary:
				why = "no longer needed to protect a primary cell"
			default:
				why = "now assessed and passing every rule"
			}
		}
		t.Changes = append(t.Changes, audit.StatusChange{Key: slices.Clone(c.Key), Cell: t.KeyString(c.Key), Given: string(was), Status: now, Why: why, Source: filepath.Base(r.dir)})
	}
}

// protectWithPrevious runs secondary suppression and the audit, keeping
// the previous release's pattern (see the top of this file).
func protectWithPrevious(ctx context.Context, t *audit.Table, s *configs.Settings, workers int, keep map[*audit.Cell]bool, hints *tableHints) error {
	prev := hints.prev
	if prev == nil || !s.Suppression.Secondary {
		return protectTable(ctx, t, s, workers, keep, hints)
	}
	for c, st := range prev.status {
		if st == audit.StatusOK || st == "" || statusOf(c) != audit.StatusOK {
			continue
		}
		msg := fmt.Sprintf("withheld in the previous release (%s, %s): withheld again, so that the two releases together reveal nothing either hides", filepath.Base(prev.dir), st)
		c.Status = audit.StatusSecondary
		c.Findings = append(c.Findings, audit.Finding{Rule: "secondary", Outcome: audit.Fail, Text: msg, Figures: []audit.Figure{audit.TextFig("previous", string(st))}})
		c.Notes = append(c.Notes, msg)
	}
	// snapshot, to run again without keeping last time's published cells
	type snap struct {
		status   audit.Status
		findings int
		notes    int
	}
	before := make([]snap, len(t.Cells))
	for i, c := range t.Cells {
		before[i] = snap{c.Status, len(c.Findings), len(c.Notes)}
	}
	warnings := len(t.Warnings)
	strict := maps.Clone(keep)
	if strict == nil {
		strict = map[*audit.Cell]bool{}
	}
	for c, st := range prev.status {
		if (st == audit.StatusOK || st == "") && statusOf(c) == audit.StatusOK {
			strict[c] = true
		}
	}
	if err := protectTable(ctx, t, s, workers, strict, hints); err != nil {
		return err
	}
	// When no pattern keeps every cell published last time published, the
	// cells near the primary cells left unprotected are allowed as
	// complements, nearest first: those differing from such a primary in
	// one dimension, then two, ... (at previousPublishedFactor times their
	// cost), until the audit finds every primary cell protected.
	for dist := 1; dist <= len(t.Dims) && t.Audit != nil && t.Audit.ExactlyDisclosed+t.Audit.UnderProtected > 0; dist++ {
		var exposed [][]string
		for _, a := range t.Audit.Cells {
			if a.Status == audit.StatusPrimary && (a.Exact || !a.Protected) {
				exposed = append(exposed, a.Key)
			}
		}
		if len(exposed) == 0 {
			break
		}
		released := 0
		for c := range strict {
			if keep[c] {
				continue
			}
			for _, k := range exposed {
				if hamming(c.Key, k) <= dist {
					delete(strict, c)
					released++
					break
				}
			}
		}
		if released == 0 {
			continue
		}
		for i, c := range t.Cells {
			c.Status, c.Findings, c.Notes = before[i].status, c.Findings[:before[i].findings], c.Notes[:before[i].notes]
		}
		t.Warnings, t.Audit = t.Warnings[:warnings], nil
		note := fmt.Sprintf("keeping every cell published in the previous release (%s) published leaves a primary cell unprotected: %d cell(s) published last time within %d dimension(s) of it were allowed as complements, at %d times their cost", filepath.Base(prev.dir), released, dist, previousPublishedFactor)
		if err := protectTable(ctx, t, s, workers, strict, hints); err != nil {
			return err
		}
		t.Warnings = append(t.Warnings, note)
	}
	return nil
}

// hamming is the number of dimensions in which two keys differ.
func hamming(a, b []string) int {
	n := 0
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			n++
		}
	}
	return n
}
