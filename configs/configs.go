// Package configs reads sdcaudit configuration: named profiles embedded in
// the binary (profiles/*.yaml), user config files and release files. All
// YAML is decoded strictly: an unknown key is an error that names the file
// and line.
//
// A configuration is layered: the embedded profile named by `profile`
// (default "default"), then the keys a config file sets, then the keys a
// release file sets for one table. Rule entries merge key by key, so
// `rules: {p_percent: {p: 15}}` changes p and keeps the profile's other
// settings of that rule.
package configs

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

//go:embed profiles/*.yaml
var profileFS embed.FS

// Errors wrapped by *Error (errors.Is reaches them).
var (
	// ErrUnknownKey is a key that the configuration does not have.
	ErrUnknownKey = errors.New("unknown key")
	// ErrUnknownProfile is a profile name that is not embedded.
	ErrUnknownProfile = errors.New("unknown profile")
	// ErrInvalid is a value the configuration does not accept.
	ErrInvalid = errors.New("invalid configuration")
)

// Error is a configuration error with the file and line where known, in
// the style of encoding/csv's ParseError: errors.Is and errors.As reach
// its cause through Unwrap.
type Error struct {
	// File is the configuration file (or "profile NAME"); empty when the
	// error concerns no file (a flag, a combination of settings).
	File string
	// Line is the 1-based line of the offending key; 0 when unknown.
	Line int
	// Column is the 1-based column of the offending key or value; 0 when
	// unknown.
	Column int
	// Msg describes the error; when empty, the text of Err is used.
	Msg string
	// Err is the cause: a yaml error, an os error, a rule's parameter
	// error or one of the sentinels ErrUnknownKey, ErrUnknownProfile,
	// ErrInvalid. It may be nil.
	Err error
	// More are the other problems found in the same pass, so that every
	// problem of a file is reported at once.
	More []*Error
}

