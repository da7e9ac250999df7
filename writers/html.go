package writers

import (
	"context"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
)

// SummaryHTML writes summary.html: one self-contained page (no scripts,
// no external fonts, styles or images) with the run summary, inline SVG
// charts of cells by status and flagged cells by rule, and per table its
// counts, its cells coloured by status (the palette of the annotated
// workbook, each status also written out) and the same cells in crosstab
// form, one per published statistic.
//
// The page holds no confidential values: only statuses, rule names,
// counts, dimension labels and the published values of ok cells. Flagged
// cells show their status instead of any figure, and rule messages (which
// may quote figures) are left out.
type SummaryHTML struct {
	// MaxCells caps the cells listed per table (default 5000); the counts
	// always cover every cell.
	MaxCells int
	// MaxCrosstabRows and MaxCrosstabCols bound each table's crosstab
	// view (defaults 200 rows and 40 columns); a larger table shows its
	// first rows and columns and says where the rest is.
	MaxCrosstabRows, MaxCrosstabCols int
}

// HTMLFile is the name of the run page.
const HTMLFile = "summary.html"

type htmlBar struct {
	Label      string
	Count      int
	Y, W       int
	Fill, Text string
}

type htmlChart struct {
	Title  string
	Height int
	Bars   []htmlBar
}

type htmlTable struct {
	Name, Source, Mode string
	Summary            audit.Summary
	Needs              bool
	Dims, Columns      []string
	// CellRows are the rows of the cells' table, already escaped (see
	// appendHTMLText): written without the template's reflection, which
	// cost a run more than the rest of the page.
	CellRows template.HTML
	Hidden   int
	// Warnings are the table's remarks (how it was read, margins found
	// or not, cells read as already suppressed, columns left out).
	Warnings []string
	// Workbook and SafeFiles name the outputs written for the table.
	Workbook  string
	SafeFiles string
	Overrides []audit.Override
	// Structure describes the table's structure (StructureLines: labels
	// only, never a figure; a difference quoted is replaced as in
	// Warnings, pageWarnings).
	Structure []string
	Rules     []htmlBar
	Crosstabs []htmlCrosstab
}

// htmlCrosstab is one published statistic of a table in crosstab form:
// the last dimension across, the others down, margins last.
type htmlCrosstab struct {
	ID, Title string
	Down      []string
	Across    []string
	// Rows are the body rows, already escaped; Shown counts them.
	Rows               template.HTML
	Shown              int
	MoreRows, MoreCols int
	AllRows, AllCols   int
}

type htmlPage struct {
	Version string
	Totals  audit.Summary
	Needs   bool
	// Banner is the verdict line; Steps what to do next, only those that
	// apply to this run and name files it wrote.
	Banner  string
	Steps   []string
	Status  htmlChart
	Rules   htmlChart
	Tables  []htmlTable
	Legend  []htmlBar
	Palette map[string]string
	Trail   template.HTML
}

const chartWidth = 360

func bars(labels []string, counts []int, fills []string) ([]htmlBar, int) {
	most := 1
	for _, c := range counts {
		most = max(most, c)
	}
	out := make([]htmlBar, len(labels))
	for i, l := range labels {
		w := counts[i] * chartWidth / most
		if counts[i] > 0 {
			w = max(w, 2)
		}
		out[i] = htmlBar{Label: l, Count: counts[i], Y: 8 + 26*i, W: w, Fill: fills[i]}
	}
	return out, 16 + 26*len(labels)
}

func statusChart(s audit.Summary) htmlChart {
	labels := []string{"ok", "primary", "secondary", "review"}
	counts := []int{s.OK, s.Primary, s.Secondary, s.Review}
	fills := make([]string, 4)
	for i, st := range statusOrder {
		fills[i] = "#" + Palette[st]
		if st == audit.StatusOK {
			fills[i] = "#B8B8B8"
		}
	}
	b, h := bars(labels, counts, fills)
	return htmlChart{Title: "Cells by status", Height: h, Bars: b}
}

