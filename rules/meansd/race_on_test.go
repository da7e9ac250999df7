//go:build race

package meansd

// raceEnabled is true under the race detector. The solver starts no
// goroutine (TestAnalyseDPAgainstQueries, TestMagnitudeWide and
// TestBudgetIsDeterministic call it from several, and keep their size),
// so the brute-force comparisons on one goroutine (TestAgainstBruteForce,
// TestAnalyseDPAgainstBruteForce, TestVerdictAgainstBruteForce,
// TestOffScaleAgainstBruteForce), several times slower under the
// detector and with nothing for it to find, then run fewer random
// requests: rapid.checks 20 instead of 100 (unless the command line sets
// it) and one seed of TestOffScaleAgainstBruteForce (150 requests, every
// rounding). The plain run keeps the full set.
const raceEnabled = true
