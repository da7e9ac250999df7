package audit

import "testing"

func TestStatisticNamesAndOrders(t *testing.T) {
	want := map[string]int{"count": 0, "total": 0, "mean": 0, "sd": 2, "variance": 2, "median": 0, "min": 0, "max": 0, "skewness": 3, "kurtosis": 4, "m1": 1, "m2": 2, "m7": 7, "m100": 100}
	for name, order := range want {
		s, ok := ParseStatistic(name)
		if !ok {
			t.Errorf("%q does not parse", name)
			continue
		}
		if s.String() != name {
			t.Errorf("%q reads back as %q", name, s)
		}
		if s.MomentOrder() != order {
			t.Errorf("%s: order %d, want %d", name, s.MomentOrder(), order)
		}
	}
	for _, bad := range []string{"", "m", "m0", "m01", "m+2", "m-1", "m101", "moments", "mode", "Mean", "m1x"} {
		if s, ok := ParseStatistic(bad); ok {
			t.Errorf("%q parses as %v", bad, s)
		}
	}
	if o := PublishedOrder([]Statistic{{Kind: KindMean}, {Kind: KindSD}, {Kind: KindKurtosis}, Moment(3)}); o != 4 {
		t.Errorf("published order %d, want 4", o)
	}
}
