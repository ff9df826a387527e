package appserver

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// corpusRoot is the project corpus of app-server recordings.
const corpusRoot = "../../corpus/appserver"

// publicCaptures holds the public app-server sample.
const publicCaptures = "../../../shared/reference/public-captures/codex-app-server"

// replayCase is one recorded session: stdin, stdout, stderr and the
// outcome.
type replayCase struct {
	name                  string // golden path relative to testdata/golden, without .json
	stdin, stdout, stderr string
	out                   Outcome
	public                bool
}

// runMeta is the part of the recorder's meta.json the replay needs.
type runMeta struct {
	ExitCode   int    `json:"exit_code"`
	Signal     string `json:"signal"`
	SentSignal string `json:"sent_signal"`
	Interrupt  bool   `json:"interrupt"`
	TimedOut   bool   `json:"timed_out"`
}

func (m runMeta) outcome() Outcome {
	return Outcome{ExitCode: m.ExitCode, Signal: m.Signal, TimedOut: m.TimedOut, Cancelled: m.SentSignal != "" || m.Interrupt}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// corpusCases finds every recorded session under corpus/appserver (a
// directory with a stdout file) and the public capture.
func corpusCases(t testing.TB) []replayCase {
	t.Helper()
	var cases []replayCase
	err := filepath.WalkDir(corpusRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "stdout" {
			return err
		}
		dir := filepath.Dir(path)
		rel, _ := filepath.Rel(corpusRoot, dir)
		var m runMeta
		if b := readFile(t, filepath.Join(dir, "meta.json")); b != "" {
			if err := json.Unmarshal([]byte(b), &m); err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
		}
		cases = append(cases, replayCase{name: filepath.ToSlash(rel), stdin: readFile(t, filepath.Join(dir, "stdin")), stdout: readFile(t, path), stderr: readFile(t, filepath.Join(dir, "stderr")), out: m.outcome()})
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	public, _ := filepath.Glob(filepath.Join(publicCaptures, "*.jsonl"))
	for _, p := range public {
		name := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		cases = append(cases, replayCase{name: "public/" + name, stdout: readFile(t, p), public: true})
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].name < cases[j].name })
	return cases
}

// golden is the normalized result stored per case: the raw streams are
// left out (they are the corpus itself), the terminal stays.
func golden(r result) result {
	resp := r.Response
	if resp.RawStreams != nil {
		resp.RawStreams = &driver.RawStreams{Terminal: resp.RawStreams.Terminal}
	}
	r.Response = resp
	return r
}

// rawEqual compares raw JSON values (in payloads' Raw) as bytes: cmp's
// generic slice diff is quadratic-ish on megabyte values.
var rawEqual = cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })

var sessionData = map[string]string{driver.ParamCWD: "/scratch/work", driver.ParamWorkspaceID: "ws-1", driver.ParamProfileFingerprint: "pf-1"}

// TestCorpus replays every corpus case and the public capture under every
// chunking, with and without streaming, with and without the client side:
// zero violations, identical results across chunkings, raw streams
// byte-exact, the terminal the exact bytes of its line, and the golden.
func TestCorpus(t *testing.T) {
	cases := corpusCases(t)
	if len(cases) == 0 {
		t.Fatal("no cases found")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{Streaming: true, SessionData: sessionData, LegacyTurnEnd: legacyBuild(c.name)}
			var want result
			for i, ch := range chunkings(uint64(len(c.stdout))) {
				got, v := run(c.stdin, c.stdout, c.stderr, opts, c.out, ch.Mk)
				if len(v) > 0 {
					t.Fatalf("%s: violations:\n%s", ch.Name, v)
				}
				if got.Response.RawStreams.Stdout != c.stdout || got.Response.RawStreams.Stderr != c.stderr {
					t.Fatalf("%s: raw streams differ from the capture", ch.Name)
				}
				if i == 0 {
					want = got
					continue
				}
				if d := cmp.Diff(want, got, rawEqual); d != "" {
					t.Fatalf("%s differs from whole (-whole +%s):\n%s", ch.Name, ch.Name, d)
				}
			}
			if term := want.Response.RawStreams.Terminal; term != nil {
				if !strings.Contains(c.stdout, string(term.JSON)+"\n") || !strings.HasPrefix(string(term.JSON), `{"method":"`+term.Event+`"`) {
					t.Fatalf("terminal JSON is not the exact line: %s", term.JSON)
				}
			}
			// Without streaming: the same transcript and response.
			plain, v := run(c.stdin, c.stdout, c.stderr, Options{SessionData: opts.SessionData, LegacyTurnEnd: opts.LegacyTurnEnd}, c.out, nil)
			if len(v) > 0 || len(plain.Payloads) != 0 {
				t.Fatalf("non-streaming: %d payloads, violations:\n%s", len(plain.Payloads), v)
			}
			if d := cmp.Diff(want.Response, plain.Response, rawEqual); d != "" {
				t.Fatalf("non-streaming response differs:\n%s", d)
			}
			// Without the client side, the same turn, terminal and checkpoint.
			if c.stdin != "" {
				nostdin, v := run("", c.stdout, c.stderr, opts, c.out, nil)
				if len(v) > 0 {
					t.Fatalf("without stdin: violations:\n%s", v)
				}
				if d := cmp.Diff(want.Response.Checkpoint, nostdin.Response.Checkpoint); d != "" {
					t.Fatalf("without stdin the checkpoint differs:\n%s", d)
				}
				if d := cmp.Diff(want.Response.RawStreams.Terminal, nostdin.Response.RawStreams.Terminal); d != "" {
					t.Fatalf("without stdin the terminal differs:\n%s", d)
				}
			}
			// Corpus cases are held to their golden.json in corpus/ by corpus.Test
			// (the same parse, in the format of agentwire parse --format json); only
			// the public captures, which are not in the corpus, keep a golden here.
			if strings.HasPrefix(c.name, "public/") {
				checkGolden(t, c.name, golden(want))
			}
		})
	}
}

