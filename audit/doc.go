// Package audit holds the domain model of sdcaudit — tables, cells, findings
// and statuses — and the table-level decisions taken after every cell has
// been evaluated (primary marking, secondary suppression, interval audit).
//
// A Table is built by the pipeline from a reader (microdata grouped into
// cells, or an aggregate table mapped to roles), every Cell is evaluated by
// the rules, each rule leaving a Finding, and Decide turns the findings into
// one Status per cell. Writers only read the result.
//
// Numbers that come from input files are kept as exact decimals (decimal.Dec) so
// that no verdict depends on floating-point rounding.
package audit
