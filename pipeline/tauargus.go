package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
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
		data, err := readers.TauDataFile(arg)
		return data, arg, err == nil, err
	case strings.EqualFold(filepath.Ext(arg), ".tab"):
		if rda, found := readers.TauMetadataFor(arg); found {
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
func TauArgusLayer(rda string) (*configs.Config, error) {
	m, err := readers.LoadRDA(rda)
	if err != nil {
		return nil, err
	}
	fail := func(line int, format string, a ...any) error {
		return &configs.Error{File: rda, Line: line, Msg: fmt.Sprintf(format, a...), Err: configs.ErrInvalid}
	}
	c := &configs.Config{Input: &configs.Input{Format: "tauargus", Metadata: rda}}
	label, _ := m.TotalLabel()
	c.TotalLabel = &label
	var dims []string
	var hierFiles map[string]string
	lead := ""
	for _, v := range m.Vars {
		if v.Role != readers.TauExplanatory {
			continue
		}
		dims = append(dims, v.Name)
		if len(v.HierLevels) > 0 {
			return nil, fail(v.Line, "variable %s: <HIERLEVELS> (a hierarchy by code digits) is not supported yet; give the hierarchy as a .hrc file (<HIERCODELIST>)", v.Name)
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
	first := func(role readers.TauRole) string {
		if vs := m.ByRole(role); len(vs) > 0 {
			return vs[0].Name
		}
		return ""
	}
	if !m.Tabular() {
		c.Microdata = &configs.Microdata{Dims: dims, Value: first(readers.TauNumeric), Holding: first(readers.TauHolding)}
		return c, nil
	}
	col := &configs.Columns{Dims: dims, Total: first(readers.TauNumeric), Count: first(readers.TauFrequency),
		Cost: first(readers.TauCost), Status: first(readers.TauStatus), LowerPL: first(readers.TauLowerPL), UpperPL: first(readers.TauUpperPL)}
	for _, v := range m.ByRole(readers.TauMaxScore) {
		col.Top = append(col.Top, v.Name)
	}
	if col.Total == "" && col.Count == "" {
		return nil, fail(0, "a table needs a response variable (<NUMERIC>) or a frequency (<FREQUENCY>)")
	}
	c.Columns = col
	return c, nil
}
