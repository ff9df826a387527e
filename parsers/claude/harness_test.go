package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"github.com/agentwire/agentwire/internal/chunk"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const (
	publicDir  = "/work/shared/reference/public-captures/claude-stream-json"
	goldenRoot = "testdata/golden"
)

// corpusDir is the project corpus; AGENTWIRE_CLAUDE_CORPUS points the
// tests at another copy (such as the committed tree while it is being
// re-recorded).
var corpusDir = func() string {
	if d := os.Getenv("AGENTWIRE_CLAUDE_CORPUS"); d != "" {
		return d
	}
	return "../../corpus/claude"
}()

// tcase is one recorded run: stdout, optional stdin and stderr, the parser
// options and the process outcome its meta.json describes.
type tcase struct {
	name   string // golden path relative to goldenRoot, without .json
	stdout []byte
	stdin  []byte
	stderr []byte
	opts   Options
	out    Outcome
	meta   caseMeta
}

type caseMeta struct {
	Scenario   string   `json:"scenario"`
	Argv       []string `json:"argv"`
	Cwd        string   `json:"cwd"`
	ExitCode   int      `json:"exit_code"`
	Signal     string   `json:"signal"`
	SentSignal string   `json:"sent_signal"`
	Interrupt  bool     `json:"interrupt"`
	TimedOut   bool     `json:"timed_out"`
	SessionID  string   `json:"session_id"`
}

// corpusCases loads every run under corpus/claude/<cli>@<version>/: a
// directory holding a stdout file is a run.
func corpusCases(t testing.TB) []tcase {
	t.Helper()
	var cases []tcase
	err := filepath.WalkDir(corpusDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "stdout" {
			return err
		}
		dir := filepath.Dir(path)
		rel, _ := filepath.Rel(corpusDir, dir)
		c := tcase{name: filepath.ToSlash(rel)}
		c.name = strings.Replace(c.name, "/run-", "-run-", 1)
		c.stdout = mustRead(t, path)
		c.stderr, _ = os.ReadFile(filepath.Join(dir, "stderr"))
		c.stdin, _ = os.ReadFile(filepath.Join(dir, "stdin"))
		if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "meta.json")), &c.meta); err != nil {
			t.Fatalf("%s: meta.json: %v", dir, err)
		}
		c.opts = Options{Streaming: true,
			PartialMessages: slices.Contains(c.meta.Argv, "--include-partial-messages"),
			ControlProtocol: slices.Contains(c.meta.Argv, "--input-format"),
			SessionData:     map[string]string{driver.ParamCWD: c.meta.Cwd}}
		c.out = Outcome{ExitCode: c.meta.ExitCode, Signal: c.meta.Signal, TimedOut: c.meta.TimedOut,
			Cancelled: c.meta.SentSignal != "" || c.meta.Interrupt}
		cases = append(cases, c)
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return cases
}

// publicCases loads the public multi-line captures (real CLI output).
func publicCases(t testing.TB) []tcase {
	t.Helper()
	var cases []tcase
	for _, f := range []string{"claude-clean-simple-subagents.jsonl", "gleam-basic-query.ndjson"} {
		b, err := os.ReadFile(filepath.Join(publicDir, f))
		if err != nil {
			continue // the shared reference is not part of the module
		}
		cases = append(cases, tcase{name: "public/" + strings.TrimSuffix(f, filepath.Ext(f)), stdout: b,
			opts: Options{Streaming: true, SessionData: map[string]string{driver.ParamCWD: "/repo"}}})
	}
	return cases
}

func allCases(t testing.TB) []tcase { return append(corpusCases(t), publicCases(t)...) }

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// run is everything one replay produced.
type run struct {
	Capability driver.StreamCapability `json:"capability"`
	Payloads   []driver.StreamPayload  `json:"payloads"`
	Items      []driver.TranscriptItem `json:"items"`
	Response   driver.Response         `json:"response"`
	Err        string                  `json:"err,omitempty"`

	sink *adaptertest.RecordingSink
	err  error
}

// chunker delivers bytes in a given pattern: internal/chunk's.
type chunker = chunk.Chunking

var chunkers = chunk.All(7)

