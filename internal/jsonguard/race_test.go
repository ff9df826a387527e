//go:build race

package jsonguard

// raceEnabled: the race detector adds its own allocations, so byte bounds
// on allocation are looser under it.
const raceEnabled = true
