package writers_test

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/writers"
)

// crossTable is region x size with margins, listed margins first and one
// combination (South/large) absent; the confidential figures are in the
// flagged cells (77777, 88888, 66666).
func crossTable() *audit.Table {
	stat := func(s string) audit.Stat {
		return audit.Stat{Text: s, Value: decimal.Must(strings.ReplaceAll(s, ",", ""))}
	}
	cell := func(r, s string, st audit.Status, count, total string) *audit.Cell {
		return &audit.Cell{Key: []string{r, s}, Status: st, Stats: audit.StatsOf(map[string]audit.Stat{"count": stat(count), "total": stat(total)})}
	}
	return &audit.Table{
		Name: "grants", Source: "grants.csv", Mode: audit.Aggregate,
		Dims: []string{"region", "size"}, TotalLabel: "Total", Columns: []string{"count", "total"},
		Cells: []*audit.Cell{
			cell("Total", "Total", audit.StatusOK, "45", "12,003.5"),
			cell("North", "Total", audit.StatusOK, "40", "11,000"),
			cell("North", "small", audit.StatusOK, "38", "1,500.25"),
			cell("North", "large", audit.StatusPrimary, "2", "77777"),
			cell("South", "small", audit.StatusSecondary, "5", "88888"),
			cell("South", "Total", audit.StatusReview, "5", "66666"),
			cell("Total", "small", audit.StatusOK, "43", "1,003.5"),
			cell("Total", "large", audit.StatusOK, "2", "11,000"),
		},
	}
}

var (
	reCrosstab = regexp.MustCompile(`(?s)<table class="crosstab" id="([^"]*)">(.*?)</table>`)
	reRow      = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	reCell     = regexp.MustCompile(`(?s)<t([hd])(?: class="([^"]*)")?>(.*?)</t[hd]>`)
)

type xcell struct{ tag, class, text string }

// parseCrosstabs reads the crosstab tables of a page: by id, rows of cells.
func parseCrosstabs(page string) map[string][][]xcell {
	out := map[string][][]xcell{}
	for _, m := range reCrosstab.FindAllStringSubmatch(page, -1) {
		var rows [][]xcell
		for _, r := range reRow.FindAllStringSubmatch(m[2], -1) {
			var row []xcell
			for _, c := range reCell.FindAllStringSubmatch(r[1], -1) {
				row = append(row, xcell{c[1], c[2], html.UnescapeString(c[3])})
			}
			rows = append(rows, row)
		}
		out[m[1]] = rows
	}
	return out
}

func writePage(t *testing.T, h writers.SummaryHTML, tab *audit.Table) string {
	t.Helper()
	var r writers.RunSummary
	r.Add(writers.TableSummary{Table: tab.Name, Source: tab.Source, Mode: tab.Mode, Summary: tab.Summarize()})
	var page bytes.Buffer
	if err := h.WriteRun(&page, &r, []*audit.Table{tab}); err != nil {
		t.Fatal(err)
	}
	return page.String()
}

// summary.html shows each table as a crosstab per published statistic:
// the last dimension across, the Total column and rows last; each body
// cell has its status as class and shows the published value of an ok
// cell, the status of any other, checked cell by cell against the report.
func TestSummaryHTMLCrosstab(t *testing.T) {
	tab := crossTable()
	var rep bytes.Buffer
	if err := (writers.Report{}).Write(&rep, tab); err != nil {
		t.Fatal(err)
	}
	var report struct {
		Cells []struct {
			Key    map[string]string `json:"key"`
			Status string            `json:"status"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(rep.Bytes(), &report); err != nil {
		t.Fatal(err)
	}
	xs := parseCrosstabs(writePage(t, writers.SummaryHTML{}, tab))
	if len(xs) != 2 {
		t.Fatalf("%d crosstabs, want one per statistic (2)", len(xs))
	}
	downs := []string{"North", "South", "Total"}
	across := []string{"small", "large", "Total"}
	for s, col := range tab.Columns {
		rows := xs["crosstab-grants-"+string(rune('1'+s))]
		if len(rows) != 1+len(downs) {
			t.Fatalf("%s: %d rows, want %d", col, len(rows), 1+len(downs))
		}
		want := append([]string{"region"}, across...)
		for j, c := range rows[0] {
			if c.tag != "h" || c.text != want[j] {
				t.Errorf("%s header %d: %+v, want %q", col, j, c, want[j])
			}
		}
		seen := 0
		for i, d := range downs {
			row := rows[i+1]
			if len(row) != 1+len(across) || row[0].text != d {
				t.Fatalf("%s row %d: %+v", col, i+1, row)
			}
			for j, a := range across {
				got := row[j+1]
				var status string
				for _, rc := range report.Cells {
					if rc.Key["region"] == d && rc.Key["size"] == a {
						status = rc.Status
					}
				}
				if status == "" {
					if got.class != "num " || got.text != "" {
						t.Errorf("%s %s/%s: absent from the table, shown %+v", col, d, a, got)
					}
					continue
				}
				seen++
				if got.class != "num "+status {
					t.Errorf("%s %s/%s: class %q, the report says %s", col, d, a, got.class, status)
				}
				if status != "ok" {
					if got.text != status {
						t.Errorf("%s %s/%s: shows %q, want its status %s", col, d, a, got.text, status)
					}
					continue
				}
				var pub audit.Stat
				for _, c := range tab.Cells {
					if c.Key[0] == d && c.Key[1] == a {
						pub = c.Stats.Of(col)
					}
				}
				g, err := decimal.Parse(strings.ReplaceAll(got.text, ",", ""))
				if err != nil || g.Rat().Cmp(pub.Value.Rat()) != 0 {
					t.Errorf("%s %s/%s: shows %q, published %s", col, d, a, got.text, pub.Text)
				}
			}
		}
		if seen != len(tab.Cells) {
			t.Errorf("%s: %d cells shown, the table has %d", col, seen, len(tab.Cells))
		}
	}
}

// The crosstab view shows no figure of a flagged cell.
func TestSummaryHTMLCrosstabNoConfidential(t *testing.T) {
	page := writePage(t, writers.SummaryHTML{MaxCells: 1}, crossTable())
	if !strings.Contains(page, `class="crosstab"`) {
		t.Fatal("no crosstab")
	}
	for _, bad := range []string{"77777", "77,777", "88888", "88,888", "66666", "66,666"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains the confidential %q", bad)
		}
	}
}

// A large crosstab shows its first rows and columns and says where the
// rest is.
func TestSummaryHTMLCrosstabBounded(t *testing.T) {
	page := writePage(t, writers.SummaryHTML{MaxCrosstabRows: 2, MaxCrosstabCols: 1}, crossTable())
	xs := parseCrosstabs(page)
	rows := xs["crosstab-grants-1"]
	if len(rows) != 3 {
		t.Fatalf("%d rows, want a header and 2", len(rows))
	}
	for _, r := range rows {
		if len(r) != 2 {
			t.Errorf("row %+v: want a label and one column", r)
		}
	}
	if !strings.Contains(page, "Showing 2 of 3 rows and 1 of 3 columns; the whole table is in grants.annotated.xlsx.") {
		t.Error("no note on the rows and columns left out")
	}
}
