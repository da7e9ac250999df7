package audit

// InputInfo says how a delimited text input was read: report.json
// "input". Workbooks, Arrow and Parquet files have none (their text is
// UTF-8 and their numbers typed).
type InputInfo struct {
	// Encoding is utf-8, utf-16le, utf-16be, latin-1 or windows-1252.
	Encoding string `json:"encoding"`
	// BOM says the file started with a byte-order mark.
	BOM bool `json:"bom,omitempty"`
	// Delimiter is the field separator ("tab" for a tab).
	Delimiter string `json:"delimiter"`
	// Decimal is the decimal mark numbers were read with: "." or ",".
	Decimal string `json:"decimal"`
	// Detected lists what was detected rather than configured: encoding,
	// delimiter, decimal.
	Detected []string `json:"detected,omitempty"`
}
