package writers

import (
	"bytes"
	"context"
	"html/template"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// TestSummaryHTMLMatchesTemplate: summary.html, whose cell and crosstab
// rows are now written without html/template, is byte-identical to the
// page the template rendered (oldWriteRunContext, kept as the oracle) on
// random runs of tables with hostile texts (markup, quotes, ampersands,
// plus signs, NUL, formula-looking text, non-ASCII and invalid UTF-8),
// every status, missing combinations and bounds that hide cells, rows and
// columns.
func TestSummaryHTMLMatchesTemplate(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2))
	for i := range 300 {
		var tables []*audit.Table
		var rs RunSummary
		rs.Version = hostileText(r)
		for range 1 + r.IntN(3) {
			tab := randomTable(r)
			if r.IntN(5) == 0 {
				tables = append(tables, nil)
			}
			tables = append(tables, tab)
			rs.Add(TableSummary{Table: tab.Name, Source: tab.Source, Mode: tab.Mode, Summary: tab.Summarize()})
		}
		h := SummaryHTML{}
		if r.IntN(2) == 0 {
			h = SummaryHTML{MaxCells: 1 + r.IntN(20), MaxCrosstabRows: 1 + r.IntN(5), MaxCrosstabCols: 1 + r.IntN(4)}
		}
		var got, want bytes.Buffer
		if err := h.WriteRunContext(context.Background(), &got, &rs, tables); err != nil {
			t.Fatal(err)
		}
		if err := h.oldWriteRunContext(context.Background(), &want, &rs, tables); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			g, w := got.Bytes(), want.Bytes()
			k := 0
			for k < min(len(g), len(w)) && g[k] == w[k] {
				k++
			}
			t.Fatalf("run %d: pages differ at byte %d:\ngot  %q\nwant %q", i, k, g[max(0, k-80):min(len(g), k+80)], w[max(0, k-80):min(len(w), k+80)])
		}
	}
}

// TestAppendHTMLTextMatchesTemplate: the escaper agrees with html/template
// on every single byte and on random hostile texts, in text and in a
// quoted attribute.
func TestAppendHTMLTextMatchesTemplate(t *testing.T) {
	tmpl := oldHTMLTemplate.Lookup("summary") // ensure the package's template parses
	if tmpl == nil {
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
