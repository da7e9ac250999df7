package writers

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"html/template"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// TestSummaryHTMLCellRows: each row of a table's cells on summary.html
// (written without html/template) shows, once unescaped, exactly that
// cell: its key, the published value of an ok cell or the status of a
// flagged one in each column, its status and the rules that flagged it;
// flagged cells first, at most MaxCells rows, and the rest counted. Run on
// random tables with hostile texts (markup, quotes, ampersands, plus
// signs, NUL, formula-looking text, non-ASCII and invalid UTF-8).
func TestSummaryHTMLCellRows(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2))
	rowRe := regexp.MustCompile(`(?s)<tr class="([^"]*)">(.*?)</tr>`)
	cellRe := regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`)
	shown := func(s string) string { return strings.ReplaceAll(s, "\x00", "\uFFFD") }
	for i := range 300 {
		tab := randomTable(r)
		var rs RunSummary
		rs.Version = hostileText(r)
		rs.Add(TableSummary{Table: tab.Name, Source: tab.Source, Mode: tab.Mode, Summary: tab.Summarize()})
		h := SummaryHTML{}
		if r.IntN(2) == 0 {
			h.MaxCells = 1 + r.IntN(20)
		}
		var page bytes.Buffer
		if err := h.WriteRunContext(context.Background(), &page, &rs, []*audit.Table{tab}); err != nil {
			t.Fatal(err)
		}
		p := page.String()
		start := strings.Index(p, `<table class="cells">`)
		if start < 0 {
			t.Fatalf("run %d: no cells table", i)
		}
		body := p[start:]
		body = body[:strings.Index(body, "</table>")]
		var want []*audit.Cell
		for _, flagged := range []bool{true, false} {
			for _, c := range tab.Cells {
				if (statusOf(c) != audit.StatusOK) == flagged {
					want = append(want, c)
				}
			}
		}
		limit := h.MaxCells
		if limit <= 0 {
			limit = 5000
		}
		rows := rowRe.FindAllStringSubmatch(body, -1)
		if n := min(limit, len(want)); len(rows) != n {
			t.Fatalf("run %d: %d rows, want %d", i, len(rows), n)
		}
		if hidden := len(want) - len(rows); hidden > 0 && !strings.Contains(p, fmt.Sprintf("%d more cells not listed", hidden)) {
			t.Errorf("run %d: %d cells left out without saying so", i, hidden)
		}
		for k, row := range rows {
			c := want[k]
			st := string(statusOf(c))
			if row[1] != st {
				t.Fatalf("run %d row %d: class %q, want %q", i, k, row[1], st)
			}
			var texts []string
			for _, m := range cellRe.FindAllStringSubmatch(row[2], -1) {
				texts = append(texts, html.UnescapeString(m[1]))
			}
			if len(texts) != len(c.Key)+len(tab.Columns)+2 {
				t.Fatalf("run %d row %d: %d cells, want %d", i, k, len(texts), len(c.Key)+len(tab.Columns)+2)
			}
			for d, key := range c.Key {
				if texts[d] != shown(key) {
					t.Errorf("run %d row %d: key %q shown as %q", i, k, key, texts[d])
				}
			}
			for j, col := range tab.Columns {
				got := texts[len(c.Key)+j]
				v, has := c.Stats.Get(col)
				switch {
				case st != string(audit.StatusOK):
					if got != st {
						t.Errorf("run %d row %d: flagged cell shows %q in %s, want its status", i, k, got, col)
					}
				case !has:
					if got != "" {
						t.Errorf("run %d row %d: %s has no value but shows %q", i, k, col, got)
					}
				case v.Missing || v.Marker:
					if got != shown(v.Text) {
						t.Errorf("run %d row %d: %s shows %q, the input had %q", i, k, col, got, v.Text)
					}
				default:
					// a number shown at the column's decimals, or the
					// input's own text where it is not a number
					g, err := decimal.Parse(strings.ReplaceAll(got, ",", ""))
					typed, terr := decimal.Parse(strings.TrimSpace(strings.ReplaceAll(v.Text, ",", "")))
					if (err != nil || !roundsTo(v.Value, g) && (terr != nil || !roundsTo(typed, g))) && got != shown(v.Text) {
						t.Errorf("run %d row %d: %s shows %q for %s (%q)", i, k, col, got, v.Value, v.Text)
					}
				}
			}
			if texts[len(texts)-2] != st {
				t.Errorf("run %d row %d: status %q, want %q", i, k, texts[len(texts)-2], st)
			}
			var rules []string
			for _, f := range c.Findings {
				if f.Outcome == audit.Fail || f.Outcome == audit.Review {
					rules = append(rules, shown(f.Rule))
				}
			}
			if got := texts[len(texts)-1]; got != strings.Join(rules, ", ") {
				t.Errorf("run %d row %d: rules %q, want %q", i, k, got, strings.Join(rules, ", "))
			}
		}
	}
}

// roundsTo reports whether shown is v rounded to shown's decimals (the
// page shows published values at the column's decimals).
func roundsTo(v, shown decimal.Dec) bool {
	diff := new(big.Rat).Sub(v.Rat(), shown.Rat())
	diff.Abs(diff)
	half := new(big.Rat).SetFrac64(1, 2)
	for range shown.Scale() {
		half.Quo(half, big.NewRat(10, 1))
	}
	return diff.Cmp(half) <= 0
}

// TestAppendHTMLTextMatchesTemplate: the escaper agrees with html/template
// on every single byte and on random hostile texts, in text and in a
// quoted attribute.
func TestAppendHTMLTextMatchesTemplate(t *testing.T) {
	if htmlTemplate.Lookup("summary") == nil {
		t.Fatal("no template")
	}
	texts := []string{""}
	for c := range 256 {
		texts = append(texts, string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"y")
	}
	r := rand.New(rand.NewPCG(15, 3))
	for range 2000 {
		texts = append(texts, hostileText(r))
	}
	for _, s := range texts {
		got := string(appendHTMLText(nil, s))
		if want := templateEscaped(t, s); got != want {
			t.Fatalf("%q: got %q, want %q", s, got, want)
		}
	}
}

var escapeOracle = template.Must(template.New("e").Parse(`<td>{{.}}</td><td class="num {{.}}"></td>`))

// templateEscaped renders s with html/template in text and attribute
// contexts and checks both agree, returning the text rendering.
func templateEscaped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := escapeOracle.Execute(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	text := out[len("<td>"):strings.Index(out, "</td>")]
	rest := out[strings.Index(out, "</td>")+len(`</td><td class="num `):]
	attr := rest[:len(rest)-len(`"></td>`)]
	if text != attr {
		t.Fatalf("%q: html/template escapes %q in text and %q in an attribute", s, text, attr)
	}
	return text
}
