package configs

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// Settings is a fully resolved configuration for one table.
type Settings struct {
	Profile    string
	Rules      []RuleSetting // every rule mentioned, sorted by name
	Columns    *Columns
	Microdata  *Microdata
	Measure    *Measure
	Publish    Publish
	Decimals   int
	TotalLabel string
	// TotalLabels are every label of total_label (TotalLabel is the
	// first); Totals the totals: codes per dimension.
	TotalLabels []string
	Totals      map[string][]string
	Marker      string
	Markers     []string
	Input       Input
	Output      OutputSettings
	Suppression SuppressionSettings
	// Overrides are the checker's a-priori decisions of every layer, in
	// layer order.
	Overrides []Override
	// Apriori are the cells of the a-priori files (.hst) of every layer,
	// in layer order; an overrides CSV given as apriori: joins Overrides.
	Apriori []AprioriCell
	// Previous is the previous release's output directory ("" for none).
	Previous string
}

// OutputSettings are the resolved output switches.
type OutputSettings struct {
	SafeXLSX, Annotated, Findings, HTML bool
	ACRO                                bool   // results.json for the SACRO viewer
	Apriori                             bool   // NAME.hst, the final pattern as a tau-argus a-priori file
	Layout                              string // safe tables: "", long or wide
}

// SuppressionSettings are the resolved table-protection settings.
type SuppressionSettings struct {
	Secondary bool
	// Audit runs the LP interval audit of the suppression pattern (always
	// after secondary suppression).
	Audit bool
	// Method is lp (default) or hypercube.
	Method string
	Cost   string
	// MarginWeight: 0 keeps totals out unless nothing else protects a
	// primary; > 0 multiplies their cost.
	MarginWeight decimal.Dec
	TimeLimit    time.Duration
	Protection   decimal.Dec
	Hierarchies  map[string]map[string]string
	// HierarchyFiles are the dimensions whose hierarchy was read from a
	// hierarchy file, with its path; Leaves are that file's codes without
	// children, the only codes a record may carry in that dimension.
	HierarchyFiles map[string]string
	Leaves         map[string]map[string]bool
	// HierarchyDigests are the SHA-256 of those files, by dimension.
	HierarchyDigests map[string]string
	// PreviousCost is the share of its cost at which a cell suppressed
	// in the previous release is chosen as a complement (default 0.1).
	PreviousCost decimal.Dec
}

// RuleSetting is one rule's resolved settings.
type RuleSetting struct {
	Name    string
	Enabled bool
	params  *yaml.Node
	file    string
	at      [2]int // line and column of the rule's key
}

// Decode fills v (a pointer to the rule's parameter struct) from the
// settings; unknown parameters are errors.
func (r RuleSetting) Decode(v any) error {
	if r.params == nil {
		return nil
	}
	if err := strictNode(r.params, v, "rules."+r.Name); err != nil {
		return yamlError(r.file, err)
	}
	return nil
}

// Resolve layers configurations over the embedded profile named by the
// last layer that names one ("default" when none does).
func Resolve(layers ...*Config) (*Settings, error) {
	name := "default"
	for _, l := range layers {
		if l != nil && l.Profile != "" {
			name = l.Profile
		}
	}
	base, err := Profile(name)
	if err != nil {
		return nil, profileError(err, name, layers)
	}
	merged := &Config{ruleAt: map[string][2]int{}}
	files := map[string]string{}
	for _, l := range append([]*Config{base}, layers...) {
		if l == nil {
			continue
		}
		merged.overlay(l, files)
	}
	s := &Settings{
		Profile:    name,
		Columns:    merged.Columns,
		Microdata:  merged.Microdata,
		Measure:    merged.Measure,
		Decimals:   2,
		TotalLabel: "Total",
		Marker:     "x",
		Markers:    Markers(),
	}
	if err := resolveLabels(merged, s); err != nil {
		return nil, err
	}
	if merged.Input != nil {
		s.Input = *merged.Input
		if err := checkInput(&s.Input); err != nil {
			return nil, err
		}
	}
	if err := resolveOutput(merged.Output, &s.Output); err != nil {
		return nil, err
	}
	if s.Suppression, err = resolveSuppression(merged.Suppression); err != nil {
		return nil, err
	}
	if err := resolveHierarchyFiles(merged.Suppression, &s.Suppression, s.TotalLabel); err != nil {
		return nil, err
	}
	if err := checkMeasure(s.Measure); err != nil {
		return nil, err
	}
	s.Rules = resolveRules(merged.Rules, files, merged.ruleAt)
	s.Overrides = merged.Overrides
	if err := resolveApriori(layers, s); err != nil {
		return nil, err
	}
	return s, nil
}

