package writers_test

import (
	"encoding/json"
	"html"
	"reflect"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/writers"
)

// structuredTable is sampleTable with a structure: region's Total is the
// margin of its two codes, =size's "small" may be negative, and =size's
// Total adds up only within the rounding (not confirmed).
func structuredTable() *audit.Table {
	tab := sampleTable()
	evil := tab.Cells[2].Key[0]
	tab.Structure = &audit.Structure{
		Margins: true,
		Axes: []audit.Axis{
			{Dims: []int{0}, Names: []string{"region"}, Codes: []string{"North", evil, "Total"},
				Parent: map[string]string{"North": "Total", evil: "Total"}, Found: map[string]string{"Total": "label and arithmetic"}},
			{Dims: []int{1}, Names: []string{"=size"}, Codes: []string{"small", "large", "Total"},
				Signed: map[string]string{"small": "negative published values"}},
		},
		Unconfirmed: []string{"=size=Total"},
		Rounded:     decimal.FromInt(5),
	}
	return tab
}

const (
	signedLine      = `may be negative: =size "small" (negative published values): a suppressed cell of it has no lower bound 0`
	roundedLine     = "values rounded to base 5 (input.rounded): a published count or total v stands for v - 2.5 to v + 2.5 (never below 0); margins are confirmed within the rounding, and the rules and the interval audit judge every value"
	unconfirmedLine = "totals not confirmed: =size=Total are not used as margins (they add up only within the rounding, or they have a breakdown the relations cannot hold, or the layout proposes them and the arithmetic does not confirm them: the warnings say which), so the audit cannot confirm a suppressed cell protected; if the table is rounded, set input.rounded to its base"
)

// TestStructureSignedUnconfirmed (issue 24 item 8): the codes whose cells
// may be negative (Axis.Signed) and the totals not confirmed
// (Structure.Unconfirmed) are in report.json's structure block
// (axes[].signed, unconfirmed), on summary.html and on the workbook's
// Summary sheet; so is the base of a table read as rounded
// (input.rounded: structure.rounded).
func TestStructureSignedUnconfirmed(t *testing.T) {
	tab := structuredTable()
	var rep struct {
		Structure struct {
			Axes []struct {
				Dims   []string `json:"dims"`
				Signed []struct {
					Code  string `json:"code"`
					Found string `json:"found"`
				} `json:"signed"`
			} `json:"axes"`
			Unconfirmed []string        `json:"unconfirmed"`
			Rounded     json.RawMessage `json:"rounded"`
		} `json:"structure"`
	}
	if err := json.Unmarshal(render(t, writers.Report{}, tab), &rep); err != nil {
		t.Fatal(err)
	}
	st := rep.Structure
	if len(st.Axes) != 2 || len(st.Axes[0].Signed) != 0 || len(st.Axes[1].Signed) != 1 ||
		st.Axes[1].Signed[0].Code != "small" || st.Axes[1].Signed[0].Found != "negative published values" {
		t.Errorf("report.json structure axes %+v", st.Axes)
	}
	if !reflect.DeepEqual(st.Unconfirmed, []string{"=size=Total"}) {
		t.Errorf("report.json unconfirmed %q", st.Unconfirmed)
	}
	if string(st.Rounded) != "5" {
		t.Errorf("report.json rounded %s, want 5", st.Rounded)
	}

	_, _, page := verdictOf(t, tab, nil)
	page = html.UnescapeString(page)
	for _, l := range []string{signedLine, unconfirmedLine, roundedLine} {
		if !strings.Contains(page, "<li>"+l+"</li>") {
			t.Errorf("summary.html lacks %q", l)
		}
	}

	sum, err := openAnnotated(t, tab).GetRows(writers.SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{signedLine, unconfirmedLine, roundedLine} {
		if !containsRow(sum, []string{"structure", l}) {
			t.Errorf("Summary sheet lacks %q: %q", l, sum)
		}
	}
}

// TestStructureLinesWithoutDifferences: a structure line that quoted how
// far a total is from its parts (as a margin warning does) would give
// the sum of suppressed cells with the published ones; summary.html
// replaces the figure as it does for warnings.
func TestStructureLinesWithoutDifferences(t *testing.T) {
	tab := structuredTable()
	tab.Structure.Axes[1].Signed["small"] = "Exports - Imports (difference 1,234.5)"
	_, _, page := verdictOf(t, tab, nil)
	if strings.Contains(page, "1,234.5") || !strings.Contains(html.UnescapeString(page), "(difference in the checker's report)") {
		t.Errorf("the page quotes the difference")
	}
}
