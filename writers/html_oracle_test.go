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

var oldHTMLTemplate = template.Must(template.New("summary").Funcs(template.FuncMap{
	"pct": func(n, of int) string {
		if of == 0 {
			return "0%"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
	},
	"css": func(s string) template.CSS { return template.CSS(s) },
	"add": func(a, b int) int { return a + b },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>sdcaudit summary</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 2em; color: #111; background: #fff; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
.verdict { padding: .6em 1em; border-left: 6px solid; margin: 1em 0; font-weight: 600; }
.verdict.stop { border-color: #D55E00; background: #FBE3D3; }
.verdict.go { border-color: #009E73; background: #D9F2EA; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: .92em; }
th, td { border: 1px solid #c8c8c8; padding: .2em .6em; text-align: left; }
th { background: #eee; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.primary td { background: {{index .Palette "primary" | css}}; }
tr.secondary td { background: {{index .Palette "secondary" | css}}; }
tr.review td { background: {{index .Palette "review" | css}}; }
td.primary { background: {{index .Palette "primary" | css}}; }
td.secondary { background: {{index .Palette "secondary" | css}}; }
td.review { background: {{index .Palette "review" | css}}; }
table.crosstab caption { text-align: left; font-weight: 600; }
.charts { display: flex; flex-wrap: wrap; gap: 2em; }
.swatch { display: inline-block; width: 1em; height: 1em; border: 1px solid #888; vertical-align: middle; margin-right: .4em; }
.more { color: #555; font-style: italic; }
svg text { font-family: inherit; font-size: 12px; fill: #111; }
</style>
</head>
<body>
<h1>sdcaudit summary</h1>
<p>sdcaudit {{.Version}} &middot; {{len .Tables}} table(s) &middot; {{.Totals.Cells}} cells</p>
{{if .Needs}}<p class="verdict stop" id="verdict">Release blocked: {{add .Totals.Primary (add .Totals.Secondary .Totals.Review)}} cell(s) failed a rule or need review.</p>
<div id="next"><p>What to do next:</p>
<ol>
<li>Open each table's annotated workbook (TABLE.annotated.xlsx, listed below): every flagged cell is coloured by its status and explained in a comment on its status cell.</li>
<li>Primary and secondary cells are suppressed in TABLE.safe.csv and TABLE.safe.xlsx; check that the pattern is acceptable.</li>
<li>Cells for review could not be assessed: decide each one, or mark it in an overrides file (safe, suppress or protected, with a reason and your name) and run again.</li>
</ol></div>
{{else}}<p class="verdict go" id="verdict">Nothing needs a person: every cell passed. Publish TABLE.safe.csv or TABLE.safe.xlsx.</p>
{{end}}
<table id="totals">
<tr><th>cells</th><th>ok</th><th>primary</th><th>secondary</th><th>review</th></tr>
<tr><td class="num">{{.Totals.Cells}}</td><td class="num">{{.Totals.OK}}</td><td class="num">{{.Totals.Primary}}</td><td class="num">{{.Totals.Secondary}}</td><td class="num">{{.Totals.Review}}</td></tr>
</table>
<div class="charts">
{{template "chart" .Status}}
{{if .Rules.Bars}}{{template "chart" .Rules}}{{end}}
</div>
{{.Trail}}
<h2>Legend</h2>
<table id="legend">
{{range .Legend}}<tr><td><span class="swatch" style="background: {{css .Fill}}"></span>{{.Label}}</td><td>{{.Text}}</td></tr>
{{end}}</table>
{{range .Tables}}
<h2 id="table-{{.Name}}">{{.Name}}</h2>
{{if .Needs}}<p>Checker's workbook: <strong>{{.Name}}.annotated.xlsx</strong> &middot; publishable: {{.Name}}.safe.csv. Flagged cells are listed first.</p>{{end}}
<p>{{.Source}} &middot; {{.Mode}} &middot; {{.Summary.Cells}} cells: {{.Summary.OK}} ok, {{.Summary.Primary}} primary, {{.Summary.Secondary}} secondary, {{.Summary.Review}} review
({{pct .Summary.OK .Summary.Cells}} publishable).</p>
{{if .Overrides}}<table class="overrides" id="overrides-{{.Name}}">
<caption>Overrides by the checker</caption>
<tr><th>cell</th><th>action</th><th>reason</th><th>by</th><th>where</th><th>status</th></tr>
{{range .Overrides}}<tr><td>{{.Cell}}</td><td>{{.Action}}</td><td>{{.Reason}}</td><td>{{.By}}</td><td>{{.Source}}</td><td>{{.Status}}</td></tr>
{{end}}</table>{{end}}
{{if .Rules}}<p>Flagged by rule: {{range $i, $r := .Rules}}{{if $i}}, {{end}}{{$r.Label}} {{$r.Count}}{{end}}</p>{{end}}
<table class="cells">
<tr>{{range .Dims}}<th>{{.}}</th>{{end}}{{range .Columns}}<th>{{.}}</th>{{end}}<th>status</th><th>rules</th></tr>
{{range .Cells}}<tr class="{{.Class}}">{{range .Key}}<td>{{.}}</td>{{end}}{{range .Values}}<td class="num">{{.}}</td>{{end}}<td>{{.Status}}</td><td>{{.Rules}}</td></tr>
{{end}}</table>
{{if .Hidden}}<p class="more">{{.Hidden}} more cells not listed; see the annotated workbook.</p>{{end}}
{{$name := .Name}}{{range .Crosstabs}}<table class="crosstab" id="{{.ID}}">
<caption>{{.Title}}</caption>
<tr>{{range .Down}}<th>{{.}}</th>{{end}}{{range .Across}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .Labels}}<th>{{.}}</th>{{end}}{{range .Cells}}<td class="num {{.Class}}">{{.Value}}</td>{{end}}</tr>
{{end}}</table>
{{if or .MoreRows .MoreCols}}<p class="more">Showing {{len .Rows}} of {{.AllRows}} rows and {{len .Across}} of {{.AllCols}} columns; the whole table is in {{$name}}.annotated.xlsx.</p>{{end}}
{{end}}{{end}}
</body>
</html>
{{define "chart"}}<figure>
<figcaption>{{.Title}}</figcaption>
<svg xmlns="http://www.w3.org/2000/svg" width="520" height="{{.Height}}" viewBox="0 0 520 {{.Height}}" role="img" aria-label="{{.Title}}">
{{range .Bars}}<text x="0" y="{{add .Y 14}}">{{.Label}}</text><rect x="100" y="{{.Y}}" width="{{.W}}" height="18" fill="{{css .Fill}}" stroke="#555" stroke-width="0.5"></rect><text x="{{add 106 .W}}" y="{{add .Y 14}}">{{.Count}}</text>
{{end}}</svg>
</figure>{{end}}
`))