func (e *Error) Error() string {
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	msg = shortMessage(msg)
	switch {
	case e.File != "" && e.Line > 0 && e.Column > 0:
		msg = fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, msg)
	case e.File != "" && e.Line > 0:
		msg = fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	case e.File != "":
		msg = fmt.Sprintf("%s: %s", e.File, msg)
	}
	for _, m := range e.More {
		msg += "\n" + m.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Config is one layer of configuration as written in YAML. Pointer and nil
// fields mean "not set in this layer".
type Config struct {
	// Profile names the embedded base profile (default, acro, abs, tau-argus).
	Profile string `yaml:"profile"`
	// Rules maps a rule name to its settings: `enabled` plus the rule's own
	// parameters.
	Rules map[string]yaml.Node `yaml:"rules"`
	// Columns maps the columns of an aggregate table to roles.
	Columns *Columns `yaml:"columns"`
	// Microdata describes record-level input: grouping dimensions, the value
	// column and an optional holding (enterprise group) id.
	Microdata *Microdata `yaml:"microdata"`
	// Measure is the domain of the measured variable (for mean/SD
	// reconstruction).
	Measure *Measure `yaml:"measure"`
	// Publish lists the statistics the released table shows per cell.
	Publish *Publish `yaml:"publish"`
	// Decimals of derived statistics (mean, SD, ...) in the released table.
	Decimals *int `yaml:"decimals"`
	// TotalLabel is the dimension value of margins (default "Total"):
	// one label, or a list of labels each read as a total in every
	// dimension ("Mothers All ages", "Fathers All ages").
	TotalLabel *Labels `yaml:"total_label"`
	// Totals are, per dimension, the codes that are its totals (like
	// tau-argus's TOTCODE), beside total_label.
	Totals map[string]Labels `yaml:"totals"`
	// Marker replaces suppressed cells in publishable outputs (default "x").
	Marker *string `yaml:"marker"`
	// Markers are the texts that mark already suppressed cells in input
	// tables (default c, x, .., *, -, :).
	Markers []string `yaml:"markers"`
	// Input selects how files are read.
	Input *Input `yaml:"input"`
	// Output selects the extra outputs.
	Output *Output `yaml:"output"`
	// Suppression configures secondary suppression and the interval audit.
	Suppression *Suppression `yaml:"suppression"`
	// Overrides are the output checker's a-priori decisions about cells
	// (safe, suppress, protected), applied before secondary suppression.
	Overrides []Override `yaml:"overrides"`
	// Apriori is an a-priori file (relative to the file naming it): a
	// tau-argus .hst file (cell codes, then s, u, p, "c cost" or "pl
	// lower upper") or an overrides CSV (configs/apriori.go).
	Apriori string `yaml:"apriori"`
	// Previous is the output directory of the previous release, whose
	// patterns the new one stays close to (pipeline/previous.go).
	Previous string `yaml:"previous"`

	file string
	// ruleAt and profileAt are the line and column of each rule's key and
	// of the profile, for messages.
	ruleAt    map[string][2]int
	profileAt [2]int
}

// Columns maps aggregate input columns to roles.
type Columns struct {
	Dims     []string `yaml:"dims"`
	Count    string   `yaml:"count"`
	Total    string   `yaml:"total"`
	Mean     string   `yaml:"mean"`
	SD       string   `yaml:"sd"`
	Variance string   `yaml:"variance"`
	Median   string   `yaml:"median"`
	Min      string   `yaml:"min"`
	Max      string   `yaml:"max"`
	Skewness string   `yaml:"skewness"`
	Kurtosis string   `yaml:"kurtosis"`
	// Top are the largest contributions, descending (top1, top2, ...).
	Top []string `yaml:"top"`
	// Moments are raw moment means of order 1, 2, ... (S_p / n).
	Moments []string `yaml:"moments"`
	// Across are the column dimensions of a wide (crosstab) table, one
	// header row each, outermost first; Dims are then its row dimensions.
	Across []string `yaml:"across"`
	// Value is what the body of a wide table holds: count, total, mean,
	// sd, ... (a statistic name).
	Value string `yaml:"value"`
	// Statistics, for a wide table with several statistics side by side
	// (instead of Value), maps the labels of the statistic header row
	// (the first header row, above the across rows) to what each block
	// holds: {"Number of enterprises": count, "Turnover": total}.
	Statistics map[string]string `yaml:"statistics"`
	// Cost is a column giving each cell's cost in secondary suppression
	// (tau-argus's COSTVAR), instead of the cost model of suppression.cost.
	Cost string `yaml:"cost"`
	// Status is a column giving each cell's a-priori status, tau-argus's
	// STATUS: S safe, U unsafe, P protected, E empty (configs/apriori.go).
	Status string `yaml:"status"`
	// LowerPL and UpperPL are columns giving each cell's lower and upper
	// protection levels (tau-argus's LOWERPL and UPPERPL).
	LowerPL string `yaml:"lower_pl"`
	UpperPL string `yaml:"upper_pl"`
	// Counts are other count columns of a long table: counts of the same
	// cells (employees and self-employed beside workers), judged by the
	// rules and protected by secondary suppression like the count.
	Counts []string `yaml:"counts"`
	// Derived maps a column derived from a count (a rate, a percentage)
	// to that count column: withheld wherever its count is withheld.
	Derived map[string]string `yaml:"derived"`
	// Safe are columns declared safe to publish as they are (written to
	// the safe table without being audited); in a wide table, also the
	// cells outside the table (a number in a note row) declared safe to
	// publish, by A1 reference ("D9": readers.WideLayout.Unread).
	Safe []string `yaml:"safe"`
}

// Roles returns the scalar statistic roles and their columns, in a fixed order.
func (c *Columns) Roles() [][2]string {
	var out [][2]string
	for _, r := range [][2]string{{"count", c.Count}, {"total", c.Total}, {"mean", c.Mean}, {"sd", c.SD}, {"variance", c.Variance}, {"median", c.Median}, {"min", c.Min}, {"max", c.Max}, {"skewness", c.Skewness}, {"kurtosis", c.Kurtosis}} {
		if r[1] != "" {
			out = append(out, r)
		}
	}
	for i, m := range c.Moments {
		out = append(out, [2]string{fmt.Sprintf("m%d", i+1), m})
	}
	return out
}

// Microdata describes record-level input.
type Microdata struct {
	Dims    []string `yaml:"dims"`
	Value   string   `yaml:"value"`
	Holding string   `yaml:"holding"`
	// Parents maps a dimension column to the column holding the parent
	// of its code (district: region), and that column to its own parent
	// column, and so on: a hierarchy read from the records.
	Parents map[string]string `yaml:"parents"`
}

// Measure is the grid of values a measured variable can take.
type Measure struct {
	Min  decimal.Dec `yaml:"min"`
	Max  decimal.Dec `yaml:"max"`
	Step decimal.Dec `yaml:"step"`
	// Kind is "scale" (the default: answers on a rating scale) or
	// "magnitude" (an amount on a fine grid, whose largest and smallest
	// values are contributors' values; see the meansd rule).
	Kind string `yaml:"kind"`
}

// Publish is the list of released statistics. Items are names (count,
// total, mean, sd, median, min, max, variance, skewness, kurtosis) or
// `moments: {order: K}`.
type Publish struct {
	Stats       []string
	MomentOrder int
}

// Known statistic names for publish.
var publishable = []string{"count", "total", "mean", "sd", "variance", "median", "min", "max", "skewness", "kurtosis"}

// Labels is one label or a list of labels.
type Labels []string

// UnmarshalYAML reads a scalar as a list of one.
func (l *Labels) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = Labels{n.Value}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return err
	}
	*l = list
	return nil
}

