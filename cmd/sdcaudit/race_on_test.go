//go:build race

package main

// raceEnabled is true under the race detector, which makes the corpus
// tests several times slower: TestCorpusAttack and
// TestCorpusReceivedRecoverable then cover the smaller corpus tables
// (corpusRaceTables), each checked in full.
const raceEnabled = true
