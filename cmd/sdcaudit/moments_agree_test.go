package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMomentsCommandAgreesWithRule runs the same values through `sdcaudit
// moments --values` and through `sdcaudit check` on a one-cell microdata
// table publishing moments up to order 4: the command and the moments rule
// must give the same verdict and the same reason (moments.Evaluate).
func TestMomentsCommandAgreesWithRule(t *testing.T) {
	cases := map[string][]int{
		"dominant":    {100, 5, 4, 3, 2, 1},
		"two large":   {100, 95, 4, 3, 2, 1},
		"spread":      {10, 12, 9, 11, 10, 13, 8, 12, 11, 10},
		"one value":   {42},
		"equal":       {7, 7, 7, 7},
		"with zeros":  {0, 0, 50, 3, 0, 1},
		"second near": {1000, 990, 980, 5, 4},
	}
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 25 {
		n := 2 + r.IntN(30)
		v := make([]int, n)
		for j := range v {
			v[j] = r.IntN(1 + r.IntN(10000))
		}
		if r.IntN(3) == 0 {
			v[r.IntN(n)] = 100000 + r.IntN(1000000) // a dominant value
		}
		cases[fmt.Sprintf("random %d", i)] = v
	}
	verdicts := map[string]int{}
	for name, vals := range cases {
		dir := t.TempDir()
		var csv strings.Builder
		csv.WriteString("g,v\n")
		for _, x := range vals {
			fmt.Fprintf(&csv, "a,%d\n", x)
		}
		data := filepath.Join(dir, "cell.csv")
		cfg := filepath.Join(dir, "cfg.yaml")
		must(t, os.WriteFile(data, []byte(csv.String()), 0o644))
		must(t, os.WriteFile(cfg, []byte("publish: [count, total, mean, sd, skewness, kurtosis]\n"), 0o644))

		var out, errOut bytes.Buffer
		code := run([]string{"moments", "--values", data, "--column", "v", "--json"}, &out, &errOut)
		if code > 1 {
			t.Fatalf("%s: moments exit %d: %s", name, code, errOut.String())
		}
		var cli struct{ Verdict, Reason string }
		must(t, json.Unmarshal(out.Bytes(), &cli))

		out.Reset()
		errOut.Reset()
		code = run([]string{"check", data, "--config", cfg, "--dims", "g", "--value", "v", "--out", filepath.Join(dir, "out"), "--quiet"}, &out, &errOut)
		if code > 1 {
			t.Fatalf("%s: check exit %d: %s", name, code, errOut.String())
		}
		b, err := os.ReadFile(filepath.Join(dir, "out", "cell.report.json"))
		must(t, err)
		var rep struct {
			Cells []struct {
				Findings []struct {
					Rule, Status, Message string
					Values                map[string]any
				}
			}
		}
		must(t, json.Unmarshal(b, &rep))
		status := map[string]string{"safe": "pass", "unsafe": "fail", "review": "review"}[cli.Verdict]
		seen := 0
		for _, c := range rep.Cells {
			for _, f := range c.Findings {
				if f.Rule != "moments" {
					continue
				}
				seen++
				if f.Status != status || f.Message != cli.Reason {
					t.Errorf("%s %v:\n command: %s: %s\n rule:    %s: %s", name, vals, cli.Verdict, cli.Reason, f.Status, f.Message)
				}
			}
		}
		if seen == 0 {
			t.Errorf("%s: the moments rule reported nothing", name)
		}
		verdicts[cli.Verdict]++
	}
	if verdicts["safe"] == 0 || verdicts["unsafe"] == 0 {
		t.Errorf("the cases reach only %v", verdicts)
	}
	t.Logf("verdicts: %v", verdicts)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