// legacyBuild reports whether a case was recorded from a build that ends
// turns with the v1 codex/event/task_complete only (codex 0.58.0); those
// cases replay with Options.LegacyTurnEnd.
func legacyBuild(name string) bool { return strings.HasPrefix(name, "codex@0.58.") }

// TestLegacyTurnEnd: without the option a 0.58.0 session has no
// terminal; with it, task_complete is the terminal.
func TestLegacyTurnEnd(t *testing.T) {
	for _, c := range corpusCases(t) {
		if !strings.HasSuffix(c.name, "codex@0.58.0/text") {
			continue
		}
		strict, v := run(c.stdin, c.stdout, c.stderr, Options{Streaming: true}, c.out, nil)
		if len(v) > 0 || strict.Response.RawStreams.Terminal != nil || strict.Response.Failure == nil {
			t.Fatalf("strict: %v %+v", v, strict.Response.Failure)
		}
		legacy, v := run(c.stdin, c.stdout, c.stderr, Options{Streaming: true, LegacyTurnEnd: true}, c.out, nil)
		if len(v) > 0 || legacy.Response.Failure != nil || !legacy.Response.Checkpoint.Valid || legacy.Response.RawStreams.Terminal.Event != "codex/event/task_complete" {
			t.Fatalf("legacy: %v %+v", v, legacy.Response)
		}
		return
	}
	t.Skip("no codex@0.58.0/text recording")
}

func checkGolden(t *testing.T, name string, r result) {
	t.Helper()
	got, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", filepath.FromSlash(name)+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no golden (run go test -update): %v", err)
	}
	if string(want) != string(got) {
		t.Errorf("golden %s differs (-want +got):\n%s", path, cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")))
	}
}

// TestCorpusTruncation cuts every successful corpus session at every line
// boundary before its terminal: never a valid checkpoint, a Failure, and
// no violation, whether the process then exits 0 or is killed.
func TestCorpusTruncation(t *testing.T) {
	n := 0
	for _, c := range corpusCases(t) {
		opts := Options{Streaming: true, SessionData: sessionData, LegacyTurnEnd: legacyBuild(c.name)}
		full, _ := run(c.stdin, c.stdout, c.stderr, opts, c.out, nil)
		term := full.Response.RawStreams.Terminal
		if cp := full.Response.Checkpoint; cp == nil || !cp.Valid || term == nil {
			continue
		}
		n++
		end := strings.Index(c.stdout, string(term.JSON)) + len(term.JSON) - 1
		for i := 0; i < end; i++ {
			if i > 0 && c.stdout[i-1] != '\n' && i != end-1 {
				continue
			}
			for _, out := range []Outcome{{}, {Signal: "SIGKILL", ExitCode: -1}} {
				r, v := run(c.stdin, c.stdout[:i], c.stderr, opts, out, nil)
				if len(v) > 0 {
					t.Fatalf("%s cut at %d: violations:\n%s", c.name, i, v)
				}
				if cp := r.Response.Checkpoint; (cp != nil && cp.Valid) || r.Response.Failure == nil {
					t.Fatalf("%s cut at %d: checkpoint %+v failure %+v", c.name, i, cp, r.Response.Failure)
				}
			}
		}
	}
	if n == 0 {
		t.Skip("no successful corpus session")
	}
}
