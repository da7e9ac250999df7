package structure

import (
	"regexp"
	"strings"
)

// GSS codes (the UK Government Statistical Service's geography codes)
// name the level of an area by their first three characters: K02 the
// United Kingdom, K03 Great Britain, K04 England and Wales, E92/W92/S92/N92
// a country, E12 an English region, E10/E11 a county, E06/E07/E08/E09,
// W06, S12, N09 a local authority. A table that lists areas of several
// levels in one column (Great Britain, then its countries, then each
// region and its authorities) has its hierarchy in the codes.

var gssRe = regexp.MustCompile(`^([EWSNK])(\d{2})\d{6}$`)

// gssLevels are the levels of the GSS code prefixes, coarsest first.
var gssLevels = map[string]int{
	"K02": 0, "K03": 1, "K04": 2,
	"E92": 3, "W92": 3, "S92": 3, "N92": 3,
	"E12": 4, "E13": 5,
	"E10": 6, "E11": 6,
	"E06": 7, "E07": 7, "E08": 7, "E09": 7, "W06": 7, "S12": 7, "N09": 7,
}

// countyChildren are the prefixes that may sit below a county (E10
// non-metropolitan districts, E11 metropolitan districts).
var countyChildren = map[string]string{"E07": "E10", "E08": "E11"}

// gssCode returns the GSS code in an axis code: a part that is one, or
// starts with one followed by a space ("E06000001 Hartlepool").
func gssCode(code string) (string, bool) {
	for _, p := range strings.Split(code, "\x1f") {
		p = strings.TrimSpace(p)
		if i := strings.IndexByte(p, ' '); i > 0 {
			p = p[:i]
		}
		if m := gssRe.FindStringSubmatch(p); m != nil {
			if _, ok := gssLevels[p[:3]]; ok {
				return p, true
			}
		}
	}
	return "", false
}

// gssTree returns the parent of each code by its GSS level, each code
// below the nearest code above it in the table of a coarser level (a
// district below a county only), or nil unless every code has a known GSS
// code and there are at least two levels.
func gssTree(codes []string) map[string]string {
	if len(codes) < 3 {
		return nil
	}
	prefix := make([]string, len(codes))
	levels := map[int]bool{}
	for i, c := range codes {
		g, ok := gssCode(c)
		if !ok {
			return nil
		}
		prefix[i] = g[:3]
		levels[gssLevels[prefix[i]]] = true
	}
	if len(levels) < 2 {
		return nil
	}
	parent := map[string]string{}
	for i, c := range codes {
		lv := gssLevels[prefix[i]]
		for j := i - 1; j >= 0; j-- {
			pl := gssLevels[prefix[j]]
			if pl >= lv {
				continue
			}
			if pl == 6 && countyChildren[prefix[i]] != prefix[j] {
				continue // a county holds its districts only
			}
			parent[c] = codes[j]
			break
		}
	}
	return parent
}
