package meansd

import (
	"context"
	"reflect"
	"testing"
)

// TestSpaceTable1 checks the seed's Table 1 (5-point scale) with half-even
// rounding and the ERRATA corrections (n = 5: 126 samples; exact keys give
// the 2 dp column).
func TestSpaceTable1(t *testing.T) {
	rows, err := Space(context.Background(), SpaceRequest{Min: "1", Max: "5", N: []int{3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		DPs: []int{ExactDP, 2, 1}, Rounding: HalfEven})
	if err != nil {
		t.Fatal(err)
	}
	samples := []uint64{35, 70, 126, 210, 330, 495, 715, 1001, 1365, 1820}
	dp2 := []uint64{33, 56, 79, 101, 121, 141, 161, 181, 201, 221}
	dp1 := []uint64{33, 56, 79, 101, 121, 133, 135, 157, 130, 149}
	for i, r := range rows {
		want := []uint64{dp2[i], dp2[i], dp1[i]}
		if r.Samples != samples[i] || !reflect.DeepEqual(r.Unique, want) {
			t.Errorf("n=%d: %d samples, unique %v; want %d, %v", r.N, r.Samples, r.Unique, samples[i], want)
		}
	}
	// half-up changes a 1 dp figure (ERRATA: n = 12 gives 144)
	rows, err = Space(context.Background(), SpaceRequest{Min: "1", Max: "5", N: []int{12}, DPs: []int{1}, Rounding: HalfUp})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Unique[0] != 144 {
		t.Errorf("half-up n=12 1dp: %d, want 144", rows[0].Unique[0])
	}
}

// TestSpaceCorrections checks the ERRATA corrections of Tables 4, 5 and
// the 12-point row used by the benchmark.
func TestSpaceCorrections(t *testing.T) {
	for _, c := range []struct {
		max  string
		n    int
		want []uint64
	}{
		{"10", 7, []uint64{530}}, {"11", 6, []uint64{530}}, {"11", 10, []uint64{794}},
	} {
		rows, err := Space(context.Background(), SpaceRequest{Min: "1", Max: c.max, N: []int{c.n}, DPs: []int{2}, Rounding: HalfEven})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rows[0].Unique, c.want) {
			t.Errorf("1..%s n=%d: %v, want %v", c.max, c.n, rows[0].Unique, c.want)
		}
	}
	rows, err := Space(context.Background(), SpaceRequest{Min: "1", Max: "12", N: []int{12}, DPs: []int{ExactDP, 2, 1}, Rounding: HalfEven})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Samples != 1352078 || !reflect.DeepEqual(rows[0].Unique, []uint64{1244, 1244, 364}) {
		t.Errorf("12-point n=12: %d samples %v", rows[0].Samples, rows[0].Unique)
	}
}
