//go:build race

package pipeline

// raceEnabled is true under the race detector, which makes the
// secondary suppression of the heavy tests several times slower: they
// then run fewer generated tables (each test says which and why it still
// proves its point), the plain run keeps the full set.
const raceEnabled = true
