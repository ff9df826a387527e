package main

import (
	"bytes"
	"testing"

	"github.com/agentwire/agentwire/fuzz"
)

// TestArtifactData pins what import and engine replay for each form of
// artifact: a raw libFuzzer input is decoded once, and a file already in
// Go's corpus format is taken as it is, not decoded a second time (the
// FuzzGemini artifacts of session 3 were of that form and lost 4 bytes).
func TestArtifactData(t *testing.T) {
	seed := []byte(`{"candidates":[{"content":{"parts":[{"functionCall":{}}]}}]}`)
	for _, tc := range []struct {
		name string
		in   []byte
		want []byte
		ok   bool
	}{
		{"raw libFuzzer input", fuzz.LibFuzzerInput(seed), seed, true},
		{"raw input with dead weight after its length", append(fuzz.LibFuzzerInput(seed), "tail"...), seed, true},
		{"go test fuzz v1 file", fuzz.CorpusFile(seed), seed, true},
		{"go test fuzz v1 file of a libFuzzer-shaped value", fuzz.CorpusFile(fuzz.LibFuzzerInput(seed)), fuzz.LibFuzzerInput(seed), true},
		{"too short to reach the function", []byte{0, 0, 0, 1}, nil, false},
	} {
		got, ok := artifactData(tc.in)
		if ok != tc.ok || !bytes.Equal(got, tc.want) {
			t.Errorf("%s: artifactData = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
