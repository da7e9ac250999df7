package readers

// The Australian Bureau of Statistics' time-series spreadsheet layout
// (every ABS time-series workbook's Data sheets, as readabs reads them):
// the series descriptions in row 1 from column B ("Quarterly hours worked
// in all jobs ;  Market ;"), nine metadata rows whose column-A labels are
// exactly Unit, Series Type, Data Type, Frequency, Collection Month,
// Series Start, Series End, No. Obs and Series ID, then one row per
// period from row 11, column A holding the period's date (an Excel date
// serial number, date-formatted in the published file). The descriptions
// are the header (one column dimension, the series), the metadata rows
// are folded into each column's description, and column A below holds
// the row labels: a date serial there is a label, shown as the period it
// is, never a value.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// absMetaLabels are the column-A labels of the ABS metadata rows, in the
// order of rows 2-10.
var absMetaLabels = []string{"Unit", "Series Type", "Data Type", "Frequency", "Collection Month", "Series Start", "Series End", "No. Obs", "Series ID"}

// ABS time-series dimension names: the periods down; the series across,
// a column dimension the sheet does not name (AcrossDefault).
const (
	absPeriodDim = "period"
	absSeriesDim = AcrossDefault
)

// absMinLabels of the nine metadata labels in their rows make a sheet
// read as the ABS layout (refused unless all nine are there); with fewer
// it is read as any crosstab.
const absMinLabels = 5

// absFirstBody is the first body row of the ABS layout.
const absFirstBody = 2 + 9

// absMaxListed bounds the series listed by ID in the layout note.
const absMaxListed = 20

// detectABSTimeSeries recognises the ABS time-series layout in g's sheet.
// ok is false when the sheet does not look like one (column A of rows 2-10
// holds fewer than absMinLabels of the metadata labels in their rows, or
// row 1 has a label in column A):
// detection then goes on as for any crosstab. A sheet that has some of
// the labels but not exactly the run, or whose period column holds
// anything but dates, is refused naming the row and the keys to set.
// When ok, w holds the keys (columns.value as given: without it the sheet
// is refused, since nothing in the layout says what the body holds), w.shape the table's parts, and column A of the body rows
// of lay.Rows the periods as text.
func detectABSTimeSeries(g *detectGrid, w *WideOptions) (ok bool, err error) {
	lay := g.lay
	if g.raw(1, 0) != "" || len(g.rows) < absFirstBody {
		return false, nil
	}
	found := 0
	for i, l := range absMetaLabels {
		if strings.TrimSpace(g.raw(2+i, 0)) == l {
			found++
		}
	}
	if found < absMinLabels {
		return false, nil // an ordinary crosstab may have a row "Unit" or "Frequency"
	}
	for i, l := range absMetaLabels {
		if got := g.raw(2+i, 0); strings.TrimSpace(got) != l {
			return false, g.errf(2+i, 0, "column A reads as the ABS time-series layout's metadata (%d of its 9 labels in rows 2-10) but row %d has %q where the layout has %q (Unit, Series Type, Data Type, Frequency, Collection Month, Series Start, Series End, No. Obs, Series ID): set %s, and input.range to the table", found, 2+i, got, l, wideKeys)
		}
	}
	// the series: every column of row 1 right of A, with its metadata
	_, _, last := span(g.rows[0])
	if last < 1 {
		return false, g.errf(1, -1, "the ABS time-series layout's row 1 has no series description right of column A: set %s", wideKeys)
	}
	meta := func(k, c int) string { return strings.TrimSpace(g.raw(2+k, c)) }
	freq := ""
	for c := 1; c <= last; c++ {
		if strings.TrimSpace(g.raw(1, c)) == "" {
			return false, g.errf(1, c, "column %s has no series description in the ABS time-series layout's row 1: set %s, and input.range to the table", colName(c), wideKeys)
		}
		f := meta(3, c)
		if c > 1 && f != freq {
			return false, g.errf(5, c, "series of different frequencies on one sheet (%q in column %s, %q in column B): their periods are not one row dimension; read the columns of one frequency with input.range", f, colName(c), freq)
		}
		freq = f
	}
	// the periods: column A from row 11 down to the first blank row
	end := absFirstBody
	periods := map[string]int{}
	for ; end <= len(g.rows); end++ {
		if n, _, _ := span(g.rows[end-1]); n == 0 {
			break
		}
		v := g.raw(end, 0)
		p, perr := absPeriod(v, freq)
		if perr != nil {
			return false, g.errf(end, 0, "the ABS time-series layout's column A holds the periods as dates, but %q is %v: set %s, and input.range to the table", v, perr, wideKeys)
		}
		if q, dup := periods[p]; dup {
			return false, g.errf(end, 0, "period %s (%s) in row %d is also row %d's (Frequency %q): set %s", p, v, end, q, freq, wideKeys)
		}
		periods[p] = end
	}
	if end == absFirstBody {
		return false, g.errf(absFirstBody, -1, "the ABS time-series layout has no period row from row %d: set %s", absFirstBody, wideKeys)
	}
	for r := absFirstBody; r < end; r++ {
		p, _ := absPeriod(lay.Rows[r-1][0], freq)
		lay.Rows[r-1][0] = p
		g.rows[r-1][0] = p
	}
	sh := &wideShape{left: 0, nL: 1, header: []int{1}, groups: [][]int{{1}}}
	for r := 2; r < absFirstBody; r++ {
		sh.units = append(sh.units, r)
	}
	d := &WideDetection{Dims: []string{absPeriodDim}, Across: []string{absSeriesDim}, Detected: []string{"columns.dims", "columns.across"}}
	d.Note = fmt.Sprintf("layout detected: the ABS time-series layout (column A rows 2-10: %s): columns.dims [%s] from the dates in column A (rows %d-%d, Frequency %s, shown as %s), columns.across [%s] from the series descriptions in row 1 (columns B-%s); %s",
		strings.Join(absMetaLabels, ", "), absPeriodDim, absFirstBody, end-1, freq, absShown(freq), absSeriesDim, colName(last), absSeriesNote(meta, last, freq))
	// what the body holds: as given (the metadata labels, "Frequency"
	// among them, say nothing of it; the Unit names a measure, not a
	// statistic)
	if w.Value == "" && len(w.Stats) == 0 {
		return false, g.errf(2, 1, "the ABS time-series layout's series are in %q (Unit, row 2): say what the body holds with columns.value (count, total, mean, ...), or --value", meta(0, 1))
	}
	d.Value = w.Value
	w.Dims, w.Across, w.Value = d.Dims, d.Across, d.Value
	w.shape = sh
	lay.Detection = d
	return true, nil
}

