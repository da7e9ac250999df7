package meansd

import (
	"context"
	"testing"
)

func TestDisguise(t *testing.T) {
	req := DisguiseRequest{Values: []string{"1", "1", "2", "3", "4", "4", "5"}, Min: "1", Max: "5",
		Methods: []Method{SplitHalf, Bootstrap, VariableWith, VariableWithout}, Seed: 7, DP: 3, MinSolutions: 2}
	rep, err := Disguise(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mean != "2.857" || rep.SD != "1.574" || rep.Solutions != 2 {
		t.Errorf("truth %s/%s %d", rep.Mean, rep.SD, rep.Solutions)
	}
	if len(rep.Disguises) != 4 {
		t.Fatalf("%d disguises", len(rep.Disguises))
	}
	again, _ := Disguise(context.Background(), req)
	for i := range rep.Disguises {
		if rep.Disguises[i] != again.Disguises[i] {
			t.Errorf("not reproducible with a fixed seed: %+v vs %+v", rep.Disguises[i], again.Disguises[i])
		}
	}
	// the true sample is among the solutions of its own statistics
	for _, d := range rep.Disguises {
		if d.TrueIncluded && d.Solutions == 0 {
			t.Errorf("%+v: true sample included but no solution", d)
		}
	}
}
