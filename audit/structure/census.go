package structure

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/report"
)

// The US Census Bureau's four regions and the states (and the District of
// Columbia) in each, as the Bureau documents them ("Census Regions and
// Divisions of the United States"). Its tables print the nation, then
// the regions, then the states in alphabetical order (nst-est2019-01,
// st-est00int-01): a region is not beside its states, so its parts are
// not in the table's layout; they are in this classification, and every
// region is confirmed by arithmetic before it is used.
var censusRegions = []struct {
	name   string
	states []string
	// divisions are the region's divisions, each of the next n states
	divisions []censusDivision
}{
	{"northeast", []string{"connecticut", "maine", "massachusetts", "new hampshire", "rhode island", "vermont", "new jersey", "new york", "pennsylvania"}, []censusDivision{{"new england", 6}, {"middle atlantic", 3}}},
	{"midwest", []string{"illinois", "indiana", "michigan", "ohio", "wisconsin", "iowa", "kansas", "minnesota", "missouri", "nebraska", "north dakota", "south dakota"}, []censusDivision{{"east north central", 5}, {"west north central", 7}}},
	{"south", []string{"delaware", "district of columbia", "florida", "georgia", "maryland", "north carolina", "south carolina", "virginia", "west virginia", "alabama", "kentucky", "mississippi", "tennessee", "arkansas", "louisiana", "oklahoma", "texas"}, []censusDivision{{"south atlantic", 9}, {"east south central", 4}, {"west south central", 4}}},
	{"west", []string{"arizona", "colorado", "idaho", "montana", "nevada", "new mexico", "utah", "wyoming", "alaska", "california", "hawaii", "oregon", "washington"}, []censusDivision{{"mountain", 8}, {"pacific", 5}}},
}

// censusDivision is a Census division: its name and its number of states.
type censusDivision struct {
	name string
	n    int
}

const (
	censusHow         = "Census regions and arithmetic"
	censusDivisionHow = "Census divisions and arithmetic"
)

// censusName is a code's name as the classification is matched: the
// label normalised, without the leading dots that mark sub-parts and
// without a trailing "region".
func censusName(code string) string {
	l := label(code)
	n := strings.TrimSpace(strings.TrimLeft(normal(l[len(l)-1]), "."))
	n = strings.TrimSpace(strings.TrimSuffix(n, " region"))
	if slices.Contains(dcNames, n) {
		return "district of columbia"
	}
	return n
}

// dcNames are the usual spellings of the District of Columbia, normalised.
var dcNames = []string{"washington, d.c.", "washington d.c.", "washington, dc", "washington dc", "d.c.", "dc", "washington, d. c.", "district of columbia (dc)", "washington (dc)"}

