package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
)

// overrideRule is the rule name of the finding an override adds.
const overrideRule = "override"

// applyOverrides applies the checker's a-priori decisions to a decided
// table, before secondary suppression: safe makes a primary or review
// cell ok (the rules' findings stay in the reports), suppress makes a cell
// primary, protected keeps a cell out of secondary suppression. Each adds
// an "override" finding with its reason and author and is listed in
// t.Overrides (protectedCells reads the cells kept from there). An
// override naming an unknown dimension, missing one, or matching no cell
// is an error (every problem is reported at once).
func applyOverrides(t *audit.Table, ovs []configs.Override) error {
	if len(ovs) == 0 {
		return nil
	}
	byKey := make(map[string]*audit.Cell, len(t.Cells))
	for _, c := range t.Cells {
		byKey[strings.Join(c.Key, "\x00")] = c
	}
	var errs []error
	key := make([]string, len(t.Dims))
	for _, o := range ovs {
		if o.Table != "" && o.Table != t.Name {
			continue
		}
		ok := true
		for d := range o.Cell {
			if !slices.Contains(t.Dims, d) {
				msg := fmt.Sprintf("%s: override names dimension %q, which table %s does not have (dimensions: %s)", o.Source, d, t.Name, strings.Join(t.Dims, ", "))
				if s := configs.Suggest(d, t.Dims); s != "" {
					msg += "; did you mean " + s + "?"
				}
				errs = append(errs, errors.New(msg))
				ok = false
			}
		}
		for i, d := range t.Dims {
			v, has := o.Cell[d]
			if !has {
				errs = append(errs, fmt.Errorf("%s: override gives no level for dimension %q of table %s (use %q for its margin)", o.Source, d, t.Name, t.TotalLabel))
				ok = false
			}
			key[i] = v
		}
		if !ok {
			continue
		}
		c := byKey[strings.Join(key, "\x00")]
		if c == nil {
			errs = append(errs, fmt.Errorf("%s: override %s matches no cell of table %s", o.Source, t.KeyString(key), t.Name))
			continue
		}
		f := audit.Finding{Rule: overrideRule, Outcome: audit.Pass, Figures: []audit.Figure{
			audit.TextFig("action", o.Action), audit.TextFig("reason", o.Reason), audit.TextFig("by", o.By), audit.TextFig("source", o.Source)}}
		switch o.Action {
		case configs.OverrideSafe:
			f.Text = "marked safe by " + o.By + ": " + o.Reason
			if c.Status == audit.StatusPrimary || c.Status == audit.StatusReview {
				c.Status = audit.StatusOK
			}
		case configs.OverrideSuppress:
			f.Outcome = audit.Fail
			f.Text = "suppressed by " + o.By + ": " + o.Reason
			c.Status = audit.StatusPrimary
		case configs.OverrideProtected:
			f.Text = "protected from secondary suppression by " + o.By + ": " + o.Reason
		default:
			errs = append(errs, fmt.Errorf("%s: override action %q: want safe, suppress or protected", o.Source, o.Action))
			continue
		}
		c.Findings = append(c.Findings, f)
		t.Overrides = append(t.Overrides, audit.Override{Key: slices.Clone(c.Key), Cell: t.KeyString(c.Key), Action: o.Action, Reason: o.Reason, By: o.By, Source: o.Source})
	}
	if len(errs) > 0 {
		return &configs.Error{Msg: errors.Join(errs...).Error(), Err: configs.ErrInvalid}
	}
	return nil
}

// overrideStatuses records each override's cell status once the table is
// decided (after secondary suppression and the interval audit).
func overrideStatuses(t *audit.Table) {
	if len(t.Overrides) == 0 {
		return
	}
	byKey := make(map[string]*audit.Cell, len(t.Cells))
	for _, c := range t.Cells {
		byKey[strings.Join(c.Key, "\x00")] = c
	}
	for i := range t.Overrides {
		if c := byKey[strings.Join(t.Overrides[i].Key, "\x00")]; c != nil {
			t.Overrides[i].Status = statusOf(c)
		}
	}
}

func statusOf(c *audit.Cell) audit.Status { return c.Status.Effective() }

// protectedCells are the cells of a decided table that an override keeps
// out of secondary suppression (action protected, as applyOverrides
// recorded them in t.Overrides): for Protect and for tables protected with
// their linked tables (linked.go).
func protectedCells(t *audit.Table) map[*audit.Cell]bool {
	var keep map[*audit.Cell]bool
	var byKey map[string]*audit.Cell
	for _, o := range t.Overrides {
		if o.Action != configs.OverrideProtected {
			continue
		}
		if byKey == nil {
			byKey = make(map[string]*audit.Cell, len(t.Cells))
			for _, c := range t.Cells {
				byKey[strings.Join(c.Key, "\x00")] = c
			}
			keep = map[*audit.Cell]bool{}
		}
		if c := byKey[strings.Join(o.Key, "\x00")]; c != nil {
			keep[c] = true
		}
	}
	return keep
}

// checkOverrideTables refuses an override that names a table the run does
// not have (a typo would otherwise leave the cell it orders suppressed
// published): every override of every job is checked against the names
// of the tables opened (units). A sharded run opens only its own jobs; a
// name not among them is accepted when it may be a table of a job of
// another shard (its output name, or a sheet of it: mayLinkJob), which
// that shard then checks. All problems are reported at once.
func checkOverrideTables(jobs []Job, units []unit, all []Job) error {
	names := make([]string, 0, len(units))
	have := make(map[string]bool, len(units))
	for _, u := range units {
		if !have[u.name] {
			have[u.name] = true
			names = append(names, u.name)
		}
	}
	var errs []error
	seen := map[string]bool{}
	for _, j := range jobs {
		for _, o := range j.Settings.Overrides {
			if o.Table == "" || have[o.Table] || seen[o.Source+"\x00"+o.Table] {
				continue
			}
			seen[o.Source+"\x00"+o.Table] = true
			elsewhere := false
			if len(all) > len(jobs) {
				for _, a := range all {
					if mayLinkJob(o.Table, a) {
						elsewhere = true
						break
					}
				}
			}
			if elsewhere {
				continue
			}
			msg := fmt.Sprintf("%s: override names table %q, which the run does not have (tables: %s)", o.Source, o.Table, strings.Join(names, ", "))
			if s := configs.Suggest(o.Table, names); s != "" {
				msg += "; did you mean " + s + "?"
			}
			errs = append(errs, errors.New(msg))
		}
	}
	if len(errs) > 0 {
		return &configs.Error{Msg: errors.Join(errs...).Error(), Err: configs.ErrInvalid}
	}
	return nil
}
