package writers

// The summary page as it was rendered before its cell and crosstab rows
// were written without html/template (kept verbatim as the oracle of
// TestSummaryHTMLMatchesTemplate).

import (
	"context"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
)

type oldHTMLCell struct {
	Class  string
	Status string
	Key    []string
	Values []string
	Rules  string
}

type oldHTMLTable struct {
	Name, Source, Mode string
	Summary            audit.Summary
	Needs              bool
	Dims, Columns      []string
	Cells              []oldHTMLCell
	Hidden             int
	Overrides          []audit.Override
	Structure          []string
	Rules              []htmlBar
	Crosstabs          []oldHTMLCrosstab
}

// oldHTMLCrosstab is one published statistic of a table in crosstab form:
// the last dimension across, the others down, margins last.
type oldHTMLCrosstab struct {
	ID, Title          string
	Down               []string
	Across             []string
	Rows               []oldHTMLXRow
	MoreRows, MoreCols int
	AllRows, AllCols   int
}

type oldHTMLXRow struct {
	Labels []string
	Cells  []oldHTMLXCell
}

// oldHTMLXCell is a body cell: its status class and what is shown (the
// published value of an ok cell, else the status; empty where the table
// has no such cell).
type oldHTMLXCell struct {
	Class, Value string
}

type oldHTMLPage struct {
	Version string
	Totals  audit.Summary
	Needs   bool
	Status  htmlChart
	Rules   htmlChart
	Tables  []oldHTMLTable
	Legend  []htmlBar
	Palette map[string]string
	Trail   template.HTML
}

// WriteRunContext writes the page for a run; it returns ctx.Err() soon
// after ctx is cancelled.
func (h SummaryHTML) oldWriteRunContext(ctx context.Context, w io.Writer, r *RunSummary, tables []*audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cc := canceller{ctx: ctx}
	limit := h.MaxCells
	if limit <= 0 {
		limit = 5000
	}
	p := oldHTMLPage{Version: r.Version, Totals: r.Totals, Needs: r.NeedsPerson, Palette: map[string]string{}}
	for _, st := range statusOrder {
		p.Palette[string(st)] = "#" + Palette[st]
		p.Legend = append(p.Legend, htmlBar{Label: string(st), Fill: "#" + Palette[st], Text: statusMeaning[st]})
	}
	p.Status = statusChart(r.Totals)
	var err error
	if p.Trail, err = trailHTML(r.Run); err != nil {
		return err
	}
	rb, rh := ruleBars(r.Totals.ByRule)
	p.Rules = htmlChart{Title: "Cells flagged by rule", Height: rh, Bars: rb}
	for _, t := range tables {
		if t == nil {
			continue
		}
		s := t.Summarize()
		ht := oldHTMLTable{Name: t.Name, Source: t.Source, Mode: string(t.Mode), Summary: s, Needs: s.NeedsPerson(), Dims: t.Dims, Overrides: t.Overrides}
		for i := range t.Columns {
			ht.Columns = append(ht.Columns, t.ColumnLabel(i))
		}
		ht.Rules, _ = ruleBars(s.ByRule)
		dps := columnDecimals(t)
		if ht.Crosstabs, err = h.oldCrosstabs(&cc, t, dps); err != nil {
			return err
		}
		// flagged cells first (in table order), then the ok cells
		order := make([]*audit.Cell, 0, len(t.Cells))
		for _, c := range t.Cells {
			if statusOf(c) != audit.StatusOK {
				order = append(order, c)
			}
		}
		for _, c := range t.Cells {
			if statusOf(c) == audit.StatusOK {
				order = append(order, c)
			}
		}
		for i, c := range order {
			if err := cc.next(); err != nil {
				return err
			}
			if i >= limit {
				ht.Hidden = len(t.Cells) - limit
				break
			}
			st := statusOf(c)
			hc := oldHTMLCell{Class: string(st), Status: string(st), Key: c.Key, Rules: strings.Join(flaggedRules(c), ", ")}
			for _, col := range t.Columns {
				v := ""
				if st == audit.StatusOK {
					if x, ok := c.Stats[col]; ok {
						v = displayNumber(x, dps[col])
					}
				} else {
					v = string(st)
				}
				hc.Values = append(hc.Values, v)
			}
			ht.Cells = append(ht.Cells, hc)
		}
		p.Tables = append(p.Tables, ht)
	}
	return oldHTMLTemplate.Execute(ctxWriter{ctx, w}, p)
}

