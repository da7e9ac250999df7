package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// tableFlags say how to read a table from the command line: a config file,
// a base profile, the microdata roles and the input format. check and
// rules compare share them.
type tableFlags struct {
	config, profile, dims, value, holding, format, sheet, cellRange string
	across                                                          string
	overrides                                                       string
	// metadata (--metadata) is a tau-argus .rda; apriori (--apriori) a
	// .hst or overrides CSV; previous (--previous) the last release's
	// output directory. tauargus says an input is tau-argus data (its
	// metadata gives the dims).
	metadata, apriori, previous string
	tauargus                    bool
}

func (f *tableFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "config file (YAML); the embedded default profile otherwise")
	fs.StringVar(&f.profile, "profile", "", "base profile: "+strings.Join(configs.Profiles(), ", "))
	fs.StringVar(&f.dims, "dims", "", "microdata: comma-separated grouping dimensions")
	fs.StringVar(&f.value, "value", "", "microdata: the value column (omit for a frequency table); alone, for a table laid out for people: what its body holds (count, total, mean, ...)")
	fs.StringVar(&f.holding, "holding", "", "microdata: holding/enterprise id column; its contributions are summed")
	fs.StringVar(&f.across, "across", "", "a crosstab: comma-separated column dimensions, one header row each, outermost first; --dims are then its row dimensions and --value what its body holds (count, total, mean, ...)")
	fs.StringVar(&f.format, "format", "", "input format instead of the extension: csv, tsv, xlsx, arrow, arrows, parquet")
	fs.StringVar(&f.sheet, "sheet", "", "workbook sheet by name or 1-based index; * for every sheet")
	fs.StringVar(&f.cellRange, "range", "", "workbook cell range of the table, such as A5:H40 (instead of detecting it)")
}

// layers returns the configuration layers the flags give: the config file,
// then the flags themselves (which win). Layers merge field by field, so a
// flag left empty keeps the config file's value.
func (f *tableFlags) layers() ([]*configs.Config, error) {
	file := &configs.Config{}
	if f.config != "" {
		c, err := configs.Load(f.config)
		if err != nil {
			return nil, err
		}
		file = c
	}
	flags := &configs.Config{Profile: f.profile}
	if f.across != "" {
		if f.dims == "" || f.value == "" || f.holding != "" {
			return nil, usageErr(errors.New("a crosstab needs --dims (row dimensions), --across (column dimensions) and --value (what the body holds: count, total, mean, ...), without --holding"))
		}
		flags.Columns = &configs.Columns{Dims: splitList(f.dims), Across: splitList(f.across), Value: f.value}
	} else if f.dims == "" && f.holding == "" && isStatKind(f.value) && (file.Microdata == nil || len(file.Microdata.Dims) == 0) {
		// a table laid out for people: --value says what its body holds,
		// the layout is detected
		flags.Columns = &configs.Columns{Value: f.value}
	} else if f.dims != "" || f.value != "" || f.holding != "" {
		if f.dims == "" && !f.tauargus && (file.Microdata == nil || len(file.Microdata.Dims) == 0) {
			return nil, usageErr(errors.New("--value and --holding need --dims (or microdata.dims in the config)"))
		}
		flags.Microdata = &configs.Microdata{Dims: splitList(f.dims), Value: f.value, Holding: f.holding}
	}
	if f.format != "" && !slices.Contains(readers.Formats(), f.format) {
		return nil, usageErr(fmt.Errorf("--format %q: unknown format (known: %s)", f.format, strings.Join(readers.Formats(), ", ")))
	}
	if f.format != "" || f.sheet != "" || f.cellRange != "" {
		flags.Input = &configs.Input{Format: f.format, Sheet: f.sheet, Range: f.cellRange}
	}
	if f.overrides != "" {
		ovs, err := configs.LoadOverrides(f.overrides)
		if err != nil {
			return nil, err
		}
		flags.Overrides = ovs
	}
	flags.Apriori, flags.Previous = f.apriori, f.previous
	return []*configs.Config{file, flags}, nil
}

// isStatKind reports whether --value names what a crosstab's body holds
// rather than a microdata column.
func isStatKind(v string) bool {
	switch v {
	case "count", "total", "mean", "sd", "variance", "median", "min", "max", "skewness", "kurtosis":
		return true
	}
	return false
}
