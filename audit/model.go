package audit

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// Status is the verdict for one cell after all rules and table decisions.
type Status string

// The cell statuses, in increasing order of severity for reporting.
const (
	StatusOK        Status = "ok"        // publishable as is
	StatusReview    Status = "review"    // could not be assessed; a person must look
	StatusSecondary Status = "secondary" // suppressed to protect a primary cell
	StatusPrimary   Status = "primary"   // fails a sensitivity rule; suppressed
)

// The statuses that are not a cell's verdict.
const (
	// StatusUnset is the status of a cell no decision has reached yet (the
	// zero Status). Outputs read it as ok: see Effective.
	StatusUnset Status = ""
	// StatusMarked is the status of a suppressed cell of a received table
	// in the interval audit (Interval.Status): suppressed by the marker
	// the table carried, not by a decision of sdcaudit.
	StatusMarked Status = "marked"
)

// Effective is the status outputs show: StatusOK for StatusUnset, the
// status itself otherwise.
func (s Status) Effective() Status {
	if s == StatusUnset {
		return StatusOK
	}
	return s
}

// Outcome is the result of one rule on one cell. It is a small number so
// that a finding, of which a table holds one per rule and cell, stays
// small; String gives its name (pass, fail, review, not_applicable),
// which reports and JSON show. The zero Outcome is no outcome ("").
type Outcome uint8

// The outcomes of a rule.
const (
	Pass          Outcome = iota + 1 // "pass": the rule is satisfied
	Fail                             // "fail": the cell is sensitive under the rule
	Review                           // "review": the rule could not decide; a person must look
	NotApplicable                    // "not_applicable": the input lacks what the rule needs, or the rule does not apply
)

var outcomeNames = [...]string{Pass: "pass", Fail: "fail", Review: "review", NotApplicable: "not_applicable"}

// String is the outcome's name: pass, fail, review or not_applicable ("" for
// the zero Outcome).
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// MarshalText gives the outcome's name, so that JSON shows it as before.
func (o Outcome) MarshalText() ([]byte, error) {
	if int(o) >= len(outcomeNames) {
		return nil, fmt.Errorf("invalid outcome %d", o)
	}
	return []byte(outcomeNames[o]), nil
}

// UnmarshalText reads an outcome's name.
func (o *Outcome) UnmarshalText(b []byte) error {
	for i, n := range outcomeNames {
		if n == string(b) {
			*o = Outcome(i)
			return nil
		}
	}
	return fmt.Errorf("unknown outcome %q", b)
}

// Finding is what one rule says about one cell: the outcome, and the
// facts behind it, which give the figures and a sentence a person
// understands. A finding carries its message one way: its Facts, asked
// only when the finding is written, so that rules checking millions of
// cells need neither build figures nor format text. Figures may hold
// confidential numbers and are only written to the checker's outputs.
type Finding struct {
	Rule    string
	Outcome Outcome
	// Facts give the finding's figures and message (nil: none). Rules
	// deciding millions of cells set a pointer they made once, so that a
	// finding costs no allocation; a finding whose sentence is known when
	// it is made holds a *Statement.
	Facts Facts
	// Cell is the cell Facts read. It must not change (its total, count,
	// largest contributions) after the rule checked it. Facts that hold
	// their figures and message (Statement) do not read it.
	Cell *Cell
}

// Facts are the figures behind a finding and its sentence, computed from
// the cell when the finding is written. A rule's facts recompute, exactly,
// the verdict the rule gave. Figures are in the rule's order; writers list
// them by name (report.json keeps its sorted keys). The package report has
// optional append forms of both methods (FiguresAppender,
// MessageAppender).
type Facts interface {
	Figures(c *Cell) []Figure
	Message(c *Cell) string
}

// Statement are facts fixed when the finding was made: its sentence and
// figures.
type Statement struct {
	Text string
	Figs []Figure
}

// Figures implements Facts.
func (s *Statement) Figures(*Cell) []Figure { return s.Figs }

// Message implements Facts.
func (s *Statement) Message(*Cell) string { return s.Text }

// Said is a finding whose message and figures are known when it is made.
func Said(rule string, o Outcome, text string, figs []Figure) Finding {
	return Finding{Rule: rule, Outcome: o, Facts: &Statement{Text: text, Figs: figs}}
}

// Message returns the finding's sentence ("" without facts).
func (f Finding) Message() string {
	if f.Facts == nil {
		return ""
	}
	return f.Facts.Message(f.Cell)
}

// FigureList returns the finding's figures (nil without facts).
func (f Finding) FigureList() []Figure {
	if f.Facts == nil {
		return nil
	}
	return f.Facts.Figures(f.Cell)
}

// Figure returns the figure named name.
func (f Finding) Figure(name string) (Figure, bool) { return lookup(f.FigureList(), name) }

// Mode says how a table's cells were obtained.
type Mode string

// The table modes.
const (
	Microdata Mode = "microdata" // grouped from record-level data by the pipeline
	Aggregate Mode = "aggregate" // read from an already aggregated table
)

