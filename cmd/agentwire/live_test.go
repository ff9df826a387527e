package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls until out holds want, failing after a generous bound (the
// machine may be loaded; this is not a timing test).
func waitFor(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the output so far:\n%s", want, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func captureLines(t *testing.T) []string {
	t.Helper()
	lines := strings.SplitAfter(string(mustRead(t, filepath.Join(corpusDir, "codex/codex@0.169.0/tool-success/stdout"))), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) < 4 {
		t.Fatalf("capture of %d lines", len(lines))
	}
	return lines
}

// runLive runs the command in-process on stdin with a live stdout.
func runLive(stdin io.Reader, args ...string) (*syncBuffer, *syncBuffer, chan int) {
	out, errb := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(args, stdin, out, errb) }()
	return out, errb, done
}

func wait(t *testing.T, done chan int, errb *syncBuffer) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(60 * time.Second):
		t.Fatalf("the command did not end; stderr %s", errb.String())
	}
	return -1
}

// TestParseStdinLive: parse - prints the first timeline lines while the
// rest of the capture has not been written yet.
func TestParseStdinLive(t *testing.T) {
	lines := captureLines(t)
	pr, pw := io.Pipe()
	out, errb, done := runLive(pr, "parse", "--color", "never", "-")
	if _, err := io.WriteString(pw, lines[0]+lines[1]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "step.started")
	if strings.Contains(out.String(), "response") {
		t.Fatal("the response came before the end of the input")
	}
	io.WriteString(pw, strings.Join(lines[2:], ""))
	pw.Close()
	if code := wait(t, done, errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"<stdin>  codex  live", "run.finished", "response", "checkpoint  valid", "violations none"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}

// TestFollow: --follow prints events of a file as it grows and ends at the
// run's terminal.
func TestFollow(t *testing.T) {
	lines := captureLines(t)
	path := filepath.Join(t.TempDir(), "capture.jsonl")
	if err := os.WriteFile(path, []byte(lines[0]+lines[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errb, done := runLive(strings.NewReader(""), "parse", "--color", "never", "--format", "jsonl", "--follow", path)
	waitFor(t, out, `"step.started"`)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines[2:] {
		f.WriteString(l)
		time.Sleep(5 * time.Millisecond)
	}
	f.Close()
	if code := wait(t, done, errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	jl := strings.Split(strings.TrimSpace(out.String()), "\n")
	var resp struct {
		Response struct {
			Checkpoint  struct{ Valid bool }
			StdoutBytes int `json:"stdout_bytes"`
		}
	}
	var viol struct{ Violations []any }
	if json.Unmarshal([]byte(jl[len(jl)-2]), &resp) != nil || json.Unmarshal([]byte(jl[len(jl)-1]), &viol) != nil {
		t.Fatalf("the last two lines are not the response and the violations:\n%s", out.String())
	}
	if !resp.Response.Checkpoint.Valid || resp.Response.StdoutBytes != len(strings.Join(lines, "")) || viol.Violations == nil || len(viol.Violations) != 0 {
		t.Errorf("response %+v violations %v", resp, viol)
	}
}

func rawStrings(rs []json.RawMessage) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

// TestJSONLMatchesDocument: --format jsonl gives the document's events,
// response (with an empty transcript) and violations, one per line, for a
// file as for a live input.
func TestJSONLMatchesDocument(t *testing.T) {
	dir := filepath.Join(corpusDir, "codex/codex@0.169.0/tool-success")
	_, doc, _ := runCmd(t, "", "parse", "--format", "json", dir)
	var d struct {
		Events     []json.RawMessage
		Response   json.RawMessage
		Violations json.RawMessage
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	compact := func(b []byte) string {
		var c bytes.Buffer
		json.Compact(&c, b)
		return c.String()
	}
	var want []string
	for _, ev := range d.Events {
		want = append(want, compact(ev))
	}
	// The response line has an empty transcript: its items are the item
	// lines (the parser keeps none for JSON lines).
	var r struct{ Transcript []json.RawMessage }
	if err := json.Unmarshal(d.Response, &r); err != nil {
		t.Fatal(err)
	}
	var items []string
	for _, it := range r.Transcript {
		items = append(items, `{"item":`+compact(it)+`}`)
	}
	var itemLines []string
	for _, w := range want {
		if strings.HasPrefix(w, `{"item":`) {
			itemLines = append(itemLines, w)
		}
	}
	if len(items) == 0 || !slices.Equal(items, itemLines) {
		t.Fatalf("the document's item events are not its transcript:\n%v\n%v", itemLines, items)
	}
	resp := strings.Replace(compact(d.Response), `"transcript":`+compact([]byte("["+strings.Join(rawStrings(r.Transcript), ",")+"]")), `"transcript":[]`, 1)
	if resp == compact(d.Response) {
		t.Fatal("no transcript replaced in the response")
	}
	want = append(want, `{"response":`+resp+`}`, `{"violations":`+compact(d.Violations)+`}`)
	for _, stdin := range []bool{false, true} {
		var code int
		var out string
		if stdin {
			code, out, _ = runCmd(t, string(mustRead(t, filepath.Join(dir, "stdout"))), "parse", "--format", "jsonl", "--provider", "codex", "-")
		} else {
			code, out, _ = runCmd(t, "", "parse", "--format", "jsonl", dir)
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || len(got) != len(want) {
			t.Fatalf("stdin %v: exit %d, %d lines, want %d", stdin, code, len(got), len(want))
		}
		for i := range want {
			if compact([]byte(got[i])) != want[i] {
				if stdin && strings.HasPrefix(want[i], `{"response":`) {
					continue // a bare capture has no meta.json cwd: the checkpoint's data differs
				}
				t.Errorf("stdin %v: line %d\n got %s\nwant %s", stdin, i, got[i], want[i])
			}
		}
	}
}
