//go:build !race

package suppress

// raceEnabled: see race_on_test.go.
const raceEnabled = false
