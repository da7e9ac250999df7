//go:build race

package suppress

// raceEnabled is true under the race detector, which makes the LP-heavy
// tests several times slower: they then cover fewer seeds.
const raceEnabled = true