// profileError places the error of an unknown profile at the last layer
// naming it, with a suggestion.
func profileError(err error, name string, layers []*Config) error {
	for i := len(layers) - 1; i >= 0; i-- {
		if layers[i] != nil && layers[i].Profile != "" {
			e := err.(*Error)
			e.File = layers[i].file
			e.Line, e.Column = layers[i].profileAt[0], layers[i].profileAt[1]
			if sg := Suggest(name, Profiles()); sg != "" {
				e.Msg += "; did you mean " + sg + "?"
			}
			break
		}
	}
	return err
}

// resolveLabels resolves what the published table shows and how: the
// statistics, decimals, total labels and the suppression marker.
func resolveLabels(merged *Config, s *Settings) error {
	if merged.Publish != nil {
		s.Publish = *merged.Publish
	}
	if merged.Decimals != nil {
		if *merged.Decimals < 0 || *merged.Decimals > 12 {
			return &Error{Msg: fmt.Sprintf("decimals must be 0..12, got %d", *merged.Decimals), Err: ErrInvalid}
		}
		s.Decimals = *merged.Decimals
	}
	if merged.TotalLabel != nil {
		if len(*merged.TotalLabel) == 0 {
			return &Error{Msg: "total_label must name at least one label", Err: ErrInvalid}
		}
		s.TotalLabel = (*merged.TotalLabel)[0]
		s.TotalLabels = slices.Clone(*merged.TotalLabel)
	} else {
		s.TotalLabels = []string{s.TotalLabel}
	}
	if len(merged.Totals) > 0 {
		s.Totals = map[string][]string{}
		for d, l := range merged.Totals {
			s.Totals[d] = slices.Clone(l)
		}
	}
	if merged.Marker != nil {
		if err := CheckMarker(*merged.Marker); err != nil {
			return &Error{Err: err}
		}
		s.Marker = *merged.Marker
	}
	if merged.Markers != nil {
		s.Markers = merged.Markers
	}
	if strings.TrimSpace(s.TotalLabel) == "" {
		return &Error{Msg: "total_label must not be empty: the margins would read as empty levels", Err: ErrInvalid}
	}
	if s.TotalLabel == s.Marker {
		return &Error{Msg: fmt.Sprintf("total_label %q is also the suppression marker: a margin's label and a suppressed value could not be told apart", s.TotalLabel), Err: ErrInvalid}
	}
	return nil
}

// resolveOutput resolves the output section into out.
func resolveOutput(o *Output, out *OutputSettings) error {
	if o == nil {
		return nil
	}
	*out = OutputSettings{SafeXLSX: deref(o.SafeXLSX), Annotated: deref(o.Annotated), Findings: deref(o.Findings), HTML: deref(o.HTML), ACRO: deref(o.ACRO), Apriori: deref(o.Apriori), Layout: o.Layout}
	if o.Layout != "" && o.Layout != "long" && o.Layout != "wide" {
		return &Error{Msg: fmt.Sprintf("output.layout must be long or wide, got %q", o.Layout), Err: ErrInvalid}
	}
	return nil
}

// resolveSuppression resolves the suppression section.
func resolveSuppression(p *Suppression) (SuppressionSettings, error) {
	s := SuppressionSettings{Method: "lp", Cost: "value", Protection: decimal.FromInt(10), PreviousCost: decimal.Must("0.1")}
	if p != nil {
		if p.PreviousCost != nil {
			if p.PreviousCost.Sign() < 0 || p.PreviousCost.Cmp(decimal.FromInt(1)) > 0 {
				return s, &Error{Msg: fmt.Sprintf("suppression.previous_cost must be between 0 and 1 (a share of the cell's cost), got %s", *p.PreviousCost), Err: ErrInvalid}
			}
			s.PreviousCost = *p.PreviousCost
		}
		s.Secondary = deref(p.Secondary)
		s.Audit = deref(p.Audit) || s.Secondary
		if p.Cost != "" {
			s.Cost = p.Cost
		}
		if p.Method != "" {
			s.Method = p.Method
		}
		if p.MarginWeight != nil {
			if p.MarginWeight.Sign() < 0 {
				return s, &Error{Msg: fmt.Sprintf("suppression.margin_weight must not be negative (0 keeps totals as a last resort), got %s", *p.MarginWeight), Err: ErrInvalid}
			}
			s.MarginWeight = *p.MarginWeight
		}
		if p.Protection != nil {
			if p.Protection.Sign() < 0 {
				return s, &Error{Msg: fmt.Sprintf("suppression.protection must not be negative (a percentage of the cell value), got %s", *p.Protection), Err: ErrInvalid}
			}
			s.Protection = *p.Protection
		}
		s.Hierarchies = p.Hierarchies
		if p.TimeLimit != "" {
			d, err := time.ParseDuration(p.TimeLimit)
			if err != nil || d < 0 {
				return s, &Error{Msg: fmt.Sprintf("suppression.time_limit must be a duration such as 60s, got %q", p.TimeLimit), Err: ErrInvalid}
			}
			s.TimeLimit = d
		}
	}
	switch s.Method {
	case "lp", "hypercube":
	default:
		return s, &Error{Msg: fmt.Sprintf("suppression.method must be lp or hypercube, got %q", s.Method), Err: ErrInvalid}
	}
	switch s.Cost {
	case "value", "count", "unity":
	default:
		return s, &Error{Msg: fmt.Sprintf("suppression.cost must be value, count or unity, got %q", s.Cost), Err: ErrInvalid}
	}
	return s, nil
}