// UnmarshalYAML reads the mixed list of names and `moments: {order: K}`.
func (p *Publish) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("line %d: publish must be a list", n.Line)
	}
	for _, it := range n.Content {
		switch it.Kind {
		case yaml.ScalarNode:
			if !contains(publishable, it.Value) {
				return fmt.Errorf("line %d: unknown statistic %q in publish (known: %s, moments)", it.Line, it.Value, strings.Join(publishable, ", "))
			}
			p.Stats = append(p.Stats, it.Value)
		case yaml.MappingNode:
			var m struct {
				Moments struct {
					Order int `yaml:"order"`
				} `yaml:"moments"`
			}
			if err := strictNode(it, &m, "publish"); err != nil {
				return err
			}
			if m.Moments.Order < 1 || m.Moments.Order > 100 {
				return fmt.Errorf("line %d: publish moments order must be 1..100, got %d", it.Line, m.Moments.Order)
			}
			p.MomentOrder = m.Moments.Order
			p.Stats = append(p.Stats, "moments")
		default:
			return fmt.Errorf("line %d: unexpected item in publish", it.Line)
		}
	}
	return nil
}

// Has reports whether the statistic is published.
func (p *Publish) Has(s string) bool { return p != nil && contains(p.Stats, s) }

// Input selects how input files are read.
type Input struct {
	Format    string `yaml:"format"`
	Sheet     string `yaml:"sheet"`
	Range     string `yaml:"range"`
	Delimiter string `yaml:"delimiter"`
	// Encoding of delimited text: auto (default), utf-8, utf-16, latin-1
	// or windows-1252.
	Encoding string `yaml:"encoding"`
	// Decimal is the decimal mark of numbers in delimited text: "." or
	// ","; unset detects a decimal comma in semicolon-separated files.
	Decimal string `yaml:"decimal"`
	// Metadata is a tau-argus metadata file (.rda) describing the input
	// (a .tab table or .asc/.csv microdata); see readers/tauargus.go.
	Metadata string `yaml:"metadata"`
	// MaxRecordBytes bounds one record (row) of delimited text, its header
	// included (unset: 16 MiB); a longer record, or text without line
	// breaks, is an input error naming the row.
	MaxRecordBytes int64 `yaml:"max_record_bytes"`
	// MaxFieldBytes bounds one field of delimited text (unset: 1 MiB).
	MaxFieldBytes int64 `yaml:"max_field_bytes"`
	// MaxCells bounds the cells a microdata table (or a cell summary)
	// implies: the product over its dimensions of levels plus margins
	// (unset: 5,000,000).
	MaxCells int64 `yaml:"max_cells"`
	// MaxCellsPerRecord bounds those cells per input record once they
	// exceed 100,000 (unset: 100): a few records with a distinct level
	// each would otherwise build millions of empty cells.
	MaxCellsPerRecord int64 `yaml:"max_cells_per_record"`
	// Rounded is the base B the table's published values are already
	// rounded to (e.g. 5): each published value stands for the interval
	// [v − B/2, v + B/2]; the rules judge every value of it
	// (rules.ForRounded) and the interval audit uses those intervals.
	// Unset or 0: values are exact.
	Rounded *decimal.Dec `yaml:"rounded"`
}