// censusTree relates the US Census Bureau's regions and divisions to
// their states on a single-dimension axis that lists them (each in any
// order, anywhere; the District of Columbia under its usual spellings,
// dcNames): a division is the margin of its states in the table when it
// is their sum on every complete line (every column of the table), with
// two of them nonzero somewhere; a region is the margin of its divisions
// so confirmed and of the states of the others, on the same terms, also
// when the table lacks some of its states (the District of Columbia) or
// has no row for the region (its divisions are related still). A
// region or division row named with its states that arithmetic does not
// confirm is a warning, and no relation. When every region is covered
// (by its row, or its divisions or states), the one other member or
// labelled total that is the sum of the regions (of the divisions or
// states of a region not confirmed) on every line is the nation, their
// margin: a row outside (Puerto Rico) is no part of it. A name met twice
// (".Alabama" and "Alabama"), or two members that are each the regions'
// sum, is ambiguous: a warning, and nothing is guessed. The work is one
// check per region, division and candidate nation: bounded by the
// table's size.
func (in *axisInference) censusTree(tr *axisTree) {
	ax := in.ax
	if len(ax.Dims) != 1 || !in.arithmetic || len(tr.hier) > 0 || tr.how == "GSS codes" || tr.how == absHow {
		return
	}
	byName := map[string][]string{}
	for _, c := range tr.members {
		if _, has := tr.parent[c]; has {
			continue
		}
		n := censusName(c)
		byName[n] = append(byName[n], c)
	}
	one := func(n, kind string) (string, bool) {
		cs := byName[n]
		if len(cs) > 1 {
			in.warnings = append(in.warnings, fmt.Sprintf("%s: %q and %q both name the Census %s %q: ambiguous, no Census region is taken as a margin; declare the hierarchy with suppression.hierarchies", tr.name, audit.CodeText(cs[0]), audit.CodeText(cs[1]), kind, n))
			return "", false
		}
		if len(cs) == 0 {
			return "", false
		}
		return cs[0], true
	}
	type region struct {
		code   string // "" where the table has no row for it
		states []string
		// divisions are the codes of the region's divisions in the table
		// ("" where absent), with their states in the table
		divisions []string
		divStates [][]string
	}
	// a Census table names two regions or divisions or more, each with
	// one of its states at least (a region name alone, "South" of some
	// other country, is left to the other searches)
	has := func(states []string) bool {
		return slices.ContainsFunc(states, func(s string) bool { return len(byName[s]) > 0 })
	}
	named := 0
	for _, r := range censusRegions {
		if len(byName[r.name]) > 0 && has(r.states) {
			named++
		}
		k := 0
		for _, d := range r.divisions {
			if len(byName[d.name]) > 0 && has(r.states[k:k+d.n]) {
				named++
			}
			k += d.n
		}
	}
	if named < 2 {
		return
	}
	var regions []region
	for _, r := range censusRegions {
		rg := region{}
		var ok bool
		if len(byName[r.name]) > 0 && has(r.states) {
			if rg.code, ok = one(r.name, "region"); !ok {
				return
			}
		}
		k := 0
		for _, d := range r.divisions {
			dc := ""
			if len(byName[d.name]) > 0 && has(r.states[k:k+d.n]) {
				if dc, ok = one(d.name, "division"); !ok {
					return
				}
			}
			var ds []string
			for _, s := range r.states[k : k+d.n] {
				if len(byName[s]) == 0 {
					continue // a state the table does not list
				}
				sc, ok := one(s, "state")
				if !ok {
					return
				}
				ds = append(ds, sc)
			}
			rg.states = append(rg.states, ds...)
			rg.divisions = append(rg.divisions, dc)
			rg.divStates = append(rg.divStates, ds)
			k += d.n
		}
		regions = append(regions, rg)
	}
	var confirmed []string
	pos := map[string]int{}
	for i, c := range ax.Codes {
		pos[c] = i
	}
	byTable := func(codes []string) []string {
		codes = slices.Clone(codes)
		slices.SortFunc(codes, func(a, b string) int { return pos[a] - pos[b] })
		return codes
	}
	// sums confirms total = Σ parts as a margin found by the Census
	// classification (how), or warns with the difference
	sums := func(total string, parts []string, kind, noun, how string) bool {
		if len(parts) == 0 {
			in.warnings = append(in.warnings, fmt.Sprintf("%s: %q is a Census %s but none of its states is in the table: not related to any row", tr.name, audit.CodeText(total), kind))
			return false
		}
		holds, checked, nontrivial, diff, at := in.check(total, parts)
		if !holds || checked == 0 || !nontrivial || in.negative || !in.mayBePart(parts) {
			if !holds {
				in.warnings = append(in.warnings, fmt.Sprintf("%s: %q is a Census %s but is not the sum of its %s (difference %s%s%s): not used as their margin", tr.name, audit.CodeText(total), kind, report.Plural(int64(len(parts)), noun, noun+"s"), diff, in.where(at), in.rounding(diff, len(parts))))
			} else {
				in.warnings = append(in.warnings, fmt.Sprintf("%s: %q is a Census %s but arithmetic cannot confirm it the sum of its %s in the table (no line where all are published with two nonzero, or a part negative): not used as their margin", tr.name, audit.CodeText(total), kind, report.Plural(int64(len(parts)), noun, noun+"s")))
			}
			return false
		}
		if in.inexact {
			how += ", within rounding"
		}
		in.setTotal(total, parts, tr.parent, how)
		return true
	}
	var divisions []string
	for i := range regions {
		rg := &regions[i]
		// the region's parts: its divisions that are the sum of their
		// states, the states of the others
		var parts []string
		for k, dc := range rg.divisions {
			if dc != "" && sums(dc, byTable(rg.divStates[k]), "division", "state", censusDivisionHow) {
				parts = append(parts, dc)
				divisions = append(divisions, dc)
			} else {
				parts = append(parts, rg.divStates[k]...)
			}
		}
		noun := "state"
		if len(parts) != len(rg.states) {
			noun = "part"
		}
		rg.states = byTable(parts)
		if rg.code != "" && sums(rg.code, rg.states, "region", noun, censusHow) {
			confirmed = append(confirmed, rg.code)
		}
	}
	if len(divisions) > 0 {
		in.notes = append(in.notes, fmt.Sprintf("%s: the Census divisions %s are each the sum of their states (the Census Bureau's classification) on every line: read as their margins", tr.name, quotedList(divisions)))
	}
	if len(confirmed) > 0 {
		in.notes = append(in.notes, fmt.Sprintf("%s: the Census regions %s are each the sum of their states or divisions (the Census Bureau's classification) on every line: read as their margins", tr.name, quotedList(confirmed)))
	}
	if len(confirmed) == 0 && len(divisions) == 0 {
		return
	}
	tr.census = true
	for _, rg := range regions {
		if rg.code == "" && len(rg.states) == 0 {
			return // a region the table does not cover: no nation
		}
	}
	// the nation: the one other root that is the sum of the four regions
	// (of the states of a region not confirmed)
	var parts []string
	for _, rg := range regions {
		if slices.Contains(confirmed, rg.code) {
			parts = append(parts, rg.code)
		} else {
			parts = append(parts, rg.states...)
		}
	}
	slices.SortFunc(parts, func(a, b string) int { return pos[a] - pos[b] })
	// the nation: an unlabelled root ("United States") or a labelled
	// total ("Total"); a row outside the regions (Puerto Rico, listed
	// below the states) is no part of it
	var nation []string
	for _, c := range append(tr.roots(), tr.totals...) {
		if slices.Contains(parts, c) {
			continue
		}
		if h, checked, nontrivial, _, _ := in.check(c, parts); h && checked > 0 && nontrivial {
			nation = append(nation, c)
		}
	}
	switch len(nation) {
	case 1:
		in.check(nation[0], parts)
		how := censusHow + " (the sum of the regions)"
		if in.inexact {
			how = censusHow + ", within rounding (the sum of the regions)"
		}
		in.setTotal(nation[0], parts, tr.parent, how)
		if i := slices.Index(tr.totals, nation[0]); i >= 0 {
			// a labelled total: settled here, not the sum of every
			// root (the regions and Puerto Rico) in assignTotals
			tr.totals = slices.Delete(tr.totals, i, i+1)
			tr.members = append(tr.members, nation[0])
			slices.SortFunc(tr.members, func(a, b string) int { return pos[a] - pos[b] })
		}
	case 0:
	default:
		in.warnings = append(in.warnings, fmt.Sprintf("%s: %q and %q are each the sum of the Census regions: ambiguous, neither is taken as their margin; declare the total with totals:", tr.name, audit.CodeText(nation[0]), audit.CodeText(nation[1])))
	}
}

// quotedList quotes codes for messages.
func quotedList(codes []string) string {
	q := make([]string, len(codes))
	for i, c := range codes {
		q[i] = fmt.Sprintf("%q", audit.CodeText(c))
	}
	return strings.Join(q, ", ")
}
