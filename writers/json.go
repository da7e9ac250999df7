package writers

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/sdcaudit/sdcaudit/audit"
)

// Report writes NAME.report.json, the checker's report: every cell with its
// status, the findings of every rule with the figures behind them, and the
// table summary. It may contain confidential numbers.
type Report struct{}

// File implements TableWriter.
func (Report) File(t *audit.Table) string { return t.Name + ".report.json" }

// appendCell writes one cell as compact JSON: key (dimensions in table
// order), row, status, n, total, findings, notes.
func appendCell(b []byte, t *audit.Table, c *audit.Cell) ([]byte, error) {
	b = append(b, `{"key":{`...)
	for i, d := range t.Dims {
		if i > 0 {
			b = append(b, ',')
		}
		b = audit.AppendJSONString(b, d)
		b = append(b, ':')
		b = audit.AppendJSONString(b, c.Key[i])
	}
	b = append(b, '}')
	if c.Row > 0 {
		b = append(b, `,"row":`...)
		b = strconv.AppendInt(b, int64(c.Row), 10)
	}
	b = append(b, `,"status":`...)
	b = audit.AppendJSONString(b, string(c.Status))
	if c.HasN {
		b = append(b, `,"n":`...)
		b = strconv.AppendInt(b, c.N, 10)
	}
	if c.HasTotal {
		b = append(b, `,"total":`...)
		b = c.Total.Append(b)
	}
	b = append(b, `,"findings":[`...)
	for i, f := range c.Findings {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = f.AppendJSON(b); err != nil {
			return nil, err
		}
	}
	b = append(b, ']')
	if len(c.Notes) > 0 {
		b = append(b, `,"notes":[`...)
		for i, n := range c.Notes {
			if i > 0 {
				b = append(b, ',')
			}
			b = audit.AppendJSONString(b, n)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

type reportHead struct {
	Table    string           `json:"table"`
	Source   string           `json:"source"`
	Mode     audit.Mode       `json:"mode"`
	Dims     []string         `json:"dims"`
	Value    string           `json:"value,omitempty"`
	Publish  []string         `json:"publish,omitempty"`
	Warnings []string         `json:"warnings,omitempty"`
	Input    *audit.InputInfo `json:"input,omitempty"`
	Link     *audit.Link      `json:"link,omitempty"`
	// Overrides are the checker's a-priori decisions, with reason and author.
	Overrides []audit.Override `json:"overrides,omitempty"`
}

// Write writes the report; see WriteContext.
func (r Report) Write(w io.Writer, t *audit.Table) error {
	return r.WriteContext(context.Background(), w, t)
}

// WriteContext implements TableWriter. The document is one JSON object;
// each cell is written compactly on its own line so that large reports
// stay fast to write and easy to grep.
func (Report) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cc := canceller{ctx: ctx}
	bw := bufio.NewWriterSize(w, 1<<16)
	head, err := json.Marshal(reportHead{Table: t.Name, Source: t.Source, Mode: t.Mode, Dims: t.Dims, Value: t.Value, Publish: t.Publish, Warnings: t.Warnings, Input: t.Input, Link: t.Link, Overrides: t.Overrides})
	if err != nil {
		return err
	}
	bw.Write(head[:len(head)-1]) // without the closing brace
	bw.WriteString(",\n\"cells\": [")
	var buf []byte
	for i, c := range t.Cells {
		if err := cc.next(); err != nil {
			return err
		}
		var err error
		if buf, err = appendCell(buf[:0], t, c); err != nil {
			return fmt.Errorf("cell %s: %w", t.KeyString(c.Key), err)
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n  ")
		bw.Write(buf)
	}
	bw.WriteString("\n],\n\"summary\": ")
	sum, err := json.Marshal(t.Summarize())
	if err != nil {
		return err
	}
	bw.Write(sum)
	if t.Audit != nil {
		a, err := json.Marshal(t.Audit)
		if err != nil {
			return err
		}
		bw.WriteString(",\n\"audit\": ")
		bw.Write(a)
	}
	if err := writeTrail(bw, t.Run); err != nil {
		return err
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

func encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// TableSummary is one table's line in summary.json. It holds no
// confidential values.
type TableSummary struct {
	Table   string        `json:"table"`
	Source  string        `json:"source"`
	Mode    audit.Mode    `json:"mode"`
	Outputs []string      `json:"outputs"`
	Summary audit.Summary `json:"summary"`
}

// RunSummary is the content of summary.json.
type RunSummary struct {
	Version string         `json:"version"`
	Tables  []TableSummary `json:"tables"`
	Totals  audit.Summary  `json:"totals"`
	// NeedsPerson is true when a cell failed a rule or needs review: the
	// release must stop (exit code 1).
	NeedsPerson bool `json:"needs_person"`
	// Run is the run's audit trail (see audit.Trail).
	Run *audit.Trail `json:"run,omitempty"`
	// LinkGroups lists the groups of tables that share cells (issue 17).
	LinkGroups []LinkGroup `json:"link_groups,omitempty"`
}

// LinkGroup is one group of tables that share cells, in summary.json.
type LinkGroup struct {
	Tables []string `json:"tables"`
	Linked bool     `json:"linked"`
	Exact  bool     `json:"exact"`
	Reason string   `json:"reason,omitempty"`
}

// Add appends a table and updates the totals.
func (r *RunSummary) Add(ts TableSummary) {
	r.Tables = append(r.Tables, ts)
	s := ts.Summary
	if r.Totals.ByRule == nil {
		r.Totals.ByRule = map[string]int{}
	}
	r.Totals.Cells += s.Cells
	r.Totals.OK += s.OK
	r.Totals.Primary += s.Primary
	r.Totals.Secondary += s.Secondary
	r.Totals.Review += s.Review
	for k, v := range s.ByRule {
		r.Totals.ByRule[k] += v
	}
	r.NeedsPerson = r.NeedsPerson || s.NeedsPerson()
}

// WriteSummary writes summary.json.
func WriteSummary(w io.Writer, r *RunSummary) error {
	if r.Totals.ByRule == nil {
		r.Totals.ByRule = map[string]int{}
	}
	if r.Tables == nil {
		r.Tables = []TableSummary{}
	}
	return encode(w, r)
}