// Domain is the grid of values a measured variable can take: Min, Min+Step,
// ..., Max. It is used by the mean/SD reconstruction check.
type Domain struct {
	Min, Max, Step decimal.Dec
	// Magnitude says the variable is an amount (measure kind magnitude),
	// not a rating scale.
	Magnitude bool
}

// Stat is one published statistic of a cell as it appears (or would appear)
// in the released table. Text keeps the published digits, which matter for
// the reconstruction attacks; Missing marks an empty or suppressed entry.
type Stat struct {
	Text    string
	Value   decimal.Dec
	Missing bool
	Marker  bool // the input already carried a suppression marker here
}

// Cell is one cell of a table and everything known about it.
//
// Key holds one value per table dimension; a margin carries the table's
// total label in the aggregated dimensions. Contributions are known only in
// microdata mode or when an aggregate table gives top columns; HasX fields
// tell which figures are present so that rules never guess.
type Cell struct {
	Key []string

	// Row is the 1-based source row of an aggregate cell (0 in microdata mode).
	Row int

	N int64 // distinct contributors (holdings when configured); see HasN

	Rows     int64 // input records that fell into the cell
	Missing  int64 // records whose value was missing
	Negative int64 // contributors whose value is negative

	Total decimal.Dec // X, the sum of contributions; see HasTotal

	// Top holds the largest contributions in descending order (x1, x2, ...),
	// as many as the rules need or the input gives; see AllTop.
	Top []decimal.Dec

	// AbsTotal and AbsTop are the total and the largest contributions by
	// absolute value, kept when a rule asks for them (rules.Needs.Absolute)
	// to apply magnitude rules to absolute values (ABS practice); see HasAbs.
	AbsTotal decimal.Dec
	AbsTop   []decimal.Dec

	Min, Max decimal.Dec // see HasRange

	SumSq decimal.Dec // sum of squared contributions, exact; see HasSumSq

	// Pow holds power sums for the moment attack: Pow[p-1] = Σ (x/PowScale)^p
	// for p = 1..len(Pow), scaled by PowScale (the largest |x|) so that high
	// powers do not overflow.
	Pow      []float64
	PowScale float64

	// Hist counts the contributions on each grid point of the measure domain
	// when one is configured and small enough (index = (x-min)/step).
	Hist []int64

	// Stats are the statistics the released table shows for this cell, by
	// role name: count, total, mean, sd, variance, median, min, max,
	// skewness, kurtosis, and m1, m2, ... for raw moment means (S_p / n).
	Stats Stats

	Status   Status
	Findings []Finding
	// Notes are table-level explanations attached to the cell, such as the
	// primary cell that a secondary suppression protects.
	Notes []string

	// The flags saying which figures are present, kept together so that
	// they take one word of the cell, not one each.
	HasN     bool // N is known
	HasTotal bool // Total is known
	AllTop   bool // Top holds every contribution of the cell
	HasAbs   bool // AbsTotal and AbsTop are kept
	HasRange bool // Min and Max are known
	HasSumSq bool // SumSq is known

	// ruled holds the findings of the rules run on every cell, in
	// columns, and ruledAt is the cell's row there (see RuleFindings).
	ruledAt uint16
	ruled   *RuleFindings
}

// ColumnLabel is the header shown for Columns[i].
func (t *Table) ColumnLabel(i int) string {
	if i < len(t.ColumnLabels) && t.ColumnLabels[i] != "" {
		return t.ColumnLabels[i]
	}
	return t.Columns[i]
}

// IsMargin reports whether any dimension of the cell is the total label.
func (c *Cell) IsMargin(total string) bool {
	for _, k := range c.Key {
		if k == total {
			return true
		}
	}
	return false
}

// TopN returns the (i+1)-th largest contribution (TopN(0) is x1), with
// zero when the cell has fewer known contributions.
func (c *Cell) TopN(i int) decimal.Dec {
	if i < len(c.Top) {
		return c.Top[i]
	}
	return decimal.Dec{}
}

