//go:build !race

package meansd

// raceEnabled: see race_on_test.go.
const raceEnabled = false
