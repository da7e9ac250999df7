//go:build race

package tabletest

// RaceEnabled is true when the tests run under the race detector, which
// makes the simplex several times slower: the heaviest tests then check
// fewer random tables or seeds (each still asserts everything it checks).
const RaceEnabled = true