func ruleBars(by map[string]int) ([]htmlBar, int) {
	rules := make([]string, 0, len(by))
	for r := range by {
		rules = append(rules, r)
	}
	sort.Slice(rules, func(i, j int) bool {
		if by[rules[i]] != by[rules[j]] {
			return by[rules[i]] > by[rules[j]]
		}
		return rules[i] < rules[j]
	})
	counts := make([]int, len(rules))
	fills := make([]string, len(rules))
	for i, r := range rules {
		counts[i] = by[r]
		fills[i] = "#0072B2" // Okabe-Ito blue
	}
	return bars(rules, counts, fills)
}

// WriteRun writes the page for a run; see WriteRunContext.
func (h SummaryHTML) WriteRun(w io.Writer, r *RunSummary, tables []*audit.Table) error {
	return h.WriteRunContext(context.Background(), w, r, tables)
}

// WriteRunContext writes the page for a run; it returns ctx.Err() soon
// after ctx is cancelled.
func (h SummaryHTML) WriteRunContext(ctx context.Context, w io.Writer, r *RunSummary, tables []*audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cc := canceller{ctx: ctx}
	limit := h.MaxCells
	if limit <= 0 {
		limit = 5000
	}
	p := htmlPage{Version: r.Version, Totals: r.Totals, Needs: r.NeedsPerson, Palette: map[string]string{}}
	for _, st := range statusOrder {
		p.Palette[string(st)] = "#" + Palette[st]
		p.Legend = append(p.Legend, htmlBar{Label: string(st), Fill: "#" + Palette[st], Text: statusMeaning[st]})
	}
	p.Status = statusChart(r.Totals)
	outputs := tableOutputs(r)
	p.Banner, p.Steps = verdictText(r, tables, outputs)
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
		ht := htmlTable{Name: t.Name, Source: t.Source, Mode: string(t.Mode), Summary: s, Needs: s.NeedsPerson(), Dims: t.Dims, Overrides: t.Overrides, Warnings: pageWarnings(t.Warnings), Structure: pageWarnings(StructureLines(t))}
		if outputs.has(t.Name, ".annotated.xlsx") {
			ht.Workbook = t.Name + ".annotated.xlsx"
		}
		ht.SafeFiles = outputs.safeFiles(t.Name)
		for i := range t.Columns {
			ht.Columns = append(ht.Columns, t.ColumnLabel(i))
		}
		ht.Rules, _ = ruleBars(s.ByRule)
		dps := columnDecimals(t)
		if ht.Crosstabs, err = h.crosstabs(&cc, t, dps); err != nil {
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
		var b []byte
		for i, c := range order {
			if err := cc.next(); err != nil {
				return err
			}
			if i >= limit {
				ht.Hidden = len(t.Cells) - limit
				break
			}
			b = appendCellRow(b, t, c, dps)
		}
		ht.CellRows = template.HTML(b)
		p.Tables = append(p.Tables, ht)
	}
	return htmlTemplate.Execute(ctxWriter{ctx, w}, p)
}