// replay runs a case through framing and the parser the way a driver
// does: every stdout frame is fed in order, and when a control_request is
// fed, the host's recorded stdin answer to it (if any) follows.
func replay(t testing.TB, c tcase, ch chunker) run {
	t.Helper()
	answers := map[string]ndjson.Frame{}
	if len(c.stdin) > 0 {
		rd := ndjson.NewReader(bytes.NewReader(c.stdin), ndjson.Options{})
		for {
			f, err := rd.Next()
			if err != nil {
				break
			}
			var l controlLine
			if f.Decode(&l) == nil && l.Response != nil {
				answers[l.Response.RequestID] = f.Clone()
			}
		}
	}
	sink := &adaptertest.RecordingSink{}
	p := New(sink, c.opts)
	var raw bytes.Buffer
	rd := ndjson.NewReader(ch.Reader(c.stdout), ndjson.Options{Tee: &raw})
	for {
		f, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if ferr := p.FeedError(err); ferr != nil {
				t.Fatalf("FeedError: %v", ferr)
			}
			continue
		}
		if err := p.Feed(f); err != nil {
			t.Fatalf("Feed: %v", err)
		}
		if typ, _ := f.Type(); string(typ) == "control_request" {
			if id, ok := f.Peek("request_id"); ok {
				if a, ok := answers[string(id)]; ok {
					if err := p.FeedInput(a); err != nil {
						t.Fatalf("FeedInput: %v", err)
					}
				}
			}
		}
	}
	resp, err := p.Finish(c.out)
	if resp.RawStreams == nil {
		resp.RawStreams = &driver.RawStreams{}
	}
	resp.RawStreams.Stdout, resp.RawStreams.Stderr = raw.String(), string(c.stderr)
	if raw.String() != string(c.stdout) {
		t.Fatalf("tee lost bytes: %d of %d", raw.Len(), len(c.stdout))
	}
	r := run{Capability: p.Capability(), Payloads: sink.Payloads, Items: sink.Items(), Response: resp, sink: sink, err: err}
	if err != nil {
		r.Err = err.Error()
	}
	return r
}

// check runs every validator over a replay: zero violations required.
func check(t testing.TB, c tcase, r run) {
	t.Helper()
	var v adaptertest.Violations
	if c.opts.Streaming {
		v = append(v, adaptertest.CheckStream(r.Capability, r.Payloads)...)
	}
	v = append(v, adaptertest.CheckRun(r.sink.Events, r.Response)...)
	v = append(v, adaptertest.CheckResponse(r.Response, r.err, Codec)...)
	for _, x := range v {
		t.Errorf("%s: violation %s", c.name, x)
	}
	if cp := r.Response.Checkpoint; cp != nil && cp.Valid && !c.out.Clean() {
		t.Errorf("%s: valid checkpoint for an unclean outcome %+v", c.name, c.out)
	}
}

// golden is the comparable form of a run: no raw streams.
func (r run) golden() []byte {
	g := r
	resp := g.Response
	if resp.RawStreams != nil {
		rs := *resp.RawStreams
		rs.Stdout, rs.Stderr = "", ""
		resp.RawStreams = &rs
	}
	g.Response = resp
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(normalize(b), '\n')
}

// What legitimately changes from one recording of a scenario to the next:
// UUIDs (session ids, line uuids) and timings. Goldens hold placeholders,
// so a re-record shows only real drift.
var (
	uuidRE   = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timingRE = regexp.MustCompile(`("(?:duration_ms|duration_api_ms|ttft_ms)\\?"\s*:\s*\\?"?)[0-9.]+`)
)

func normalize(b []byte) []byte {
	b = uuidRE.ReplaceAll(b, []byte("<UUID>"))
	return timingRE.ReplaceAll(b, []byte("${1}0"))
}

// comparable strips what differs legitimately between runs of the same
// input: nothing but the sink pointer.
func (r run) comparable() run {
	r.sink, r.err = nil, nil
	return r
}

var cmpOpts = cmp.Options{cmp.AllowUnexported(run{}), cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })}

// frames splits a stream into owned frames.
func frames(b []byte) []ndjson.Frame {
	var out []ndjson.Frame
	rd := ndjson.NewReader(bytes.NewReader(b), ndjson.Options{})
	for {
		f, err := rd.Next()
		if err != nil {
			return out
		}
		out = append(out, f.Clone())
	}
}

// diffRuns compares two replays of one input.
func diffRuns(a, b run) string { return cmp.Diff(a.comparable(), b.comparable(), cmpOpts) }