// Table is one audited table.
type Table struct {
	Name   string // output base name
	Source string // input path (and sheet), for messages
	Mode   Mode
	Dims   []string
	// TotalLabel is the dimension value used for margins ("Total").
	TotalLabel string
	// Hierarchies gives, per dimension, the parent of each code that is
	// not a top-level code, as in SuppressOptions.Hierarchies: the margin
	// relations the table declares beyond the total label.
	Hierarchies map[string]map[string]string
	// Structure is the table's structure found from its configuration,
	// labels and numbers (package audit/structure): its margins, nested
	// dimensions and column roles. Nil for tables built from records,
	// whose margins are TotalLabel and Hierarchies.
	Structure *Structure
	// Value is the value column in microdata mode ("" for a frequency table).
	Value string
	// Publish lists the statistics the released table shows per cell.
	Publish []string
	Measure *Domain
	// Decimals is the number of decimal places of derived statistics (mean,
	// SD, ...) in the released table; in microdata mode the published texts
	// in Cell.Stats are rounded half-up to it.
	Decimals int
	// MomentOrder is the highest raw moment order the table releases (0 when
	// none); variance counts as 2, skewness 3, kurtosis 4.
	MomentOrder int
	Cells       []*Cell
	// Columns are the output columns of the publishable table, by role.
	Columns []string
	// ColumnLabels are the headers shown for Columns in outputs: the input
	// column names of an aggregate table; nil means the role names.
	ColumnLabels []string
	// Warnings are table-level remarks for the checker's report.
	Warnings []string
	// UnusedColumns are the input columns of a table built from records
	// that it does not read: neither a dimension, the value, the holding
	// nor a hierarchy's parent column. Names only, in input order.
	UnusedColumns []string
	// Input says how a delimited text input was decoded (nil otherwise).
	Input *InputInfo
	// Audit is the interval audit of the table's suppression pattern, when
	// it was run.
	Audit *Intervals
	// Run is the audit trail of the table (settings and its input), when
	// the pipeline recorded one.
	Run *Trail
	// Overrides are the checker's a-priori decisions applied to cells.
	Overrides []Override
	// AprioriDiffs lists the cells whose final status differs from the
	// a-priori status an input gave (a tau-argus status column or .hst
	// file), with why.
	AprioriDiffs []StatusChange
	// Changes lists the cells whose status changed since the previous
	// release (--previous), with why.
	Changes []StatusChange
	// Link, when set, says which other tables of the run share cells with
	// this one and whether they were protected together (issue 17).
	Link *Link
}

// StatusChange is a cell whose status differs from the one given
// elsewhere: an a-priori status (Given: unsafe, safe, protected, empty) or
// the previous release's status.
type StatusChange struct {
	Key    []string `json:"key"`
	Cell   string   `json:"cell"`
	Given  string   `json:"given"`
	Status Status   `json:"status"`
	Why    string   `json:"why"`
	Source string   `json:"source,omitempty"`
}

// Link records a table's link group in its report.
type Link struct {
	// Linked is true when the tables were protected together.
	Linked bool `json:"linked"`
	// Tables are the other tables of the group.
	Tables []string `json:"tables"`
	// Exact is false when the group could not be protected jointly
	// (Reason says why; the affected cells went to review).
	Exact bool `json:"exact"`
	// Reason explains how the group was formed or why it is not exact.
	Reason string `json:"reason,omitempty"`
}

// Summary counts the outcome of a table.
type Summary struct {
	Cells     int            `json:"cells"`
	OK        int            `json:"ok"`
	Primary   int            `json:"primary"`
	Secondary int            `json:"secondary"`
	Review    int            `json:"review"`
	ByRule    map[string]int `json:"by_rule"`
}

// NeedsPerson reports whether the table blocks a release: some cell failed
// a rule or needs review.
func (s Summary) NeedsPerson() bool { return s.Primary+s.Secondary+s.Review > 0 }

// Summarize counts statuses, and per rule the cells it failed or sent to review.
func (t *Table) Summarize() Summary {
	s := Summary{Cells: len(t.Cells), ByRule: map[string]int{}}
	for _, c := range t.Cells {
		switch c.Status {
		case StatusPrimary:
			s.Primary++
		case StatusSecondary:
			s.Secondary++
		case StatusReview:
			s.Review++
		default:
			s.OK++
		}
		c.eachOutcome(func(o Outcome, rule string) {
			if o == Fail || o == Review {
				s.ByRule[rule]++
			}
		})
	}
	return s
}

// Decide sets each cell's status from its findings: any failed rule makes
// it primary, otherwise any review makes it review, otherwise ok. Secondary
// suppression runs afterwards and only touches ok cells.
func Decide(c *Cell) {
	st := StatusOK
	c.eachOutcome(func(o Outcome, _ string) {
		switch o {
		case Fail:
			st = Stricter(st, StatusPrimary)
		case Review:
			st = Stricter(st, StatusReview)
		}
	})
	c.Status = st
}

// Stricter is the stricter of two statuses a cell's findings give:
// primary over review over ok (one cell's copies in linked tables get
// the strictest of their statuses).
func Stricter(a, b Status) Status {
	rank := func(s Status) int {
		switch s {
		case StatusPrimary:
			return 2
		case StatusReview:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// SortCells orders cells by key, dimension by dimension, with the total
// label after every other value, so that reports are deterministic.
func (t *Table) SortCells() {
	total := t.TotalLabel
	sort.SliceStable(t.Cells, func(i, j int) bool {
		return KeyLess(t.Cells[i].Key, t.Cells[j].Key, total)
	})
}

// KeyLess orders two keys dimension by dimension, margins last.
func KeyLess(a, b []string, total string) bool {
	for d := range a {
		if a[d] == b[d] {
			continue
		}
		if a[d] == total {
			return false
		}
		if b[d] == total {
			return true
		}
		return a[d] < b[d]
	}
	return false
}

// KeyString joins a key for messages: "region=A, gender=female".
func (t *Table) KeyString(key []string) string {
	var b strings.Builder
	for i, d := range t.Dims {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d)
		b.WriteByte('=')
		b.WriteString(key[i])
	}
	return b.String()
}
