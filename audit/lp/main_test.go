package lp

import (
	"os"
	"testing"
)

// TestMain runs every test of the package with checkNext set: each entering
// column the dense pivot row's pass chooses is checked against
// devexEntering's scan (a panic on any difference).
func TestMain(m *testing.M) {
	checkNext = true
	os.Exit(m.Run())
}
