package codex

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// corpusRoot is the project corpus of codex recordings.
const corpusRoot = "../../corpus/codex"

// replayCase is one recorded run: stdout, stderr and the outcome.
type replayCase struct {
	name   string // golden path relative to testdata/golden, without .json
	stdout string
	stderr string
	out    Outcome
	// prev is the case this run resumes (multi-run cases), or "".
	prev string
}

// runMeta is the part of the recorder's meta.json the replay needs.
type runMeta struct {
	ExitCode   int    `json:"exit_code"`
	Signal     string `json:"signal"`
	SentSignal string `json:"sent_signal"`
	Interrupt  bool   `json:"interrupt"`
	TimedOut   bool   `json:"timed_out"`
	Runs       []string
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

// corpusCases finds every recorded run under corpus/codex: a directory with
// a stdout file is a run; a case directory whose meta.json lists runs is a
// sequence of runs, each resuming the previous one.
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
		c := replayCase{name: filepath.ToSlash(rel), stdout: readFile(t, path), stderr: readFile(t, filepath.Join(dir, "stderr")), out: m.outcome()}
		// A run of a multi-run case resumes the run listed before it.
		var cm runMeta
		if b := readFile(t, filepath.Join(filepath.Dir(dir), "meta.json")); b != "" && json.Unmarshal([]byte(b), &cm) == nil {
			for i, r := range cm.Runs {
				if r == filepath.Base(dir) && i > 0 {
					prevRel, _ := filepath.Rel(corpusRoot, filepath.Join(filepath.Dir(dir), cm.Runs[i-1]))
					c.prev = filepath.ToSlash(prevRel)
				}
			}
		}
		cases = append(cases, c)
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	public, _ := filepath.Glob("testdata/public/*.jsonl")
	for _, p := range public {
		name := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		cases = append(cases, replayCase{name: "public/codex@0.46.0/" + name, stdout: readFile(t, p)})
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

// TestCorpus replays every corpus and public case under every chunking,
// with and without streaming: zero violations, identical results across
// chunkings, raw streams byte-exact, and the golden file.
func TestCorpus(t *testing.T) {
	cases := corpusCases(t)
	if len(cases) < 8 {
		t.Fatalf("found only %d cases", len(cases))
	}
	states := map[string]*driver.SessionState{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{Streaming: true, SessionData: map[string]string{driver.ParamCWD: "/scratch/work"}}
			if c.prev != "" {
				opts.Resume = states[c.prev]
				if opts.Resume == nil {
					t.Fatalf("previous run %s has no checkpoint", c.prev)
				}
			}
			var want result
			for i, ch := range chunkings(uint64(len(c.stdout))) {
				got, v := run(c.stdout, c.stderr, opts, c.out, ch.Mk)
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
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("%s differs from whole (-whole +%s):\n%s", ch.Name, ch.Name, d)
				}
			}
			if cp := want.Response.Checkpoint; cp != nil && cp.Valid {
				states[c.name] = cp.State
			}
			// The terminal is the exact bytes of its line.
			if term := want.Response.RawStreams.Terminal; term != nil {
				if !strings.Contains(c.stdout, string(term.JSON)+"\n") || !strings.Contains(string(term.JSON), `"type":"`+term.Event+`"`) {
					t.Fatalf("terminal JSON is not the exact line: %s", term.JSON)
				}
			}
			// Without streaming: the same transcript and response, no payloads.
			plain, v := run(c.stdout, c.stderr, Options{SessionData: opts.SessionData, Resume: opts.Resume}, c.out, nil)
			if len(v) > 0 || len(plain.Payloads) != 0 {
				t.Fatalf("non-streaming: %d payloads, violations:\n%s", len(plain.Payloads), v)
			}
			if d := cmp.Diff(want.Response, plain.Response); d != "" {
				t.Fatalf("non-streaming response differs:\n%s", d)
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

func checkGolden(t *testing.T, name string, r result) {
	t.Helper()
	got, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	// Thread ids change with every re-recording of the corpus; everything
	// else in a case is fixed by its scenario. The golden names the id.
	for _, it := range r.Items {
		if it.Kind == driver.TranscriptInit && it.SessionID != "" {
			got = bytes.ReplaceAll(got, []byte(`"`+it.SessionID+`"`), []byte(`"<THREAD_ID>"`))
		}
	}
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

// successCases are the cases whose capture ends with turn.completed and a
// clean exit.
func successCases(t *testing.T) []replayCase {
	var out []replayCase
	for _, c := range corpusCases(t) {
		if c.out.Clean() && strings.Contains(lastLine(c.stdout), `"turn.completed"`) {
			out = append(out, c)
		}
	}
	if len(out) < 6 {
		t.Fatalf("only %d success cases", len(out))
	}
	return out
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// TestTruncation cuts every successful capture at every line boundary and,
// for captures under 4 KiB, at every byte: never a valid checkpoint, always
// exactly one terminal (CheckStream), every lifecycle closed, whether the
// process then exits 0 or is killed.
func TestTruncation(t *testing.T) {
	for _, c := range successCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var cuts []int
			if len(c.stdout) < 4096 {
				for i := range len(c.stdout) - 1 {
					cuts = append(cuts, i)
				}
			} else {
				for i := range len(c.stdout) - 1 {
					if c.stdout[i] == '\n' {
						cuts = append(cuts, i+1)
					}
				}
			}
			// The cut must remove the terminal: stop before the last line's
			// closing brace.
			end := len(strings.TrimRight(c.stdout, "\n")) - 1
			for _, n := range cuts {
				if n > end {
					continue
				}
				for _, out := range []Outcome{{}, {Signal: "SIGKILL", ExitCode: -1}} {
					r, v := run(c.stdout[:n], c.stderr, Options{Streaming: true}, out, nil)
					if len(v) > 0 {
						t.Fatalf("cut at %d: violations:\n%s", n, v)
					}
					if cp := r.Response.Checkpoint; cp != nil && cp.Valid {
						t.Fatalf("cut at %d (%q): valid checkpoint", n, c.stdout[max(0, n-20):n])
					}
					if r.Response.Failure == nil {
						t.Fatalf("cut at %d: no Failure", n)
					}
				}
			}
		})
	}
}

// TestCorpusFrameByFrame checks that the push path (Feed per frame, as a
// process driver does) equals Parse.
func TestCorpusReaders(t *testing.T) {
	for _, c := range corpusCases(t)[:1] {
		r1, _ := run(c.stdout, c.stderr, streaming, c.out, nil)
		r2, _ := run(c.stdout, c.stderr, streaming, c.out, func(s string) io.Reader { return &chunkReader{S: s, Sizes: []int{3, 1, 7}} })
		if d := cmp.Diff(r1, r2); d != "" {
			t.Fatal(d)
		}
	}
}

// TestCorpusSemantics asserts what each recorded scenario means, beyond
// the goldens: success and checkpoint, the failure and its terminal,
// cancellation, tool errors and the resumed run's usage.
func TestCorpusSemantics(t *testing.T) {
	states := map[string]*driver.SessionState{}
	seen := map[string]bool{}
	for _, c := range corpusCases(t) {
		if strings.HasPrefix(c.name, "public/") {
			continue
		}
		_, scenario, _ := strings.Cut(c.name, "/")
		opts := Options{Streaming: true}
		if c.prev != "" {
			opts.Resume = states[c.prev]
		}
		r, v := run(c.stdout, c.stderr, opts, c.out, nil)
		if len(v) > 0 {
			t.Fatalf("%s: violations:\n%s", c.name, v)
		}
		resp := r.Response
		if cp := resp.Checkpoint; cp != nil && cp.Valid {
			states[c.name] = cp.State
		}
		valid := resp.Checkpoint != nil && resp.Checkpoint.Valid
		var term string
		if resp.RawStreams.Terminal != nil {
			term = resp.RawStreams.Terminal.Event
		}
		seen[scenario] = true
		switch scenario {
		case "text", "reasoning", "unicode", "tool-success", "tool-failure", "big-output", "resume/run-1", "resume/run-2":
			if !valid || resp.Failure != nil || term != "turn.completed" || resp.Output == "" || resp.Usage == nil {
				t.Errorf("%s: valid %v failure %+v terminal %q output %q usage %+v", c.name, valid, resp.Failure, term, resp.Output, resp.Usage)
			}
		case "api-error", "disconnect", "stream-error":
			if valid || resp.Failure == nil || resp.Failure.Code != driver.FailureAgentError || term != "turn.failed" || resp.ExitCode == 0 {
				t.Errorf("%s: valid %v failure %+v terminal %q", c.name, valid, resp.Failure, term)
			}
		case "cancel":
			if valid || resp.Failure == nil || resp.Failure.Code != driver.FailureCancelled || term != "" {
				t.Errorf("%s: valid %v failure %+v terminal %q", c.name, valid, resp.Failure, term)
			}
			// Without the host's cancellation flag the run still fails:
			// 0.58 exits 0 after SIGINT, with no terminal.
			out := c.out
			out.Cancelled = false
			r2, _ := run(c.stdout, c.stderr, opts, out, nil)
			if r2.Response.Checkpoint.Valid || r2.Response.Failure == nil {
				t.Errorf("%s without the cancel flag: %+v", c.name, r2.Response.Failure)
			}
		default:
			t.Errorf("%s: scenario without semantic expectations", c.name)
		}
		switch scenario {
		case "tool-failure":
			var failed bool
			for _, it := range r.Items {
				failed = failed || it.Kind == driver.TranscriptToolResult && it.IsError && it.Data["exit_code"] != 0
			}
			if !failed {
				t.Errorf("%s: no failed tool result", c.name)
			}
		case "big-output":
			var longest int
			for _, it := range r.Items {
				if it.Kind == driver.TranscriptToolResult {
					longest = max(longest, len(it.Text))
				}
			}
			if longest < 100_000 {
				t.Errorf("%s: longest tool output %d bytes", c.name, longest)
			}
		case "resume/run-2":
			// Each run of the mock costs 100 in / 10 out: 0.169 reports the
			// thread total (200/20) and the parser derives the run's share.
			if resp.Usage.InputTokens != 100 || resp.Usage.OutputTokens != 10 || resp.Metadata[MetaUsageScope] != "run" {
				t.Errorf("%s: usage %+v scope %q", c.name, resp.Usage, resp.Metadata[MetaUsageScope])
			}
			if resp.Checkpoint.State.ResumeID != states[c.prev].ResumeID {
				t.Errorf("%s: resumed another thread", c.name)
			}
		}
	}
	if len(seen) < 2 {
		t.Fatalf("scenarios seen: %v", seen)
	}
}