// crosstabs lays each published statistic of t out as a crosstab like
// the annotated workbook's Crosstab sheet, bounded to the first rows and
// columns. Only statuses and the published values of ok cells are shown.
func (h SummaryHTML) oldCrosstabs(cc *canceller, t *audit.Table, dps map[string]int) ([]oldHTMLCrosstab, error) {
	if len(t.Dims) == 0 || len(t.Cells) == 0 || len(t.Columns) == 0 {
		return nil, nil
	}
	maxRows, maxCols := h.MaxCrosstabRows, h.MaxCrosstabCols
	if maxRows <= 0 {
		maxRows = 200
	}
	if maxCols <= 0 {
		maxCols = 40
	}
	g, err := collectCrosstab(cc, t)
	if err != nil {
		return nil, err
	}
	g.order(t.TotalLabel)
	nd := len(t.Dims)
	across := g.across[:min(len(g.across), maxCols)]
	downKeys := g.downKeys[:min(len(g.downKeys), maxRows)]
	var out []oldHTMLCrosstab
	for s, col := range t.Columns {
		x := oldHTMLCrosstab{
			ID:      fmt.Sprintf("crosstab-%s-%d", t.Name, s+1),
			Title:   t.ColumnLabel(s) + " by " + strings.Join(t.Dims, ", ") + " (" + t.Dims[nd-1] + " across)",
			Down:    t.Dims[:nd-1],
			Across:  across,
			AllRows: len(g.downKeys), AllCols: len(g.across),
			MoreRows: len(g.downKeys) - len(downKeys), MoreCols: len(g.across) - len(across),
		}
		if nd == 1 {
			x.Down = []string{""}
		}
		for _, dk := range downKeys {
			if err := cc.next(); err != nil {
				return nil, err
			}
			row := oldHTMLXRow{Labels: g.down[dk], Cells: make([]oldHTMLXCell, len(across))}
			if nd == 1 {
				row.Labels = []string{t.ColumnLabel(s)}
			}
			for j, a := range across {
				c, ok := g.at[dk+"\x01"+a]
				if !ok {
					continue
				}
				st := statusOf(c)
				cell := oldHTMLXCell{Class: string(st), Value: string(st)}
				if st == audit.StatusOK {
					cell.Value = ""
					if v, ok := c.Stats[col]; ok {
						cell.Value = displayNumber(v, dps[col])
					}
				}
				row.Cells[j] = cell
			}
			x.Rows = append(x.Rows, row)
		}
		out = append(out, x)
	}
	return out, nil
}

// oldHTMLTemplate is the page as it was: htmlPageText with the cells' and the
// crosstabs' rows written by the template itself.
var oldHTMLTemplate = template.Must(template.New("summary").Funcs(htmlFuncs).Parse(oldHTMLPageText()))

func oldHTMLPageText() string {
	page := strings.NewReplacer(
		"{{.CellRows}}</table>", `{{range .Cells}}<tr class="{{.Class}}">{{range .Key}}<td>{{.}}</td>{{end}}{{range .Values}}<td class="num">{{.}}</td>{{end}}<td>{{.Status}}</td><td>{{.Rules}}</td></tr>
{{end}}</table>`,
		"{{.Rows}}</table>", `{{range .Rows}}<tr>{{range .Labels}}<th>{{.}}</th>{{end}}{{range .Cells}}<td class="num {{.Class}}">{{.Value}}</td>{{end}}</tr>
{{end}}</table>`,
		"{{.Shown}}", "{{len .Rows}}",
	).Replace(htmlPageText)
	if strings.Contains(page, "{{.CellRows}}") || strings.Contains(page, "{{.Rows}}") || strings.Contains(page, "{{.Shown}}") {
		panic("htmlPageText changed: the oracle's replacements no longer apply")
	}
	return page
}