// absSeriesNote describes the series' metadata folded into the columns'
// description: what every series shares once, the rest per column, the
// series IDs of at most absMaxListed columns.
func absSeriesNote(meta func(k, c int) string, last int, freq string) string {
	var shared, per []string
	for k, l := range absMetaLabels {
		if l == "Frequency" || l == "Series ID" {
			continue
		}
		same := true
		for c := 2; c <= last; c++ {
			if meta(k, c) != meta(k, 1) {
				same = false
			}
		}
		if same {
			v := meta(k, 1)
			if p, err := absPeriod(v, freq); err == nil && (l == "Series Start" || l == "Series End") {
				v = p
			}
			shared = append(shared, fmt.Sprintf("%s %q", l, v))
		} else {
			per = append(per, l)
		}
	}
	msg := "series metadata folded into the columns' description"
	if len(shared) > 0 {
		msg += ": every series " + strings.Join(shared, ", ")
	}
	if len(per) > 0 {
		msg += "; by column: " + strings.Join(per, ", ")
	}
	var ids []string
	for c := 1; c <= last && len(ids) < absMaxListed; c++ {
		ids = append(ids, colName(c)+" "+meta(8, c))
	}
	msg += "; Series ID " + strings.Join(ids, ", ")
	if last > absMaxListed {
		msg += fmt.Sprintf(" and %d more", last-absMaxListed)
	}
	return msg
}

// absShown says how a period of a frequency is shown.
func absShown(freq string) string {
	if absMonthly(freq) {
		return "year-month of the period's last month"
	}
	return "year-month-day"
}

// absMonthly reports whether periods of a frequency are shown by month
// (the ABS dates such a period by its last month).
func absMonthly(freq string) bool {
	switch strings.ToLower(freq) {
	case "month", "quarter", "half year", "annual", "year":
		return true
	}
	return false
}

// absPeriod is the period a date serial number of column A is: 31017 is
// 1984-12 for a quarterly series, 1984-12-01 for a daily one. A serial
// must be a whole number of days from 1900-03-01 (61) to 9999-12-31.
func absPeriod(v, freq string) (string, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) {
		return "", fmt.Errorf("not a date serial number")
	}
	if f != math.Trunc(f) || f < 61 || f > 2958465 {
		return "", fmt.Errorf("not a whole date serial number of 1900-03-01 to 9999-12-31")
	}
	t := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(f))
	if absMonthly(freq) {
		return t.Format("2006-01"), nil
	}
	return t.Format("2006-01-02"), nil
}