// crosstabs lays each published statistic of t out as a crosstab like
// the annotated workbook's Crosstab sheet, bounded to the first rows and
// columns. Only statuses and the published values of ok cells are shown.
func (h SummaryHTML) crosstabs(cc *canceller, t *audit.Table, dps map[string]int) ([]htmlCrosstab, error) {
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
	// the cells shown, looked up once for every statistic
	grid := g.lookup(downKeys, across)
	var out []htmlCrosstab
	var b []byte
	for s, col := range t.Columns {
		x := htmlCrosstab{
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
		b = b[:0]
		for r := range downKeys {
			if err := cc.next(); err != nil {
				return nil, err
			}
			b = append(b, "<tr>"...)
			labels := g.down[downKeys[r]]
			if nd == 1 {
				labels = []string{t.ColumnLabel(s)}
			}
			for _, l := range labels {
				b = append(b, "<th>"...)
				b = appendHTMLText(b, l)
				b = append(b, "</th>"...)
			}
			for _, c := range grid[r] {
				// an absent combination is an empty cell
				var class, value string
				if c != nil {
					st := statusOf(c)
					class, value = string(st), string(st)
					if st == audit.StatusOK {
						value = ""
						if v, ok := c.Stats.Get(col); ok {
							value = displayNumber(v, dps[col])
						}
					}
				}
				b = append(b, `<td class="num `...)
				b = appendHTMLText(b, class)
				b = append(b, `">`...)
				b = appendHTMLText(b, value)
				b = append(b, "</td>"...)
			}
			b = append(b, "</tr>\n"...)
		}
		x.Rows, x.Shown = template.HTML(b), len(downKeys)
		out = append(out, x)
	}
	return out, nil
}

var htmlTemplate = template.Must(template.New("summary").Funcs(htmlFuncs).Parse(htmlPageText))

// htmlFuncs are the functions the page's template calls.
var htmlFuncs = template.FuncMap{
	"pct": func(n, of int) string {
		if of == 0 {
			return "0%"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
	},
	"css": func(s string) template.CSS { return template.CSS(s) },
	"add": func(a, b int) int { return a + b },
}

// htmlPageText is summary.html's template.
const htmlPageText = `<!DOCTYPE html>
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
.warnings { border-left: 6px solid #E69F00; background: #FDF3DC; padding: .2em 1em; margin: 1em 0; }
svg text { font-family: inherit; font-size: 12px; fill: #111; }
</style>
</head>
<body>
<h1>sdcaudit summary</h1>
<p>sdcaudit {{.Version}} &middot; {{len .Tables}} table(s) &middot; {{.Totals.Cells}} cells</p>
{{if .Needs}}<p class="verdict stop" id="verdict">{{.Banner}}</p>
<div id="next"><p>What to do next:</p>
<ol>
{{range .Steps}}<li>{{.}}</li>
{{end}}</ol></div>
{{else}}<p class="verdict go" id="verdict">{{.Banner}}</p>
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
{{if .Needs}}<p>{{if .Workbook}}Checker's workbook: <strong>{{.Workbook}}</strong> &middot; {{end}}publishable: {{.SafeFiles}}. Flagged cells are listed first.</p>{{end}}
<p>{{.Source}} &middot; {{.Mode}} &middot; {{.Summary.Cells}} cells: {{.Summary.OK}} ok, {{.Summary.Primary}} primary, {{.Summary.Secondary}} secondary, {{.Summary.Review}} review
({{pct .Summary.OK .Summary.Cells}} publishable).</p>
{{if .Warnings}}<div class="warnings" id="warnings-{{.Name}}"><p>How the table was read, and what to know before the cells:</p>
<ul>
{{range .Warnings}}<li>{{.}}</li>
{{end}}</ul></div>
{{end}}{{if .Structure}}<ul class="structure" id="structure-{{.Name}}">
{{range .Structure}}<li>{{.}}</li>
{{end}}</ul>
{{end}}{{if .Overrides}}<table class="overrides" id="overrides-{{.Name}}">
<caption>Overrides by the checker</caption>
<tr><th>cell</th><th>action</th><th>reason</th><th>by</th><th>where</th><th>status</th></tr>
{{range .Overrides}}<tr><td>{{.Cell}}</td><td>{{.Action}}</td><td>{{.Reason}}</td><td>{{.By}}</td><td>{{.Source}}</td><td>{{.Status}}</td></tr>
{{end}}</table>{{end}}
{{if .Rules}}<p>Flagged by rule: {{range $i, $r := .Rules}}{{if $i}}, {{end}}{{$r.Label}} {{$r.Count}}{{end}}</p>{{end}}
<table class="cells">
<tr>{{range .Dims}}<th>{{.}}</th>{{end}}{{range .Columns}}<th>{{.}}</th>{{end}}<th>status</th><th>rules</th></tr>
{{.CellRows}}</table>
{{if .Hidden}}<p class="more">{{.Hidden}} more cells not listed; see the annotated workbook.</p>{{end}}
{{$name := .Name}}{{range .Crosstabs}}<table class="crosstab" id="{{.ID}}">
<caption>{{.Title}}</caption>
<tr>{{range .Down}}<th>{{.}}</th>{{end}}{{range .Across}}<th>{{.}}</th>{{end}}</tr>
{{.Rows}}</table>
{{if or .MoreRows .MoreCols}}<p class="more">Showing {{.Shown}} of {{.AllRows}} rows and {{len .Across}} of {{.AllCols}} columns; the whole table is in {{$name}}.annotated.xlsx.</p>{{end}}
{{end}}{{end}}
</body>
</html>
{{define "chart"}}<figure>
<figcaption>{{.Title}}</figcaption>
<svg xmlns="http://www.w3.org/2000/svg" width="520" height="{{.Height}}" viewBox="0 0 520 {{.Height}}" role="img" aria-label="{{.Title}}">
{{range .Bars}}<text x="0" y="{{add .Y 14}}">{{.Label}}</text><rect x="100" y="{{.Y}}" width="{{.W}}" height="18" fill="{{css .Fill}}" stroke="#555" stroke-width="0.5"></rect><text x="{{add 106 .W}}" y="{{add .Y 14}}">{{.Count}}</text>
{{end}}</svg>
</figure>{{end}}
`

// appendCellRow appends cell c's row of the cells' table, as the template
// wrote it: the key, each published statistic of an ok cell (a flagged
// cell shows its status instead), the status and the rules that flagged
// it, each text escaped as html/template escapes it there.
func appendCellRow(b []byte, t *audit.Table, c *audit.Cell, dps map[string]int) []byte {
	st := statusOf(c)
	b = append(b, `<tr class="`...)
	b = appendHTMLText(b, string(st))
	b = append(b, `">`...)
	for _, k := range c.Key {
		b = append(b, "<td>"...)
		b = appendHTMLText(b, k)
		b = append(b, "</td>"...)
	}
	for _, col := range t.Columns {
		b = append(b, `<td class="num">`...)
		if st == audit.StatusOK {
			if x, ok := c.Stats.Get(col); ok {
				b = appendHTMLText(b, displayNumber(x, dps[col]))
			}
		} else {
			b = appendHTMLText(b, string(st))
		}
		b = append(b, "</td>"...)
	}
	b = append(b, "<td>"...)
	b = appendHTMLText(b, string(st))
	b = append(b, "</td><td>"...)
	n := 0
	for _, f := range c.EachFinding() {
		if f.Outcome == audit.Fail || f.Outcome == audit.Review {
			if n > 0 {
				b = append(b, ", "...)
			}
			b = appendHTMLText(b, f.Rule)
			n++
		}
	}
	return append(b, "</td></tr>\n"...)
}

// appendHTMLText appends s escaped as html/template escapes a plain string
// in text and in a quoted attribute value (its htmlEscaper and
// attrEscaper): NUL becomes U+FFFD and " & ' + < > character references;
// every other byte, invalid UTF-8 included, is kept.
func appendHTMLText(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, repl...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// runOutputs is what each table of a run wrote, by table name; a table
// whose outputs were not recorded is taken to have written the two files
// every run writes (its report and its safe CSV) and nothing else.
type runOutputs map[string][]string

func tableOutputs(r *RunSummary) runOutputs {
	o := runOutputs{}
	for _, ts := range r.Tables {
		o[ts.Table] = ts.Outputs
	}
	return o
}

func (o runOutputs) has(table, suffix string) bool {
	files, ok := o[table]
	if !ok || files == nil {
		return suffix == ".report.json" || suffix == ".safe.csv"
	}
	for _, f := range files {
		if f == table+suffix {
			return true
		}
	}
	return false
}

// safeFiles names the publishable files written for table.
func (o runOutputs) safeFiles(table string) string {
	var fs []string
	for _, s := range []string{".safe.csv", ".safe.xlsx"} {
		if o.has(table, s) {
			fs = append(fs, table+s)
		}
	}
	if len(fs) == 0 {
		return table + ".safe.csv"
	}
	return strings.Join(fs, " and ")
}

// plural writes n and the noun, in the singular for one.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// verdictText says what the run found, each count for what it is, and
// the steps that apply: only files the run wrote are named, and review is
// explained only when some cell needs it.
func verdictText(r *RunSummary, tables []*audit.Table, o runOutputs) (string, []string) {
	var named []*audit.Table
	for _, t := range tables {
		if t != nil {
			named = append(named, t)
		}
	}
	// file names: the tables' own when there are a few, else
	// TABLE.suffix ("one per table, listed below")
	file := func(suffix string) (string, bool) {
		var fs []string
		for _, t := range named {
			if o.has(t.Name, suffix) {
				fs = append(fs, t.Name+suffix)
			}
		}
		switch {
		case len(fs) == 0:
			return "", false
		case len(fs) > 3:
			return "TABLE" + suffix, true
		case len(fs) == 1:
			return fs[0], true
		default:
			return strings.Join(fs[:len(fs)-1], ", ") + " and " + fs[len(fs)-1], true
		}
	}
	safe, _ := file(".safe.csv")
	if safe == "" {
		safe = "TABLE.safe.csv"
	}
	if x, ok := file(".safe.xlsx"); ok {
		safe += " and " + x
	}
	tot := r.Totals
	if !r.NeedsPerson {
		return "Nothing needs a person: every cell passed. Publish " + safe + ".", nil
	}
	var parts []string
	if tot.Primary > 0 {
		parts = append(parts, plural(tot.Primary, "cell failed a rule", "cells failed a rule"))
	}
	if tot.Secondary > 0 {
		what := "to protect them"
		if tot.Primary == 0 {
			what = "to protect other cells"
		}
		parts = append(parts, plural(tot.Secondary, "cell is", "cells are")+" suppressed "+what)
	}
	if tot.Review > 0 {
		parts = append(parts, plural(tot.Review, "cell needs review", "cells need review"))
	}
	banner := "Release blocked: " + strings.Join(parts, "; ") + "."
	var steps []string
	if wb, ok := file(".annotated.xlsx"); ok {
		what := "the annotated workbook "
		if strings.HasPrefix(wb, "TABLE.") {
			what, wb = "the annotated workbooks ", wb+" (one per table, listed below)"
		} else if strings.Contains(wb, " and ") {
			what = "the annotated workbooks "
		}
		steps = append(steps, "Open "+what+wb+": every flagged cell is coloured by its status and explained in a comment on its status cell.")
	} else if rep, ok := file(".report.json"); ok {
		steps = append(steps, "Read the checker's report "+rep+": every flagged cell with the rule, the reason and the figures behind it.")
	}
	if tot.Primary+tot.Secondary > 0 {
		steps = append(steps, "Primary and secondary cells are suppressed in "+safe+"; check that the pattern is acceptable.")
	}
	if tot.Review > 0 {
		steps = append(steps, "Cells for review could not be assessed: decide each one, or mark it in an overrides file (safe, suppress or protected, with a reason and your name) and run again.")
	}
	return banner, steps
}

// differenceFigure is the figure a warning quotes for a total that does
// not add up ("difference 3" or "difference -1,234.5").
var differenceFigure = regexp.MustCompile(`difference -?[0-9][0-9,]*(\.[0-9]+)?`)

// pageWarnings are a table's warnings as the page shows them: a total's
// difference from the sum of its parts is left to the checker's report,
// since with the published cells it could give the sum of suppressed
// ones.
func pageWarnings(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = differenceFigure.ReplaceAllString(w, "difference in the checker's report")
	}
	return out
}
