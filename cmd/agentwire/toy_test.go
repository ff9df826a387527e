package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/corpus"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/fuzz"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/feed"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/agentwire/agentwire/provider"
)

// The toy provider exists only in this file: a JSON-lines stream of
// {"toy":"say","text":...} lines ended by {"toy":"done"}. Registering it
// is all it takes for corpus.Test, the fuzz oracle and `agentwire parse`
// to handle it (the provider package doc's promise).
func init() {
	provider.Register(provider.Provider{
		Name:    "toy",
		Summary: "the test-only toy stream",
		Detect: func(head []byte) (int, bool) {
			return provider.DetectJSONLines(head, func(o provider.Object) bool { return o.Has("toy") })
		},
		Switches: []provider.Switch{{Name: "toy-shout", Usage: "toy: upper-case the output",
			FromMeta: func(m provider.Meta) bool { return m.HasArg("--shout") }}},
		Capability: func(provider.Input) driver.StreamCapability { return driver.StreamCapability{} },
		Parse: func(in provider.Input, sink driver.EventSink) provider.Parsed {
			p := &toyParser{em: emit.New(sink, in.Streaming, driver.StreamCapability{}), shout: in.Settings["toy-shout"]}
			resp, err := feed.Parse(toyFraming, p, feed.Capture{Stdout: in.Stdout, Stderr: in.Stderr, Outcome: in.Outcome}, in.Observe, nil)
			return provider.Parsed{Response: resp, Err: err}
		},
	})
}

var toyFraming = feed.Framing[ndjson.Frame]{
	Open: func(src io.Reader, tee io.Writer) feed.Reader[ndjson.Frame] {
		return &feed.Copied[ndjson.Frame]{R: ndjson.NewReader(src, ndjson.Options{Tee: tee})}
	},
	Recoverable: ndjson.IsRecoverable,
}

type toyParser struct {
	em     *emit.Emitter
	shout  bool
	output string
	done   bool
	bad    int
	term   []byte // the done line: the toy protocol's terminal event
}

func (p *toyParser) Feed(f ndjson.Frame) error {
	if f.Kind != ndjson.KindLine {
		return p.em.Err()
	}
	var l struct{ Toy, Text string }
	if f.Decode(&l) != nil || l.Toy == "" || p.done {
		return p.FeedError(errors.New("not a toy line"))
	}
	switch l.Toy {
	case "say":
		if p.shout {
			l.Text = strings.ToUpper(l.Text)
		}
		p.output += l.Text
		if err := p.em.Delta(emit.Text, "", "m", l.Text); err != nil {
			return err
		}
	case "done":
		p.done = true
		p.term = bytes.Clone(f.Data)
		if err := p.em.Close(emit.Text, "", "m", nil); err != nil {
			return err
		}
		if p.output != "" {
			return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: p.output})
		}
	}
	return p.em.Err()
}

func (p *toyParser) FeedError(err error) error {
	p.bad++
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: err.Error(), Metadata: map[string]string{"malformed": err.Error()}})
}

func (p *toyParser) Finish(out driver.Outcome) (driver.Response, error) {
	resp := driver.Response{Output: p.output, ExitCode: out.ExitCode, Signal: out.Signal, TimedOut: out.TimedOut, Provider: "toy"}
	if p.term != nil {
		resp.RawStreams = &driver.RawStreams{Terminal: &driver.TerminalPayload{Event: "done", JSON: p.term}}
	}
	if !out.Clean() || !p.done {
		resp.Output = ""
		resp.Failure = &driver.RunFailure{Code: driver.FailureAgentError, Message: "toy: no done line"}
	}
	err := p.em.Finish(nil, resp.Failure)
	resp.Transcript = p.em.Transcript()
	if out.Err != nil {
		return resp, out.Err
	}
	return resp, err
}

const toyStdout = `{"toy":"say","text":"hello, "}` + "\n" + `{"toy":"say","text":"world"}` + "\n" + `{"toy":"done"}` + "\n"

// TestToyProvider: a provider registered in a test file alone replays
// through corpus.Test, passes the fuzz oracle, and is detected and parsed
// by agentwire parse.
func TestToyProvider(t *testing.T) {
	dir := t.TempDir()
	cdir := filepath.Join(dir, "toy", "toy@1", "hello")
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(corpus.Meta{Provider: "toy", CLI: "toy", Version: "1", Scenario: "hello", Argv: []string{"toy", "--shout"}})
	for name, b := range map[string]string{"stdout": toyStdout, "meta.json": string(meta)} {
		if err := os.WriteFile(filepath.Join(cdir, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("corpus", func(t *testing.T) {
		// Each in its own subtest: Test's case subtests are parallel and
		// run when the calling test returns.
		t.Run("update", func(t *testing.T) { corpus.TestDir(t, dir, corpus.TestOptions{Update: true}) })
		t.Run("replay", func(t *testing.T) { corpus.TestDir(t, dir, corpus.TestOptions{}) })
		r, err := corpus.Replay(mustLoad(t, dir, "toy/toy@1/hello"))
		if err != nil || r.Response.Output != "HELLO, WORLD" {
			t.Fatalf("replay: output %q, %v (want the meta.json switch on)", r.Response.Output, err)
		}
	})
	t.Run("fuzz", func(t *testing.T) {
		p := fuzz.ProviderByName("toy")
		for _, in := range []string{toyStdout, "", "garbage\n{", `{"toy":"done"}` + "\n" + `{"toy":"say"}`, toyStdout[:20]} {
			if err := fuzz.CheckParser(p, []byte(in)); err != nil {
				t.Errorf("CheckParser(%q): %v", in, err)
			}
		}
		if err := fuzz.CheckChunking([]byte(toyStdout)); err != nil {
			t.Errorf("CheckChunking: %v", err)
		}
	})
	t.Run("parse", func(t *testing.T) {
		code, out, errs := runCmd(t, toyStdout, "parse", "--format", "json", "-")
		var doc corpus.Document
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Provider != "toy" || doc.Response.Output != "hello, world" {
			t.Fatalf("parse -: exit %d, provider %q, output %q\n%s", code, doc.Provider, doc.Response.Output, errs)
		}
		code, out, _ = runCmd(t, toyStdout, "parse", "--format", "json", "--toy-shout", "-")
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Response.Output != "HELLO, WORLD" {
			t.Fatalf("parse --toy-shout -: exit %d, output %q", code, doc.Response.Output)
		}
		if code, out, _ := runCmd(t, "", "check", cdir); code != 0 {
			t.Errorf("check %s: exit %d\n%s", cdir, code, out)
		}
	})
}

func mustLoad(t *testing.T, dir, name string) *corpus.Case {
	t.Helper()
	c, err := corpus.LoadCase(os.DirFS(dir), name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