// Output selects extra outputs beside NAME.report.json and NAME.safe.csv.
type Output struct {
	SafeXLSX  *bool `yaml:"safe_xlsx"`
	Annotated *bool `yaml:"annotated"`
	Findings  *bool `yaml:"findings"`
	HTML      *bool `yaml:"html"`
	// ACRO writes results.json in the shape of ACRO's results file (read
	// by the SACRO viewer).
	ACRO *bool `yaml:"acro"`
	// Apriori writes NAME.hst, the final pattern as a tau-argus a-priori
	// file, for the next run or for tau-argus.
	Apriori *bool `yaml:"apriori"`
	// Layout of the safe tables: long (one row per cell) or wide (laid
	// out like a wide input; the default for wide inputs).
	Layout string `yaml:"layout"`
}

// Suppression configures table-level protection.
type Suppression struct {
	// Secondary enables secondary suppression of tables with margins.
	Secondary *bool `yaml:"secondary"`
	// Audit runs the interval audit of the suppression pattern even
	// without secondary suppression (to see what margins give away).
	Audit *bool `yaml:"audit"`
	// Method is the secondary suppression method: lp (the near-optimal
	// default) or hypercube (faster, more cells suppressed).
	Method string `yaml:"method"`
	// Cost is what secondary suppression minimises: value, count or unity.
	Cost string `yaml:"cost"`
	// MarginWeight (lp method): 0, the default, suppresses a total only
	// when no pattern of interior cells protects the primary; a positive
	// factor lets totals in at their cost times the factor.
	MarginWeight *decimal.Dec `yaml:"margin_weight"`
	// Protection is the required protection level as a percentage of the
	// cell value (upper and lower).
	Protection *decimal.Dec `yaml:"protection"`
	// TimeLimit bounds secondary suppression and the audit per table (a
	// duration such as "60s"); cells not decided in time go to review.
	TimeLimit string `yaml:"time_limit"`
	// Hierarchies maps a dimension to child -> parent codes (e.g.
	// district -> region); codes without a parent add up to the total.
	Hierarchies map[string]map[string]string `yaml:"hierarchies"`
	// HierarchyFiles maps a dimension to a tau-argus hierarchy file
	// (.hrc), relative to the file that names it: the same child -> parent
	// codes, and every code a record of that dimension may carry.
	HierarchyFiles map[string]string `yaml:"hierarchy_files"`
	// HRCIndent is the indentation character of the hierarchy files
	// (default "@").
	HRCIndent string `yaml:"hrc_indent"`
	// PreviousCost is the share of its cost at which a cell suppressed in
	// the previous release (previous:) is chosen as a complement; default
	// 0.1.
	PreviousCost *decimal.Dec `yaml:"previous_cost"`
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Parse reads one configuration layer. name is used in messages.
func Parse(name string, data []byte) (*Config, error) {
	c := &Config{file: name}
	perr := problems(name, data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if perr != nil {
		// the decoder's own error stays reachable (errors.As) as a cause
		if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
			if pe, ok := perr.(*Error); ok {
				pe.Err = errors.Join(pe.Err, err)
			}
		}
		return nil, perr
	}
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(name, locate(data, reflect.TypeOf(c), err))
	}
	c.anchorFiles(filepath.Dir(name))
	if err := c.checkRules(); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) > 0 {
		if err := c.checkValues(doc.Content[0]); err != nil {
			return nil, err
		}
		c.overrideLines(doc.Content[0])
		c.positions(doc.Content[0])
	}
	if err := c.checkOverrides(); err != nil {
		return nil, err
	}
	return c, nil
}

