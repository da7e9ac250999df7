package main

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
	Exactly   int      `json:"exactly_disclosed"`
	Warnings  []string `json:"warnings"`
	NoMargins bool     `json:"no_margins"`
}
