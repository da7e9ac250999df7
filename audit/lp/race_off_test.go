//go:build !race

package lp

// raceEnabled: the tests run under the race detector (smaller inputs).
const raceEnabled = false
