package codex

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fuzzOutcomes are the process outcomes a fuzz input can select.
var fuzzOutcomes = []Outcome{{}, {ExitCode: 1}, {Signal: "SIGKILL", ExitCode: -1}, {Cancelled: true}}

// FuzzParser parses whole streams and checks, for any input: no panic; zero
// violations of CheckStream, CheckRun (the transcript mirror) and
// CheckResponse; the same result under a random chunking and without
// streaming; and no valid checkpoint unless an independent reading of the
// input (encoding/json, line by line) shows it was earned.
func FuzzParser(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/public/*.jsonl")
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		f.Add(b, byte(0))
	}
	f.Add([]byte(lines(lThread, lTurn, lMsg, lDone)), byte(0))
	f.Add([]byte(lines(lThread, lTurn, `{"type":"error","message":"Reconnecting... 1/5"}`, lFailed)), byte(1))
	f.Add([]byte(lines(lThread, lTurn, `{"type":"item.started","item":{"id":"a","type":"command_execution","command":"x","status":"in_progress"}}`)), byte(2))
	f.Fuzz(func(t *testing.T, data []byte, mode byte) {
		out := fuzzOutcomes[int(mode)%len(fuzzOutcomes)]
		stdout := string(data)
		opts := Options{Streaming: true}
		whole, v := run(stdout, "", opts, out, nil)
		if len(v) > 0 {
			t.Fatalf("violations:\n%s", v)
		}
		h := fnv.New64a()
		h.Write(data)
		chunked, _ := run(stdout, "", opts, out, chunkings(h.Sum64() + uint64(mode))[3].Mk)
		if !cmp.Equal(whole, chunked) {
			t.Fatalf("random chunking differs (-whole +chunked):\n%s", cmp.Diff(whole, chunked))
		}
		plain, v := run(stdout, "", Options{}, out, func(s string) io.Reader { return &chunkReader{S: s, Sizes: []int{1}} })
		if len(v) > 0 {
			t.Fatalf("non-streaming violations:\n%s", v)
		}
		if !cmp.Equal(whole.Response, plain.Response) {
			t.Fatalf("non-streaming response differs:\n%s", cmp.Diff(whole.Response, plain.Response))
		}
		if cp := whole.Response.Checkpoint; cp != nil && cp.Valid {
			if why := unearned(data, cp.State.ResumeID, out); why != "" {
				t.Fatalf("valid checkpoint not earned: %s", why)
			}
		}
	})
}

// unearned re-reads the input independently of the parser and says why a
// valid checkpoint would not be deserved ("" when it is).
func unearned(data []byte, resumeID string, out Outcome) string {
	if !out.Clean() {
		return "outcome is not clean"
	}
	// A leading byte order mark is tolerated (package ndjson).
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	threads, last := 0, ""
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.Trim(line, " \t\r")) == 0 {
			continue
		}
		var ev struct {
			Type     *string `json:"type"`
			ThreadID any     `json:"thread_id"`
		}
		var m map[string]any
		if json.Unmarshal(line, &m) != nil || json.Unmarshal(line, &ev) != nil || ev.Type == nil {
			return "a line is not a JSON object with a type: " + string(line)
		}
		if last == "turn.completed" {
			return "a line follows turn.completed"
		}
		last = *ev.Type
		if last == "thread.started" {
			threads++
			if ev.ThreadID != resumeID {
				return "thread.started names another thread"
			}
		}
	}
	switch {
	case threads != 1:
		return "not exactly one thread.started"
	case last != "turn.completed":
		return "the stream does not end with turn.completed"
	}
	return ""
}
