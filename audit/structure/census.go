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
	return strings.TrimSpace(strings.TrimSuffix(n, " region"))
}

// censusTree relates the US Census Bureau's regions to their states on a
// single-dimension axis that lists them (each in any order, anywhere):
// a division whose every state is a member is their margin when it is
// their sum on every complete line (every column of the table), with two
// of them nonzero somewhere; a region whose every state is a member is
// the margin of its divisions so confirmed and of the states of the
// others, on the same terms; else a warning with the difference, and no
// relation. When the four regions are confirmed, the one other member
// that is their sum on every line (the nation) is their margin. A name
// met twice (".Alabama" and "Alabama"), or two members that are each
// the regions' sum, is ambiguous: a warning, and nothing is guessed. The
// work is one check per region and per candidate nation: bounded by the
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
	present := 0
	for _, r := range censusRegions {
		if len(byName[r.name]) > 0 {
			present++
		}
	}
	if present < 2 {
		return
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
		code   string
		states []string
		// divisions are the codes of the region's divisions in the table
		// ("" where absent), with their states
		divisions []string
		divStates [][]string
	}
	var regions []region
	for _, r := range censusRegions {
		if len(byName[r.name]) == 0 || slices.ContainsFunc(r.states, func(s string) bool { return len(byName[s]) == 0 }) {
			// no region, or not every state of the region in the table
			// (a table of some states, whose region rows, if any, are no
			// margin of them)
			continue
		}
		code, ok := one(r.name, "region")
		if !ok {
			return
		}
		rg := region{code: code}
		for _, s := range r.states {
			sc, ok := one(s, "state")
			if !ok {
				return
			}
			rg.states = append(rg.states, sc)
		}
		k := 0
		for _, d := range r.divisions {
			dc := ""
			if len(byName[d.name]) > 0 {
				if dc, ok = one(d.name, "division"); !ok {
					return
				}
			}
			rg.divisions = append(rg.divisions, dc)
			rg.divStates = append(rg.divStates, rg.states[k:k+d.n])
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
		holds, checked, nontrivial, diff, at := in.check(total, parts)
		if !holds || checked == 0 || !nontrivial || in.negative || !in.mayBePart(parts) {
			if !holds {
				in.warnings = append(in.warnings, fmt.Sprintf("%s: %q is a Census %s but is not the sum of its %s (difference %s%s%s): not used as their margin", tr.name, audit.CodeText(total), kind, report.Plural(int64(len(parts)), noun, noun+"s"), diff, in.where(at), in.rounding(diff, len(parts))))
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
		if sums(rg.code, rg.states, "region", noun, censusHow) {
			confirmed = append(confirmed, rg.code)
		}
	}
	if len(divisions) > 0 {
		in.notes = append(in.notes, fmt.Sprintf("%s: the Census divisions %s are each the sum of their states (the Census Bureau's classification) on every line: read as their margins", tr.name, quotedList(divisions)))
	}
	if len(confirmed) == 0 {
		return
	}
	in.notes = append(in.notes, fmt.Sprintf("%s: the Census regions %s are each the sum of their states or divisions (the Census Bureau's classification) on every line: read as their margins", tr.name, quotedList(confirmed)))
	if len(regions) != len(censusRegions) {
		return
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
	var nation []string
	for _, c := range tr.roots() {
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