// CheckMarker reports why a text cannot be the suppression marker of
// publishable outputs: it must not be empty or blank, a number (plain,
// with thousands separators or in exponent notation) or a text read as a
// missing value (NA, NaN, null, .), or suppressed cells would look like
// real values or like missing ones.
func CheckMarker(m string) error {
	t := strings.TrimSpace(m)
	if t == "" {
		return fmt.Errorf("marker must not be empty: suppressed cells would look like missing values")
	}
	if IsMissing(t) {
		return fmt.Errorf("marker %q reads as a missing value; use a marker such as x or c", m)
	}
	_, errDec := decimal.Parse(t)
	_, errFloat := strconv.ParseFloat(t, 64)
	if errDec == nil || errFloat == nil || groupedNumber.MatchString(t) {
		return fmt.Errorf("marker %q reads as a number: suppressed cells would look like real values; use a marker such as x or c", m)
	}
	return nil
}

// groupedNumber matches numbers with thousands separators (1,234 or
// 12 345.67), which the table readers accept as numbers.
var groupedNumber = regexp.MustCompile(`^[-+]?\d{1,3}([, \x{00a0}']\d{3})+([.,]\d+)?$`)

// checkValues checks the values of one layer that decoding alone accepts,
// with the line of the offending key (n is the layer's mapping node):
// the marker, suppression.protection (not negative) and measure.step
// (positive when given).
func (c *Config) checkValues(n *yaml.Node) error {
	fail := func(line int, msg string) error { return &Error{File: c.file, Line: line, Msg: msg, Err: ErrInvalid} }
	if c.Marker != nil {
		if err := CheckMarker(*c.Marker); err != nil {
			return fail(keyLine(n, "marker"), err.Error())
		}
	}
	if p := c.Suppression; p != nil && p.Protection != nil && p.Protection.Sign() < 0 {
		return fail(keyLine(n, "suppression", "protection"), fmt.Sprintf("suppression.protection must not be negative (a percentage of the cell value), got %s", *p.Protection))
	}
	if m := c.Measure; m != nil && keyLine(n, "measure", "step") > 0 && m.Step.Sign() <= 0 {
		return fail(keyLine(n, "measure", "step"), fmt.Sprintf("measure.step must be positive, got %s", m.Step))
	}
	return nil
}

// keyLine is the line of the key at path in a mapping node, 0 when absent.
func keyLine(n *yaml.Node, path ...string) int {
	line := 0
	for _, k := range path {
		if n == nil {
			return 0
		}
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n.Kind != yaml.MappingNode {
			return 0
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				line, next = n.Content[i].Line, n.Content[i+1]
			}
		}
		if next == nil {
			return 0
		}
		n = next
	}
	return line
}

// Load reads a configuration file.
func Load(path string) (*Config, error) {
	data, err := readCapped(path, MaxConfigBytes, "config file")
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Profile returns the embedded profile of that name.
func Profile(name string) (*Config, error) {
	data, err := profileFS.ReadFile("profiles/" + name + ".yaml")
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("unknown profile %q (known: %s)", name, strings.Join(Profiles(), ", ")), Err: ErrUnknownProfile}
	}
	return Parse("profile "+name, data)
}

