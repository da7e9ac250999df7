package pipeline

import (
	"fmt"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/readers"
)

// A-priori information about cells (configs.AprioriCell) comes from a
// tau-argus a-priori file (.hst: --apriori, apriori:) and from the cost,
// status and protection-level columns of an aggregate table (columns:
// {cost, status, lower_pl, upper_pl}; a tau-argus .tab's COSTVAR, STATUS,
// LOWERPL and UPPERPL). It is applied after the rules have decided every
// cell and the checker's overrides:
//
//   - status u (unsafe): the cell becomes primary (rule "apriori");
//   - status p (protected): the cell is kept out of secondary suppression;
//   - status e (empty) keeps the cell out of secondary suppression, as
//     tau-argus does;
//   - status s (safe) changes nothing: a cell that fails a rule stays
//     primary (only an override, with a reason and a name, makes it ok);
//   - a cost replaces the cell's cost in secondary suppression;
//   - protection levels replace the cell's levels in secondary
//     suppression and the interval audit.
//
// Every cell whose final status differs from its a-priori status is
// listed in the report ("apriori_differences") with why.

// aprioriRule is the rule name of the finding an a-priori status adds.
const aprioriRule = "apriori"

// aprioriResult is what the a-priori cells of a table give secondary
// suppression: costs, protection levels and protected cells.
type aprioriResult struct {
	keep  map[*audit.Cell]bool
	cost  map[*audit.Cell]float64
	level map[*audit.Cell][2]float64 // upper, lower
	given map[*audit.Cell]configs.AprioriCell
}

// tableHints are what a table's a-priori cells and the previous release
// give its secondary suppression.
type tableHints struct {
	ap   *aprioriResult
	prev *previousResult
	// auditTuning is Options.AuditTuning (nil: the interval audit's
	// defaults)
	auditTuning *intervals.Tuning
	// jointWork is Options.JointWork (0: the joint search's default)
	jointWork float64
}

// applyApriori applies the a-priori cells to a decided table; a cell
// naming no cell of the table, or giving the wrong number of codes, is an
// error naming its source.
func applyApriori(t *audit.Table, cells []configs.AprioriCell) (*aprioriResult, error) {
	if len(cells) == 0 {
		return nil, nil
	}
	byKey := make(map[string]*audit.Cell, len(t.Cells))
	for _, c := range t.Cells {
		byKey[strings.Join(c.Key, "\x00")] = c
	}
	r := &aprioriResult{keep: map[*audit.Cell]bool{}, cost: map[*audit.Cell]float64{}, level: map[*audit.Cell][2]float64{}, given: map[*audit.Cell]configs.AprioriCell{}}
	var errs []string
	var order []*audit.Cell
	key := make([]string, len(t.Dims))
	for _, a := range cells {
		if len(a.Codes) != len(t.Dims) {
			errs = append(errs, fmt.Sprintf("%s: %d codes, but table %s has %d dimensions (%s)", a.Source, len(a.Codes), t.Name, len(t.Dims), strings.Join(t.Dims, ", ")))
			continue
		}
		for i, code := range a.Codes {
			code = strings.TrimSpace(code)
			if code == "" {
				code = t.TotalLabel
			}
			key[i] = code
		}
		c := byKey[strings.Join(key, "\x00")]
		if c == nil {
			errs = append(errs, fmt.Sprintf("%s: cell %s is not a cell of table %s", a.Source, t.KeyString(key), t.Name))
			continue
		}
		if a.Cost != nil {
			r.cost[c] = a.Cost.Float64()
		}
		if a.Upper != nil || a.Lower != nil {
			lv := r.level[c]
			if a.Upper != nil {
				lv[0] = a.Upper.Float64()
			}
			if a.Lower != nil {
				lv[1] = a.Lower.Float64()
			}
			r.level[c] = lv
		}
		if a.Status != "" {
			if _, had := r.given[c]; !had {
				order = append(order, c)
			}
			r.given[c] = a // a later source (the a-priori file after the table's status column) wins
		}
	}
	for _, c := range order {
		a := r.given[c]
		switch a.Status {
		case configs.AprioriUnsafe:
			if statusOf(c) != audit.StatusPrimary {
				c.Status = audit.StatusPrimary
			}
			c.Findings = append(c.Findings, audit.Said(aprioriRule, audit.Fail, "unsafe a priori ("+a.Source+")", []audit.Figure{audit.TextFig("status", "u"), audit.TextFig("source", a.Source)}))
		case configs.AprioriEmpty:
			// tau-argus never chooses an empty cell as a complement
			r.keep[c] = true
		case configs.AprioriProtected:
			r.keep[c] = true
			c.Findings = append(c.Findings, audit.Said(aprioriRule, audit.Pass, "protected a priori from secondary suppression ("+a.Source+")", []audit.Figure{audit.TextFig("status", "p"), audit.TextFig("source", a.Source)}))
		}
	}
	if len(errs) > 0 {
		if len(errs) > 20 {
			errs = append(errs[:20], fmt.Sprintf("... and %d more", len(errs)-20))
		}
		return nil, &configs.Error{Msg: strings.Join(errs, "\n"), Err: configs.ErrInvalid}
	}
	return r, nil
}

