package readers

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// absSheet is a small ABS time-series sheet: descriptions in row 1, the
// nine metadata rows, monthly periods from row 11 (date serial numbers).
func absSheet(meta []string, freq string) [][]string {
	rows := [][]string{
		{"", "Employed persons ;  Persons ;", "Employed persons ;  > Males ;", "Employed persons ;  > Females ;"},
	}
	vals := map[string][]string{
		"Unit":             {"000 Hours", "000 Hours", "000 Hours"},
		"Series Type":      {"Original", "Original", "Original"},
		"Data Type":        {"STOCK", "STOCK", "STOCK"},
		"Frequency":        {freq, freq, freq},
		"Collection Month": {"1", "1", "1"},
		"Series Start":     {"44197", "44197", "44197"},
		"Series End":       {"44256", "44256", "44256"},
		"No. Obs":          {"3", "3", "3"},
		"Series ID":        {"A1X", "A2Y", "A3Z"},
	}
	for i, l := range meta {
		rows = append(rows, append([]string{l}, vals[absMetaLabels[i]]...))
	}
	return append(rows,
		[]string{"44197", "13000.5", "7000.25", "6000.25"}, // 2021-01-01
		[]string{"44228", "13100", "7050", "6050"},         // 2021-02-01
		[]string{"44256", "13200.125", "7100", "6100.125"}, // 2021-03-01
	)
}

// The ABS time-series layout (every ABS time-series spreadsheet; readabs
// reads it): the descriptions in row 1 are the header, the nine metadata
// rows (Unit ... Series ID, some holding numbers) are folded into the
// columns' description and reported, and the date serial numbers in
// column A are row labels shown as periods (2021-01), never values.
// Before, the sheet was refused (the numbers in the metadata rows read as
// the body, the dates as numbers in a label column).
func TestABSTimeSeriesLayout(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "Data1", rows: absSheet(absMetaLabels, "Month")},
		sheetSpec{name: "Index", rows: [][]string{{"Time Series Workbook"}, {"Data Item Description", "Series ID"}, {"Employed persons ;  Persons ;", "A1X"}}})
	rows, lay, d, warnings := readDetected(t, p, "Data1", "total")
	if !slices.Equal(d.Dims, []string{"period"}) || !slices.Equal(d.Across, []string{"across"}) || d.Value != "total" {
		t.Fatalf("detected %+v", d)
	}
	if !slices.Equal(lay.Header, []int{1}) || !slices.Equal(lay.Units, []int{2, 3, 4, 5, 6, 7, 8, 9, 10}) || !slices.Equal(lay.Body, []int{11, 12, 13}) || !slices.Equal(lay.Labels, []int{0}) || !slices.Equal(lay.Columns, []int{1, 2, 3}) {
		t.Fatalf("header %v units %v body %v labels %v columns %v", lay.Header, lay.Units, lay.Body, lay.Labels, lay.Columns)
	}
	// the labels as the header reads them (spaces collapsed)
	if len(rows) != 9 {
		t.Fatalf("%d cells, want 9: %v", len(rows), rows)
	}
	for _, c := range [][3]string{{"2021-01", "Employed persons ; Persons ;", "13000.5"}, {"2021-02", "Employed persons ; > Males ;", "7050"}, {"2021-03", "Employed persons ; > Females ;", "6100.125"}} {
		if r := findRow(rows, c[0], c[1]); r == nil || r[2] != c[2] {
			t.Errorf("%v = %v", c, r)
		}
	}
	note := d.Note
	for _, want := range []string{"ABS time-series layout", `Unit "000 Hours"`, `Series Type "Original"`, `Series Start "2021-01"`, "B A1X, C A2Y, D A3Z", "Frequency Month"} {
		if !strings.Contains(note, want) {
			t.Errorf("the layout note does not say %q: %s", want, note)
		}
	}
	if len(warnings) == 0 || !strings.Contains(warnings[len(warnings)-1], "units rows 2-10") {
		t.Errorf("warnings %v", warnings)
	}
	// without columns.value: refused at the Unit row, never a count
	// because a metadata label says "Frequency"
	whole := absSheet(absMetaLabels, "Month")
	whole[10] = []string{"44197", "13000", "7000", "6000"}
	whole[12] = []string{"44256", "13200", "7100", "6100"}
	p = crosstabBook(t, sheetSpec{name: "Data1", rows: whole})
	_, err := DetectWide(p, Options{Sheet: "Data1", Wide: &WideOptions{TotalLabel: "Total"}})
	var re *Error
	if !errors.As(err, &re) || re.Sheet != "Data1" || re.Row != 2 || !strings.Contains(err.Error(), "columns.value") || !strings.Contains(err.Error(), `"000 Hours"`) {
		t.Errorf("no columns.value: %v", err)
	}
	// a crosstab with a row "Frequency" where the ABS layout has it is
	// read as any crosstab
	p = crosstabBook(t, sheetSpec{name: "T", rows: [][]string{
		{"", "Males", "Females"}, {"North", "1", "2"}, {"South", "3", "4"}, {"East", "5", "6"}, {"Frequency", "9", "12"},
	}})
	if rows, _, d, _ := readDetected(t, p, "T", "count"); len(rows) != 8 || slices.Equal(d.Dims, []string{absPeriodDim}) {
		t.Errorf("a row Frequency: %v %v", d, rows)
	}
	// daily series: the full date
	p = crosstabBook(t, sheetSpec{name: "Data1", rows: absSheet(absMetaLabels, "Day")})
	rows, _, _, _ = readDetected(t, p, "Data1", "total")
	if r := findRow(rows, "2021-02-01", "Employed persons ; Persons ;"); r == nil || r[2] != "13100" {
		t.Errorf("daily periods: %v", rows)
	}
}

// A sheet whose metadata labels are not exactly the ABS run (a row
// renamed, two swapped) is refused naming the sheet, the row and the keys
// to set; dates that are not whole serial numbers are refused at their
// row. Never a guess at the layout.
func TestABSTimeSeriesRefusals(t *testing.T) {
	swapped := slices.Clone(absMetaLabels)
	swapped[5], swapped[6] = swapped[6], swapped[5]
	renamed := slices.Clone(absMetaLabels)
	renamed[0] = "Units"
	for _, tc := range []struct {
		name string
		rows [][]string
		row  int
		say  string
	}{
		{"swapped", absSheet(swapped, "Quarter"), 7, `"Series End" where the layout has "Series Start"`},
		{"renamed", absSheet(renamed, "Quarter"), 2, `"Units" where the layout has "Unit"`},
		{"text period", append(absSheet(absMetaLabels, "Quarter"), []string{"Mar-2021", "1", "2", "3"}), 14, "not a date serial number"},
		{"fraction", append(absSheet(absMetaLabels, "Quarter"), []string{"44300.5", "1", "2", "3"}), 14, "not a whole date serial number"},
		{"same quarter twice", append(absSheet(absMetaLabels, "Quarter"), []string{"44257", "1", "2", "3"}), 14, "also row 13"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := crosstabBook(t, sheetSpec{name: "Data1", rows: tc.rows})
			_, err := DetectWide(p, Options{Sheet: "Data1", Wide: &WideOptions{Value: "total", TotalLabel: "Total"}})
			var re *Error
			if !errors.As(err, &re) || re.Sheet != "Data1" || re.Row != tc.row || !strings.Contains(err.Error(), "set columns.dims") || !strings.Contains(err.Error(), tc.say) {
				t.Fatalf("%v, want a refusal at row %d saying %q and the keys to set", err, tc.row, tc.say)
			}
		})
	}
}
