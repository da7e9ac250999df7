// Package suppress chooses secondary suppressions: for a table's primary
// cells it picks the complementary cells to withhold (the lp, joint and
// hypercube methods; Protect) so that the interval audit (package
// intervals) calls every primary protected, over the table's relations
// (package relations).
package suppress
