package audit

// InputInfo says how a delimited text input was read: report.json
// "input". Workbooks, Arrow and Parquet files have none (their text is
// UTF-8 and their numbers typed), except a crosstab whose layout was
// detected (Layout).
type InputInfo struct {
	// Encoding is utf-8, utf-16le, utf-16be, latin-1 or windows-1252.
	Encoding string `json:"encoding,omitempty"`
	// BOM says the file started with a byte-order mark.
	BOM bool `json:"bom,omitempty"`
	// Delimiter is the field separator ("tab" for a tab).
	Delimiter string `json:"delimiter,omitempty"`
	// Decimal is the decimal mark numbers were read with: "." or ",".
	Decimal string `json:"decimal,omitempty"`
	// Detected lists what was detected rather than configured: encoding,
	// delimiter, decimal, and columns.dims, columns.across, columns.value
	// of a crosstab read without them.
	Detected []string `json:"detected,omitempty"`
	// Layout is the crosstab layout detected without columns.dims and
	// columns.across.
	Layout *DetectedLayout `json:"layout,omitempty"`
}

// DetectedLayout is a crosstab layout as detected: the keys it stands
// for and what it was found from.
type DetectedLayout struct {
	Dims   []string `json:"dims"`
	Across []string `json:"across"`
	Value  string   `json:"value,omitempty"`
	Note   string   `json:"note"`
}