// withApriori sets the a-priori costs and protection levels and the
// previous release's costs of a table (h, nil for none) on the options of
// its secondary suppression and audit.
func withApriori(h *tableHints, opt *suppress.Options) {
	if h == nil {
		return
	}
	defer withPrevious(opt, h.prev)
	r := h.ap
	if r == nil {
		return
	}
	if len(r.cost) > 0 {
		prev := opt.CostOf
		opt.CostOf = func(c *audit.Cell) (float64, bool) {
			if v, ok := r.cost[c]; ok {
				return v, true
			}
			if prev != nil {
				return prev(c)
			}
			return 0, false
		}
	}
	if len(r.level) > 0 {
		opt.Protection.CellLevels = func(c *audit.Cell) (float64, float64, bool) {
			lv, ok := r.level[c]
			return lv[0], lv[1], ok
		}
	}
}

// aprioriDifferences lists the cells whose final status differs from
// their a-priori status, with why.
func aprioriDifferences(t *audit.Table, r *aprioriResult) {
	if r == nil || len(r.given) == 0 {
		return
	}
	for _, c := range t.Cells {
		a, ok := r.given[c]
		if !ok {
			continue
		}
		st := statusOf(c)
		withheld := st != audit.StatusOK
		var given, why string
		switch a.Status {
		case configs.AprioriUnsafe:
			given = "unsafe"
			if failing(c, aprioriRule) == "" {
				why = "the input marks it unsafe; every rule sdcaudit applied passes it; suppressed (primary) as the input says"
			}
		case configs.AprioriSafe, configs.AprioriEmpty, configs.AprioriProtected:
			given = map[string]string{configs.AprioriSafe: "safe", configs.AprioriEmpty: "empty", configs.AprioriProtected: "protected"}[a.Status]
			if !withheld {
				continue
			}
			switch st {
			case audit.StatusPrimary:
				if f := failing(c, aprioriRule); f != "" {
					why = "the input marks it " + given + ", but " + f + "; a cell failing a rule stays suppressed unless an override (with reason and name) marks it safe"
				} else {
					why = "the input marks it " + given + ", but a checker's override suppresses it"
				}
			case audit.StatusSecondary:
				why = "the input marks it " + given + "; sdcaudit's secondary suppression chose it to protect a primary cell (the input's statuses come before secondary suppression)"
			case audit.StatusReview:
				why = "the input marks it " + given + ", but sdcaudit could not assess it: " + failing(c, "")
			}
		}
		if why == "" {
			continue
		}
		t.AprioriDiffs = append(t.AprioriDiffs, audit.StatusChange{Key: slices.Clone(c.Key), Cell: t.KeyString(c.Key), Given: given, Status: st, Why: why, Source: a.Source})
	}
}

// failing names the rules (other than skip) that fail or send cell c to
// review, with their messages.
func failing(c *audit.Cell, skip string) string {
	var parts []string
	for _, f := range c.EachFinding() {
		if f.Rule == skip || f.Rule == overrideRule || f.Rule == "secondary" || f.Rule == "interval_audit" {
			continue
		}
		if f.Outcome == audit.Fail || f.Outcome == audit.Review {
			parts = append(parts, f.Rule+" "+map[audit.Outcome]string{audit.Fail: "fails", audit.Review: "needs review"}[f.Outcome]+" ("+f.Message()+")")
		}
	}
	return strings.Join(parts, "; ")
}

