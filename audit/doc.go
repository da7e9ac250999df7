// Package audit holds the domain model of sdcaudit: tables and their
// cells, findings with the figures behind them, statuses and how a cell's
// findings decide its status (Decide), a table's structure (axes, margins,
// column roles), the published statistics, the results of secondary
// suppression and of the interval audit, overrides and the run's trail.
//
// The algorithms that act on the model live in its subpackages: the
// suppression method (audit/suppress), the interval audit
// (audit/intervals) over the table's relations (audit/relations), linked
// tables (audit/link), structure inference (audit/structure), the simplex
// (audit/lp). Open this package to add a field to a table, a cell or a
// finding, or to change how findings decide a status.
//
// A Table is built by the pipeline from a reader (microdata grouped into
// cells, or an aggregate table mapped to roles), every Cell is evaluated by
// the rules, each rule leaving a Finding, and Decide turns the findings into
// one Status per cell. Writers only read the result.
//
// Numbers that come from input files are kept as exact decimals (decimal.Dec) so
// that no verdict depends on floating-point rounding.
package audit
