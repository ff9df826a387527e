//go:build !race

package jsonguard

const raceEnabled = false
