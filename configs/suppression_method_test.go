package configs

import (
	"strings"
	"testing"
)

func TestSuppressionMethod(t *testing.T) {
	def, _ := Parse("d.yaml", []byte("suppression: {secondary: true}\n"))
	s, err := Resolve(def)
	if err != nil || s.Suppression.Method != "lp" || !s.Suppression.MarginWeight.IsZero() {
		t.Fatalf("default method %q weight %v, %v", s.Suppression.Method, s.Suppression.MarginWeight, err)
	}
	hc, _ := Parse("h.yaml", []byte("suppression: {method: hypercube, margin_weight: 5}\n"))
	s, err = Resolve(hc)
	if err != nil || s.Suppression.Method != "hypercube" || s.Suppression.MarginWeight.String() != "5" {
		t.Fatalf("method %q weight %v, %v", s.Suppression.Method, s.Suppression.MarginWeight, err)
	}
	for _, bad := range []string{"suppression: {method: optimal}\n", "suppression: {margin_weight: -1}\n"} {
		c, _ := Parse("b.yaml", []byte(bad))
		if _, err := Resolve(c); err == nil || !strings.Contains(err.Error(), "suppression.m") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}
