package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
)

// overrideData is a 3x3 frequency table (one record per contributor) in
// which only A/x has fewer than 10 contributors.
func overrideData() string {
	var b strings.Builder
	b.WriteString("r,s\n")
	for _, r := range []string{"A", "B", "C"} {
		for _, s := range []string{"x", "y", "z"} {
			n := 20 + len(b.String())%7
			if r == "A" && s == "x" {
				n = 3
			}
			for range n {
				fmt.Fprintf(&b, "%s,%s\n", r, s)
			}
		}
	}
	return b.String()
}

const overrideBase = "microdata: {dims: [r, s]}\n"

func withStatus(t *audit.Table, st audit.Status) []string {
	var out []string
	for _, c := range t.Cells {
		if c.Status == st {
			out = append(out, strings.Join(c.Key, "/"))
		}
	}
	return out
}

func cellOf(t *audit.Table, key string) *audit.Cell {
	for _, c := range t.Cells {
		if strings.Join(c.Key, "/") == key {
			return c
		}
	}
	return nil
}

func overrideFinding(c *audit.Cell) (audit.Finding, bool) {
	for _, f := range c.AllFindings() {
		if f.Rule == "override" {
			return f, true
		}
	}
	return audit.Finding{}, false
}

func auditOverrides(t *testing.T, ovs string) *audit.Table {
	t.Helper()
	tab, err := auditText(t, overrideData(), overrideBase+"overrides:\n"+ovs)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestOverrides(t *testing.T) {
	base, err := auditText(t, overrideData(), overrideBase)
	if err != nil {
		t.Fatal(err)
	}
	if got := withStatus(base, audit.StatusPrimary); !slices.Equal(got, []string{"A/x"}) {
		t.Fatalf("baseline primaries %v, want A/x", got)
	}
	baseSec := withStatus(base, audit.StatusSecondary)
	if len(baseSec) == 0 {
		t.Fatal("baseline has no secondary cells")
	}

	t.Run("safe", func(t *testing.T) {
		tab := auditOverrides(t, "  - {cell: {r: A, s: x}, action: safe, reason: published last year, by: J. Smith}\n")
		c := cellOf(tab, "A/x")
		if c.Status != audit.StatusOK {
			t.Errorf("A/x status %s, want ok", c.Status)
		}
		if got := withStatus(tab, audit.StatusSecondary); len(got) != 0 {
			t.Errorf("secondaries %v protect a cell marked safe", got)
		}
		f, ok := overrideFinding(c)
		if !ok || !strings.Contains(f.Message(), "J. Smith") || !strings.Contains(f.Message(), "published last year") {
			t.Errorf("override finding %+v", f)
		}
		// the rule's own finding stays in the reports
		if !slices.ContainsFunc(c.AllFindings(), func(f audit.Finding) bool { return f.Rule == "threshold" && f.Outcome == audit.Fail }) {
			t.Errorf("the threshold finding is gone: %+v", c.AllFindings())
		}
		if len(tab.Overrides) != 1 || tab.Overrides[0].By != "J. Smith" || tab.Overrides[0].Status != audit.StatusOK {
			t.Errorf("table overrides %+v", tab.Overrides)
		}
	})

	t.Run("suppress", func(t *testing.T) {
		tab := auditOverrides(t, "  - {cell: {r: C, s: z}, action: unsafe, reason: a known respondent, by: K. Lee}\n")
		if got := withStatus(tab, audit.StatusPrimary); !slices.Equal(got, []string{"A/x", "C/z"}) {
			t.Errorf("primaries %v, want A/x and C/z", got)
		}
		// C/z is protected by secondary suppression like any primary cell
		for _, r := range tab.Audit.Cells {
			if strings.Join(r.Key, "/") == "C/z" && (!r.Protected || r.Exact) {
				t.Errorf("C/z not protected: %+v", r)
			}
		}
	})

	t.Run("protected", func(t *testing.T) {
		var ovs strings.Builder
		for _, k := range baseSec {
			rs := strings.SplitN(k, "/", 2)
			fmt.Fprintf(&ovs, "  - {cell: {r: %q, s: %q}, action: protected, reason: key figure, by: M. Roe}\n", rs[0], rs[1])
		}
		tab := auditOverrides(t, ovs.String())
		sec := withStatus(tab, audit.StatusSecondary)
		for _, k := range baseSec {
			if slices.Contains(sec, k) {
				t.Errorf("protected cell %s suppressed as secondary", k)
			}
			if _, ok := overrideFinding(cellOf(tab, k)); !ok {
				t.Errorf("%s has no override finding", k)
			}
		}
		if len(sec) == 0 {
			t.Errorf("no other secondary pattern chosen")
		}
		for _, r := range tab.Audit.Cells {
			if strings.Join(r.Key, "/") == "A/x" && (!r.Protected || r.Exact) {
				t.Errorf("A/x not protected by the new pattern %v: %+v", sec, r)
			}
		}
		if len(tab.Overrides) != len(baseSec) {
			t.Errorf("%d overrides listed, want %d", len(tab.Overrides), len(baseSec))
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := auditText(t, overrideData(), overrideBase+`overrides:
  - {cell: {r: D, s: x}, action: safe, reason: r, by: b}
  - {cell: {r: A, sx: x}, action: safe, reason: r, by: b}
`)
		var ce *configs.Error
		if !errors.As(err, &ce) {
			t.Fatalf("err %v, want a configuration error", err)
		}
		for _, want := range []string{"test.yaml:3: override r=D, s=x matches no cell", `test.yaml:4: override names dimension "sx"`, "did you mean s?"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
	})
}
