package cells

import "testing"

// TestMarginsAgreeWithOracleTextKeys: margins found by string keys, as
// when the levels of a table's dimensions do not pack into 64 bits, agree
// with the per-record oracle as the packed keys do.
func TestMarginsAgreeWithOracleTextKeys(t *testing.T) {
	marginsAgreeWithOracle(t, Tuning{TextKeys: true})
}
