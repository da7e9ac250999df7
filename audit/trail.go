package audit

import "github.com/sdcaudit/sdcaudit/audit/decimal"

// Trail is the audit trail of a run or of one table: which sdcaudit, which
// profile, every rule with its resolved parameters, the suppression
// settings, and each input file read. It holds no confidential values
// (input names are base names, never paths) and is written into
// report.json, summary.json, summary.html and the workbook's summary
// sheet.
type Trail struct {
	// Sdcaudit is the version of the program.
	Sdcaudit string `json:"sdcaudit"`
	// Timestamp is the run's wall-clock time (RFC 3339), set only when
	// asked (--timestamp): outputs are otherwise byte-identical for
	// identical input.
	Timestamp string `json:"timestamp,omitempty"`
	// Profile, Rules and Suppression are the resolved settings. In a run
	// summary they are omitted when the tables were audited with
	// different settings (each table's report has its own).
	Profile     string            `json:"profile,omitempty"`
	Rules       []RuleTrail       `json:"rules,omitempty"`
	Suppression *SuppressionTrail `json:"suppression,omitempty"`
	// Inputs are the files read: one for a table's report, every input
	// of the run in the summary.
	Inputs []InputTrail `json:"inputs"`
}

// RuleTrail is one rule of the resolved configuration.
type RuleTrail struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	// Params are the rule's parameters with defaults filled in, keyed by
	// their configuration names.
	Params map[string]any `json:"params"`
}

// SuppressionTrail is the resolved suppression configuration.
type SuppressionTrail struct {
	Secondary  bool        `json:"secondary"`
	Audit      bool        `json:"audit"`
	Method     string      `json:"method,omitempty"`
	Cost       string      `json:"cost"`
	Protection decimal.Dec `json:"protection"`
	TimeLimit  string      `json:"time_limit"`
	// HierarchyFiles are the tau-argus hierarchy files read
	// (suppression.hierarchy_files), by dimension.
	HierarchyFiles []HierarchyFileTrail `json:"hierarchy_files,omitempty"`
}

// HierarchyFileTrail is one hierarchy file as read.
type HierarchyFileTrail struct {
	Dim    string `json:"dim"`
	Name   string `json:"name"` // the file's base name
	SHA256 string `json:"sha256"`
}

// InputTrail is one input file (or one sheet of a workbook) as read.
type InputTrail struct {
	// Name is the file's base name.
	Name string `json:"name"`
	// Size and SHA256 are those of the file's bytes as read.
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Rows is the number of data rows read (header excluded).
	Rows int64 `json:"rows"`
	// Format is the reader used (csv, tsv, xlsx, arrow, arrows, parquet).
	Format   string `json:"format"`
	Sheet    string `json:"sheet,omitempty"`
	Range    string `json:"range,omitempty"`
	Encoding string `json:"encoding,omitempty"`
}
