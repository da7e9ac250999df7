package moments

import "testing"

// A published domain maximum caps the intruder's bracket for the maximum.
func TestAssessClampsBracketToDomain(t *testing.T) {
	s, err := FromValues([]float64{1, 2, 3, 3, 4, 5, 5}, 2)
	if err != nil {
		t.Fatal(err)
	}
	free := Assess(s, nil, Options{})
	capped := Assess(s, nil, Options{DomainMax: 5, HasDomainMax: true})
	last := func(a Assessment) Bracket { return a.Orders[len(a.Orders)-1].Bracket }
	if last(free).Hi <= 5 {
		t.Fatalf("test needs an unclamped bracket above 5, got %v", last(free))
	}
	b := last(capped)
	if b.Hi != 5 || b.Lo > b.Hi || b.WidthPct >= last(free).WidthPct {
		t.Fatalf("clamped bracket %+v, unclamped %+v", b, last(free))
	}
	if got := (Bracket{Lo: 2, Hi: 4, WidthPct: 50}).Clamp(10); got.Hi != 4 || got.WidthPct != 50 {
		t.Fatalf("a domain above the bracket changes it: %+v", got)
	}
}
