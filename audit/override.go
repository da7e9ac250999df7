package audit

// Override records an output checker's a-priori decision applied to a
// cell (see configs.Override): every report lists it with its reason and
// author. Reasons and names are the checker's words, not confidential
// values.
type Override struct {
	Key    []string `json:"-"`
	Cell   string   `json:"cell"` // the key as "dim=level, ..."
	Action string   `json:"action"`
	Reason string   `json:"reason"`
	By     string   `json:"by"`
	Source string   `json:"source"`
	// Status is the cell's status once the table is decided.
	Status Status `json:"status"`
}
