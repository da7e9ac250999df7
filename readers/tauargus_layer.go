package readers

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/configs"
)

// TauArgusInput says whether a command-line input is tau-argus data and
// returns the data file and its metadata: FILE.rda (its data file beside
// it: FILE.tab, .asc, .csv, ...), a data file with metadata (--metadata),
// or a .tab with a .rda of the same name beside it. ok is false for any
// other input.
func TauArgusInput(arg, metadata string) (data, rda string, ok bool, err error) {
	switch {
	case metadata != "":
		return arg, metadata, true, nil
	case strings.EqualFold(filepath.Ext(arg), ".rda"):
		data, err := TauDataFile(arg)
		return data, arg, err == nil, err
	case strings.EqualFold(filepath.Ext(arg), ".tab"):
		if rda, found := TauMetadataFor(arg); found {
			return arg, rda, true, nil
		}
	}
	return arg, "", false, nil
}

// TauArgusLayer is the configuration layer a tau-argus metadata file
// gives its data: the input format, the columns' roles (aggregate tables:
// explanatory variables as dims, the first NUMERIC as total, FREQUENCY as
// count, MAXSCORE as top, COSTVAR, STATUS, LOWERPL and UPPERPL as cost,
// status, lower_pl and upper_pl; microdata: explanatory variables as
// dims, the first NUMERIC as value, HOLDING as holding), the hierarchy
// files (HIERCODELIST, HIERLEADSTRING) and the total label (TOTCODE).
// Layers given after it (a config file, flags) win field by field.
func TauArgusLayer(data, rda string) (*configs.Config, error) {
	m, err := LoadRDA(rda)
	if err != nil {
		return nil, err
	}
	fail := func(line int, format string, a ...any) error {
		return &configs.Error{File: rda, Line: line, Msg: fmt.Sprintf(format, a...), Err: configs.ErrInvalid}
	}
	c := &configs.Config{Input: &configs.Input{Format: "tauargus", Metadata: rda}}
	label, _ := m.TotalLabel()
	c.TotalLabel = &configs.Labels{label}
	var dims []string
	var levels []TauVar // <HIERLEVELS> hierarchies
	var hierFiles map[string]string
	lead := ""
	for _, v := range m.Vars {
		if v.Role != TauExplanatory {
			continue
		}
		dims = append(dims, v.Name)
		if pre := v.LevelPrefixes(); len(pre) > 0 {
			levels = append(levels, v)
		}
		if v.HierFile == "" {
			continue
		}
		path, ok := m.Relative(v.HierFile)
		if !ok {
			return nil, fail(v.Line, "variable %s: the hierarchy file %q is not beside the metadata (looked for it case-insensitively in %s)", v.Name, v.HierFile, filepath.Dir(rda))
		}
		if hierFiles == nil {
			hierFiles = map[string]string{}
		}
		hierFiles[v.Name] = path
		l := v.HierLead
		if l == "" {
			l = "@"
		}
		if lead != "" && lead != l {
			return nil, fail(v.Line, "variable %s: <HIERLEADSTRING> %q differs from another variable's %q; sdcaudit reads one indentation for every hierarchy file", v.Name, l, lead)
		}
		lead = l
	}
	if len(dims) == 0 {
		return nil, fail(0, "no explanatory variable (<RECODEABLE>): nothing to tabulate")
	}
	if hierFiles != nil {
		c.Suppression = &configs.Suppression{HierarchyFiles: hierFiles}
		if lead != "@" {
			c.Suppression.HRCIndent = lead
		}
	}
	first := func(role TauRole) string {
		if vs := m.ByRole(role); len(vs) > 0 {
			return vs[0].Name
		}
		return ""
	}
	if !m.Tabular() {
		c.Microdata = &configs.Microdata{Dims: dims, Value: first(TauNumeric), Holding: first(TauHolding)}
		// <HIERLEVELS>: the source adds a column per level above the
		// codes (LevelColumn), read as parent columns
		for _, v := range levels {
			if c.Microdata.Parents == nil {
				c.Microdata.Parents = map[string]string{}
			}
			pre := v.LevelPrefixes()
			child := v.Name
			for k := len(pre) - 1; k >= 0; k-- {
				col := LevelColumn(v.Name, pre[k])
				c.Microdata.Parents[child] = col
				child = col
			}
		}
		return c, nil
	}
	if len(levels) > 0 {
		hier, err := tableLevels(data, rda, m, levels, label)
		if err != nil {
			return nil, err
		}
		if c.Suppression == nil {
			c.Suppression = &configs.Suppression{}
		}
		c.Suppression.Hierarchies = hier
	}
	col := &configs.Columns{Dims: dims, Total: first(TauNumeric), Count: first(TauFrequency),
		Cost: first(TauCost), Status: first(TauStatus), LowerPL: first(TauLowerPL), UpperPL: first(TauUpperPL)}
	for _, v := range m.ByRole(TauMaxScore) {
		col.Top = append(col.Top, v.Name)
	}
	if col.Total == "" && col.Count == "" {
		return nil, fail(0, "a table needs a response variable (<NUMERIC>) or a frequency (<FREQUENCY>)")
	}
	c.Columns = col
	return c, nil
}

// tableLevels reads the codes of a table's <HIERLEVELS> variables and
// gives each code's parent: the code cut to the level above its own
// (a code whose length is no level's is an error naming the row).
func tableLevels(data, rda string, m *TauMetadata, levels []TauVar, total string) (map[string]map[string]string, error) {
	srcs, err := Open(data, Options{Format: "tauargus", Metadata: rda})
	if err != nil {
		return nil, err
	}
	src := srcs[0]
	defer src.Close()
	col := map[string]int{}
	for i, h := range src.Header() {
		col[h] = i
	}
	out := map[string]map[string]string{}
	for {
		b, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		for r, row := range b.Rows {
			for _, v := range levels {
				code := strings.TrimSpace(row[col[v.Name]])
				if code == "" || code == total || code == "Total" || slices.Contains(v.Missing, code) {
					continue
				}
				pre := v.LevelPrefixes()
				full := pre[len(pre)-1] + levelWidth(v.HierLevels, len(pre))
				lens := append(slices.Clone(pre), full)
				k := slices.Index(lens, len(code))
				if k < 0 {
					return nil, &Error{File: data, Row: b.Lines[r], Column: v.Name, Value: code,
						Err: fmt.Errorf("the code's length is no level of <HIERLEVELS> (%s line %d: codes of %v characters)", filepath.Base(rda), v.Line, lens)}
				}
				if k == 0 {
					continue // a top-level code
				}
				if out[v.Name] == nil {
					out[v.Name] = map[string]string{}
				}
				out[v.Name][code] = code[:lens[k-1]]
			}
		}
	}
	return out, nil
}

// levelWidth is the width of the k-th non-zero level (0-based).
func levelWidth(levels []int, k int) int {
	for _, l := range levels {
		if l > 0 {
			if k == 0 {
				return l
			}
			k--
		}
	}
	return 0
}
