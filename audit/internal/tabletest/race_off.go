//go:build !race

package tabletest

// RaceEnabled: see race_on.go.
const RaceEnabled = false