// checkMeasure checks the measure domain, and sets its default step.
func checkMeasure(m *Measure) error {
	if m != nil {
		if m.Step.IsZero() {
			m.Step = decimal.FromInt(1)
		}
		if m.Step.Sign() < 0 || m.Max.Cmp(m.Min) < 0 {
			return &Error{Msg: fmt.Sprintf("measure needs min <= max and step > 0, got min %s, max %s, step %s", m.Min, m.Max, m.Step), Err: ErrInvalid}
		}
		if m.Kind != "" && m.Kind != "scale" && m.Kind != "magnitude" {
			return &Error{Msg: fmt.Sprintf("measure kind must be scale or magnitude, got %q", m.Kind), Err: ErrInvalid}
		}
	}
	return nil
}

// resolveRules lists every rule mentioned, sorted by name, with its
// parameters (every key but enabled) and the file that last set it.
func resolveRules(nodes map[string]yaml.Node, files map[string]string, at map[string][2]int) []RuleSetting {
	var out []RuleSetting
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		node := nodes[n]
		rs := RuleSetting{Name: n, Enabled: true, file: files[n], at: at[n]}
		params := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: node.Line}
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value == "enabled" {
				rs.Enabled = node.Content[i+1].Value == "true"
				continue
			}
			params.Content = append(params.Content, node.Content[i], node.Content[i+1])
		}
		rs.params = params
		out = append(out, rs)
	}
	return out
}

func deref(b *bool) bool { return b != nil && *b }

// overlay sets in c every field that l sets. Rule mappings merge key by key.
func (c *Config) overlay(l *Config, files map[string]string) {
	if l.Profile != "" {
		c.Profile = l.Profile
	}
	if c.ruleAt == nil {
		c.ruleAt = map[string][2]int{}
	}
	if c.Rules == nil {
		c.Rules = map[string]yaml.Node{}
	}
	for name, n := range l.Rules {
		files[name] = l.file
		c.ruleAt[name] = l.ruleAt[name]
		old, ok := c.Rules[name]
		if !ok {
			c.Rules[name] = n
			continue
		}
		m := yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line}
		m.Content = append(m.Content, old.Content...)
	next:
		for i := 0; i+1 < len(n.Content); i += 2 {
			for j := 0; j+1 < len(m.Content); j += 2 {
				if m.Content[j].Value == n.Content[i].Value {
					m.Content[j], m.Content[j+1] = n.Content[i], n.Content[i+1]
					continue next
				}
			}
			m.Content = append(m.Content, n.Content[i], n.Content[i+1])
		}
		c.Rules[name] = m
	}
	set := func(dst, src any) { mergeValue(reflectValue(dst), reflectValue(src)) }
	set(&c.Columns, &l.Columns)
	set(&c.Microdata, &l.Microdata)
	set(&c.Measure, &l.Measure)
	set(&c.Publish, &l.Publish)
	set(&c.Decimals, &l.Decimals)
	set(&c.TotalLabel, &l.TotalLabel)
	set(&c.Totals, &l.Totals)
	set(&c.Marker, &l.Marker)
	set(&c.Markers, &l.Markers)
	set(&c.Input, &l.Input)
	set(&c.Output, &l.Output)
	set(&c.Suppression, &l.Suppression)
	c.Overrides = append(c.Overrides, l.Overrides...)
}