// Profiles lists the embedded profile names.
func Profiles() []string {
	ents, _ := profileFS.ReadDir("profiles")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// yamlError turns a yaml error ("yaml: line 3: ...") into an *Error.
func yamlError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msg = strings.Join(te.Errors, "; ")
	}
	line := 0
	if _, e := fmt.Sscanf(msg, "line %d:", &line); e == nil {
		msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
	}
	return &Error{File: file, Line: line, Msg: msg, Err: err}
}

func (c *Config) checkRules() error {
	for name, n := range c.Rules {
		if n.Kind != yaml.MappingNode {
			return &Error{File: c.file, Line: n.Line, Msg: fmt.Sprintf("rules.%s must be a mapping such as {enabled: true}", name), Err: ErrInvalid}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "enabled" && n.Content[i+1].Tag != "!!bool" {
				return &Error{File: c.file, Line: n.Content[i].Line, Msg: fmt.Sprintf("rules.%s.enabled must be true or false", name), Err: ErrInvalid}
			}
		}
	}
	return nil
}

// strictNode decodes n into v, rejecting keys that v does not have, with
// the line of the offending key.
func strictNode(n *yaml.Node, v any, path string) error {
	if err := checkKeys(n, reflect.TypeOf(v), path); err != nil {
		return err
	}
	if err := n.Decode(v); err != nil {
		if !strings.Contains(err.Error(), "line ") {
			return fmt.Errorf("line %d: %s: %w", n.Line, path, err)
		}
		return err
	}
	return nil
}

// locate finds the line of a decoding error that yaml reports without one
// (a value rejected by UnmarshalText).
func locate(data []byte, t reflect.Type, err error) error {
	if strings.Contains(err.Error(), "line ") {
		return err
	}
	var n yaml.Node
	if yaml.Unmarshal(data, &n) != nil || len(n.Content) == 0 {
		return err
	}
	if e := checkKeys(n.Content[0], t, "config"); e != nil {
		return e
	}
	return err
}

var (
	textUnmarshaler = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()
	yamlUnmarshaler = reflect.TypeFor[yaml.Unmarshaler]()
	nodeType        = reflect.TypeFor[yaml.Node]()
)

// structFields lists a struct's YAML keys, flattening inline fields.
func structFields(t reflect.Type, fields map[string]reflect.Type, names *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "-" {
			continue
		}
		if opts == "inline" {
			structFields(f.Type, fields, names)
			continue
		}
		if tag == "" {
			tag = strings.ToLower(f.Name)
		}
		fields[tag] = f.Type
		*names = append(*names, tag)
	}
}

func checkKeys(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if t == nodeType || reflect.PointerTo(t).Implements(yamlUnmarshaler) {
		return nil
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		if n.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: %s must be a single value", n.Line, path)
		}
		v := reflect.New(t).Interface().(interface{ UnmarshalText([]byte) error })
		if err := v.UnmarshalText([]byte(n.Value)); err != nil {
			return fmt.Errorf("line %d: %s: %w", n.Line, path, err)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: %s must be a mapping", n.Line, path)
		}
		fields := map[string]reflect.Type{}
		var names []string
		structFields(t, fields, &names)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			ft, ok := fields[k.Value]
			if !ok {
				return fmt.Errorf("line %d: %w %q in %s (known: %s)", k.Line, ErrUnknownKey, k.Value, path, strings.Join(names, ", "))
			}
			if err := checkKeys(n.Content[i+1], ft, path+"."+k.Value); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for i, it := range n.Content {
				if err := checkKeys(it, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if err := checkKeys(n.Content[i+1], t.Elem(), path+"."+n.Content[i].Value); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
