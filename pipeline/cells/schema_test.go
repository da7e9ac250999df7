package cells

import (
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// TestSchemaOrders: a microdata table and an aggregate table publishing
// the same statistics release the same moment order (one mapping,
// audit.Statistic.MomentOrder), and the schema's columns keep their kinds.
func TestSchemaOrders(t *testing.T) {
	for _, tc := range []struct {
		publish, columns string
		order            int
	}{
		{"[count, total]", "count: n, total: x", 0},
		{"[count, mean]", "count: n, mean: a", 0},
		{"[count, mean, sd]", "count: n, mean: a, sd: s", 2},
		{"[count, mean, variance, median]", "count: n, mean: a, variance: v, median: md", 2},
		{"[count, mean, sd, skewness]", "count: n, mean: a, sd: s, skewness: g", 3},
		{"[count, mean, sd, skewness, kurtosis]", "count: n, mean: a, sd: s, skewness: g, kurtosis: k", 4},
		{"[count, {moments: {order: 3}}]", "count: n, moments: [a, b, c]", 3},
	} {
		micro, err := CompileSchema(settings(t, "microdata: {dims: [g], value: v}\nmeasure: {min: 0, max: 10}\npublish: "+tc.publish), "in.csv")
		if err != nil {
			t.Fatal(err)
		}
		agg, err := CompileSchema(settings(t, "columns: {dims: [g], "+tc.columns+"}"), "in.csv")
		if err != nil {
			t.Fatal(err)
		}
		if micro.order != tc.order || agg.order != tc.order {
			t.Errorf("%s: microdata order %d, aggregate order %d, want %d", tc.publish, micro.order, agg.order, tc.order)
		}
		if len(micro.columns) != len(agg.columns) {
			t.Errorf("%s: %d microdata columns, %d aggregate columns", tc.publish, len(micro.columns), len(agg.columns))
			continue
		}
		for i := range micro.columns {
			if micro.columns[i].stat != agg.columns[i].stat {
				t.Errorf("%s: column %d is %v and %v", tc.publish, i, micro.columns[i].stat, agg.columns[i].stat)
			}
		}
	}
	tab := (&Schema{mode: audit.Aggregate, columns: []statColumn{{audit.Statistic{Kind: audit.KindSD}, "s"}, {audit.Moment(2), "q"}}, order: 2}).newTable("x", "x.csv", "", settings(t, ""))
	if len(tab.Columns) != 2 || tab.Columns[1] != "m2" || tab.ColumnLabels[1] != "q" || tab.MomentOrder != 2 {
		t.Errorf("table columns %v labels %v order %d", tab.Columns, tab.ColumnLabels, tab.MomentOrder)
	}
}