// mergeValue sets dst from src where src is set. Pointers to structs merge
// field by field (so a layer that sets output.findings keeps the profile's
// output.annotated); the Publish list and everything else is replaced.
func mergeValue(dst, src reflect.Value) {
	if src.IsZero() {
		return
	}
	if src.Kind() == reflect.Pointer && src.Elem().Kind() == reflect.Struct && src.Type().Elem().PkgPath() == reflect.TypeFor[Config]().PkgPath() &&
		src.Type() != reflect.TypeFor[*Publish]() && src.Type() != reflect.TypeFor[*Measure]() {
		if dst.IsNil() {
			dst.Set(reflect.New(src.Type().Elem()))
		}
		d, s := dst.Elem(), src.Elem()
		for i := 0; i < s.NumField(); i++ {
			if d.Type().Field(i).IsExported() {
				mergeValue(d.Field(i), s.Field(i))
			}
		}
		return
	}
	dst.Set(src)
}

// Release is a release file: shared settings and the tables to audit.
type Release struct {
	Config `yaml:",inline"`
	// Tables lists the inputs, with per-table overrides.
	Tables []ReleaseTable `yaml:"tables"`
	// Linked: false protects every table on its own; by default the tables
	// that share cells are protected together (docs/suppression.md).
	Linked *bool `yaml:"linked"`
	// Links lists groups of tables of the release (by output name) to
	// protect together although they do not come from the same microdata:
	// aggregate tables from elsewhere whose shared cells are identified by
	// key (docs/suppression.md, "Linked tables").
	Links [][]string `yaml:"links"`

	dir string
}

// ReleaseTable is one input of a release.
type ReleaseTable struct {
	// File is the input path, relative to the release file.
	File string `yaml:"file"`
	// Cells, instead of File, is a cell summary of the table's microdata
	// (docs/cells.md), relative to the release file.
	Cells string `yaml:"cells"`
	// Name overrides the output base name.
	Name   string `yaml:"name"`
	Config `yaml:",inline"`
}

// LoadRelease reads a release file.
func LoadRelease(path string) (*Release, error) {
	data, err := readCapped(path, MaxConfigBytes, "release file")
	if err != nil {
		return nil, err
	}
	r := &Release{dir: filepath.Dir(path)}
	if perr := problemsOf(path, data, reflect.TypeFor[Release]()); perr != nil {
		if err := decodeStrict(data, r); err != nil {
			if pe, ok := perr.(*Error); ok {
				pe.Err = errors.Join(pe.Err, err) // the decoder's error stays reachable
			}
		}
		return nil, perr
	}
	if err := decodeStrict(data, r); err != nil {
		return nil, yamlError(path, locate(data, reflect.TypeOf(r), err))
	}
	r.file = path
	r.anchorFiles(r.dir)
	for i := range r.Tables {
		r.Tables[i].anchorFiles(r.dir)
	}
	if err := r.checkRules(); err != nil {
		return nil, err
	}
	var doc yaml.Node
	var tables *yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) > 0 {
		if err := r.checkValues(doc.Content[0]); err != nil {
			return nil, err
		}
		root := doc.Content[0]
		r.overrideLines(root)
		r.positions(root)
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "tables" && root.Content[i+1].Kind == yaml.SequenceNode {
				tables = root.Content[i+1]
			}
		}
	}
	if len(r.Tables) == 0 {
		return nil, &Error{File: path, Msg: "no tables listed (tables: [{file: ...}])", Err: ErrInvalid}
	}
	for i := range r.Tables {
		t := &r.Tables[i]
		t.file = path
		if (t.File == "") == (t.Cells == "") {
			return nil, &Error{File: path, Msg: fmt.Sprintf("tables[%d] needs either file (microdata or a table) or cells (a cell summary)", i), Err: ErrInvalid}
		}
		if err := t.checkRules(); err != nil {
			return nil, err
		}
		if tables != nil && i < len(tables.Content) {
			if err := t.checkValues(tables.Content[i]); err != nil {
				return nil, err
			}
			t.overrideLines(tables.Content[i])
			t.positions(tables.Content[i])
		}
		if err := t.checkOverrides(); err != nil {
			return nil, err
		}
	}
	if err := r.checkOverrides(); err != nil {
		return nil, err
	}
	for i, g := range r.Links {
		if len(g) < 2 {
			return nil, &Error{File: path, Msg: fmt.Sprintf("links[%d] names %d table(s): a link group needs two or more (links: [[tableA, tableB]])", i, len(g)), Err: ErrInvalid}
		}
	}
	return r, nil
}

// Path returns a table's input path resolved against the release file.
// (its cells file when it gives one).
func (r *Release) Path(t ReleaseTable) string {
	f := t.File
	if t.Cells != "" {
		f = t.Cells
	}
	if filepath.IsAbs(f) {
		return f
	}
	return filepath.Join(r.dir, f)
}

// Base returns the release-level configuration layer.
func (r *Release) Base() *Config { return &r.Config }

// Layer returns a table's own configuration layer.
func (t *ReleaseTable) Layer() *Config { return &t.Config }
