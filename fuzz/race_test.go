//go:build race

package fuzz_test

// raceEnabled shrinks the generated giant inputs under the race detector,
// which slows the readers' Go code tenfold.
const raceEnabled = true
