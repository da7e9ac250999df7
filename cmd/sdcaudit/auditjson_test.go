package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// runAudit runs `sdcaudit audit` with args and --json and decodes its
// report; out is what it printed (stdout then stderr), for messages.
func runAudit(t *testing.T, args ...string) (code int, res auditResult, out string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code = run(append(append([]string{"audit"}, args...), "--json"), &stdout, &stderr)
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("exit %d, %v:\n%s%s", code, err, stdout.String(), stderr.String())
	}
	return code, res, stdout.String() + stderr.String()
}

// auditResult is the part of `sdcaudit audit --json` the tests read: each
// cell's key and interval, the count of exactly disclosed cells, the
// warnings and whether no margin was found.
type auditResult struct {
	Cells []struct {
		Key       map[string]string `json:"key"`
		Lo        *float64          `json:"lo"`
		Hi        *float64          `json:"hi"`
		Exact     bool              `json:"exact"`
		Protected bool              `json:"protected"`
	} `json:"cells"`
	Exactly      int      `json:"exactly_disclosed"`
	Undetermined int      `json:"undetermined"`
	Warnings     []string `json:"warnings"`
	NoMargins    bool     `json:"no_margins"`
}