// sideCapture passes the rows of an aggregate table through and keeps its
// cost, status and protection-level columns as a-priori cells.
type sideCapture struct {
	readers.Source
	file  string
	dims  []int
	cols  [4]int // cost, status, lower, upper; -1 when not given
	names [4]string
	codes map[string]string // status text (upper case) -> s, u, p, e
	num   readers.NumberFormat
	cells []configs.AprioriCell
}

// Unwrap returns the source underneath.
func (s *sideCapture) Unwrap() readers.Source { return s.Source }

// captureSide wraps src when the settings name cost, status or
// protection-level columns; nil otherwise. A column the header lacks is an
// error naming it.
func captureSide(src readers.Source, s *configs.Settings) (*sideCapture, error) {
	c := s.Columns
	if c == nil || c.Cost == "" && c.Status == "" && c.LowerPL == "" && c.UpperPL == "" {
		return nil, nil
	}
	file, _ := src.Where()
	header := src.Header()
	idx := map[string]int{}
	for i, h := range header {
		idx[h] = i
	}
	sc := &sideCapture{Source: src, file: file, names: [4]string{c.Cost, c.Status, c.LowerPL, c.UpperPL},
		codes: map[string]string{"S": "s", "U": "u", "P": "p", "E": "e"}}
	for k, name := range sc.names {
		sc.cols[k] = -1
		if name == "" {
			continue
		}
		i, ok := idx[name]
		if !ok {
			return nil, cells.MissingColumn(file, name, []string{"cost", "status", "lower_pl", "upper_pl"}[k], header)
		}
		sc.cols[k] = i
	}
	for _, d := range c.Dims {
		i, ok := idx[d]
		if !ok {
			return nil, cells.MissingColumn(file, d, "dimension", header)
		}
		sc.dims = append(sc.dims, i)
	}
	if ts, ok := readers.As[readers.TauArgusSource](src); ok {
		m := ts.Metadata()
		sc.codes = map[string]string{strings.ToUpper(m.Safe): "s", strings.ToUpper(m.Unsafe): "u", strings.ToUpper(m.Protect): "p", strings.ToUpper(m.Empty): "e"}
	}
	if d, ok := readers.As[readers.Describer](src); ok && d.Info().Decimal == "," {
		sc.num.Comma = true
	}
	return sc, nil
}

func (s *sideCapture) Next() (*readers.Batch, error) {
	b, err := s.Source.Next()
	if err != nil {
		return b, err
	}
	for r, row := range b.Rows {
		line := b.Lines[r]
		a := configs.AprioriCell{Codes: make([]string, len(s.dims)), Source: fmt.Sprintf("%s row %d", baseName(s.file), line)}
		for i, d := range s.dims {
			a.Codes[i] = strings.TrimSpace(row[d])
		}
		set := false
		for k, col := range s.cols {
			if col < 0 {
				continue
			}
			text := strings.TrimSpace(row[col])
			if text == "" {
				continue
			}
			if k == 1 {
				st, ok := s.codes[strings.ToUpper(text)]
				if !ok {
					return nil, &readers.Error{File: s.file, Row: line, Column: s.names[k], Value: text, Err: fmt.Errorf("not a status: want S (safe), U (unsafe), P (protected) or E (empty)")}
				}
				a.Status, set = st, true
				continue
			}
			d, err := s.num.Parse(text)
			if err != nil {
				return nil, &readers.Error{File: s.file, Row: line, Column: s.names[k], Value: text, Err: err}
			}
			if d.Sign() < 0 {
				return nil, &readers.Error{File: s.file, Row: line, Column: s.names[k], Value: text, Err: fmt.Errorf("a negative %s", []string{"cost", "", "protection level", "protection level"}[k])}
			}
			p := new(decimal.Dec)
			*p = d
			switch k {
			case 0:
				a.Cost = p
			case 2:
				a.Lower = p
			case 3:
				a.Upper = p
			}
			set = true
		}
		if set {
			s.cells = append(s.cells, a)
		}
	}
	return b, nil
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}
