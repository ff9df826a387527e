package provider_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/provider"
)

// capture is one recorded run of the corpus.
type capture struct {
	dir                   string
	meta                  provider.Meta
	stdout, stderr, stdin []byte
}

// captures returns the runs recorded under corpus/<name>/; it fails the
// test when there is none: a provider comes with its corpus cases.
func captures(t *testing.T, name string) []capture {
	t.Helper()
	fsys := os.DirFS("../corpus")
	var out []capture
	_ = fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		stdout, err := fs.ReadFile(fsys, path.Join(p, "stdout"))
		if err != nil {
			return nil
		}
		c := capture{dir: p, stdout: stdout}
		b, err := fs.ReadFile(fsys, path.Join(p, "meta.json"))
		if err != nil || json.Unmarshal(b, &c.meta) != nil {
			return nil
		}
		c.stderr, _ = fs.ReadFile(fsys, path.Join(p, "stderr"))
		c.stdin, _ = fs.ReadFile(fsys, path.Join(p, "stdin"))
		out = append(out, c)
		return nil
	})
	if len(out) == 0 {
		t.Fatalf("corpus/%s holds no capture: a provider comes with its corpus cases", name)
	}
	return out
}

func (c capture) input(p provider.Provider) provider.Input {
	in := provider.Input{
		Capture: provider.Capture{
			Stdout: bytes.NewReader(c.stdout), Stderr: bytes.NewReader(c.stderr),
			Outcome: c.meta.Outcome(), HTTPStatus: c.meta.HTTPStatus, ContentType: c.meta.ContentType,
		},
		Streaming: true, Settings: p.SettingsFrom(c.meta), SessionData: c.meta.SessionData(),
	}
	if c.stdin != nil {
		in.Stdin = bytes.NewReader(c.stdin)
	}
	return in
}

var errSink = errors.New("sink failed on purpose")

// failingSink fails its emission number at (1-based) and every one after;
// with at 0 it never fails and counts.
type failingSink struct{ n, at int }

func (s *failingSink) emit() error {
	s.n++
	if s.at > 0 && s.n >= s.at {
		return errSink
	}
	return nil
}
func (s *failingSink) Emit(driver.RunEvent) error            { return s.emit() }
func (s *failingSink) EmitStream(driver.StreamPayload) error { return s.emit() }

// TestSinkFailure: for every provider, a sink failing at its first,
// second, middle and last emission leaves RawStreams.Stdout byte-equal to
// the input and the sink error returned (the one feeding loop's policy).
func TestSinkFailure(t *testing.T) {
	for _, p := range provider.All() {
		t.Run(p.Name, func(t *testing.T) {
			cs := captures(t, p.Name)
			// The largest capture has the most frames after a failure.
			c := slices.MaxFunc(cs, func(a, b capture) int { return len(a.stdout) - len(b.stdout) })
			count := &failingSink{}
			p.Parse(c.input(p), count)
			if count.n == 0 {
				t.Fatalf("%s: no emission", c.dir)
			}
			for _, at := range slices.Compact([]int{1, 2, (count.n + 1) / 2, count.n}) {
				r := p.Parse(c.input(p), &failingSink{at: at})
				if !errors.Is(r.Err, errSink) {
					t.Errorf("%s: sink failing at emission %d of %d: error %v, want the sink's", c.dir, at, count.n, r.Err)
				}
				if rs := r.Response.RawStreams; rs == nil || rs.Stdout != string(c.stdout) || rs.Stderr != string(c.stderr) {
					n := 0
					if rs != nil {
						n = len(rs.Stdout)
					}
					t.Errorf("%s: sink failing at emission %d of %d: RawStreams.Stdout has %d of %d bytes", c.dir, at, count.n, n, len(c.stdout))
				}
			}
		})
	}
}

// TestDetect: every recorded capture is detected as its own provider (an
// HTTP error body, possibly as none).
func TestDetect(t *testing.T) {
	for _, p := range provider.All() {
		for _, c := range captures(t, p.Name) {
			if strings.Contains(c.dir, "/resume") && len(c.stdout) == 0 {
				continue
			}
			got, ok, err := provider.Detect(c.stdout)
			if c.meta.HTTPStatus >= 300 && (!ok || err != nil) {
				// An error body may name no API: openai-chat and
				// openai-responses answer with the same error document, so
				// the case's meta.json (or --provider) says which.
				continue
			}
			if err != nil || !ok || got.Name != p.Name {
				t.Errorf("%s: Detect = %q, %v, %v; want %s", c.dir, got.Name, ok, err, p.Name)
			}
		}
	}
}

// TestObserver: Observe sees every frame start in order, then the end of
// stdout with line 0, last.
func TestObserver(t *testing.T) {
	for _, p := range provider.All() {
		c := captures(t, p.Name)[0]
		in := c.input(p)
		var offs []int64
		var lines []int
		in.Observe = func(off int64, line int) { offs, lines = append(offs, off), append(lines, line) }
		p.Parse(in, &failingSink{})
		if len(offs) < 2 || offs[len(offs)-1] != int64(len(c.stdout)) || lines[len(lines)-1] != 0 {
			t.Errorf("%s: observed %v %v; want frame starts, then %d at line 0", c.dir, offs, lines, len(c.stdout))
			continue
		}
		for i := 1; i < len(offs); i++ {
			if offs[i] < offs[i-1] || i < len(offs)-1 && lines[i] < lines[i-1] {
				t.Errorf("%s: observed positions go back: %v %v", c.dir, offs, lines)
				break
			}
		}
	}
}

func TestRegister(t *testing.T) {
	if _, ok := provider.Lookup("no-such-provider"); ok {
		t.Error("Lookup found an unregistered provider")
	}
	names := provider.Names()
	if !slices.IsSorted(names) || len(names) < 3 {
		t.Errorf("Names = %v", names)
	}
	for _, bad := range []provider.Provider{
		{},
		{Name: "no-capability", Detect: func([]byte) (int, bool) { return 0, false }, Parse: func(provider.Input, driver.EventSink) provider.Parsed { return provider.Parsed{} }},
		{Name: "Bad Name", Detect: func([]byte) (int, bool) { return 0, false }, Capability: noCapability, Parse: func(provider.Input, driver.EventSink) provider.Parsed { return provider.Parsed{} }},
		{Name: names[0], Detect: func([]byte) (int, bool) { return 0, false }, Capability: noCapability, Parse: func(provider.Input, driver.EventSink) provider.Parsed { return provider.Parsed{} }},
		// A fuzz target named badly, or beginning another's (FuzzCodex is
		// codex's: compile_native_go_fuzzer could find neither).
		{Name: "fuzz-bad", Fuzz: provider.Fuzz{Target: "Fuzz_bad"}, Detect: func([]byte) (int, bool) { return 0, false }, Capability: noCapability, Parse: func(provider.Input, driver.EventSink) provider.Parsed { return provider.Parsed{} }},
		{Name: "codex-two", Detect: func([]byte) (int, bool) { return 0, false }, Capability: noCapability, Parse: func(provider.Input, driver.EventSink) provider.Parsed { return provider.Parsed{} }},
		{Name: "cod", Detect: func([]byte) (int, bool) { return 0, false }, Capability: noCapability, Parse: func(provider.Input, driver.EventSink) provider.Parsed { return provider.Parsed{} }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", bad.Name)
				}
			}()
			provider.Register(bad)
		}()
	}
}

func noCapability(provider.Input) driver.StreamCapability { return driver.StreamCapability{} }

func TestFuzzTarget(t *testing.T) {
	for name, want := range map[string]string{"codex": "FuzzCodex", "appserver": "FuzzAppServer", "anthropic-messages": "FuzzAnthropicMessages", "openai-chat": "FuzzOpenAIChat"} {
		if p, ok := provider.Lookup(name); !ok || p.FuzzTarget() != want {
			t.Errorf("%s: fuzz target %q, want %q", name, p.FuzzTarget(), want)
		}
	}
	if got := (provider.Provider{Name: "gemini-cli"}).FuzzTarget(); got != "FuzzGeminiCli" {
		t.Errorf("default fuzz target of gemini-cli = %q", got)
	}
}

func TestDetectNothing(t *testing.T) {
	for _, in := range []string{"", "hello\n", `{"hello":"world"}` + "\n", "\x00\x01"} {
		if p, ok, err := provider.Detect([]byte(in)); ok || err != nil {
			t.Errorf("Detect(%q) = %s, %v, %v", in, p.Name, ok, err)
		}
	}
}

// TestDetectGeminiCLI: Gemini CLI's stream-json shares type names with
// Claude Code (result) and Codex (error); each type is told apart by the
// members only Gemini CLI writes.
func TestDetectGeminiCLI(t *testing.T) {
	for _, tc := range []struct{ head, want string }{
		{`{"type":"init","timestamp":"t","session_id":"s","model":"m"}` + "\n", "gemini-cli"},
		{`{"type":"message","timestamp":"t","role":"assistant","content":"hi","delta":true}` + "\n", "gemini-cli"},
		{`{"type":"result","timestamp":"t","status":"success","stats":{}}` + "\n", "gemini-cli"},
		{`{"type":"system","subtype":"init","session_id":"s","model":"m","uuid":"u"}` + "\n", "claude"},
		{`{"type":"result","subtype":"success","is_error":false,"session_id":"s","uuid":"u"}` + "\n", "claude"},
		{`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"error","message":"Reconnecting... 1/5"}` + "\n", "codex"},
	} {
		got, ok, err := provider.Detect([]byte(tc.head))
		if err != nil || !ok || got.Name != tc.want {
			t.Errorf("Detect(%s) = %q, %v, %v; want %s", tc.head, got.Name, ok, err, tc.want)
		}
	}
	// An error line alone is Gemini CLI's only with a severity.
	if got, ok, _ := provider.Detect([]byte(`{"type":"error","message":"x"}` + "\n")); ok && got.Name == "gemini-cli" {
		t.Error("a codex-shaped error line was detected as gemini-cli")
	}
}

// TestMetaOutcomeSessionOver: a CLI the recorder stopped after its session
// was over ended as its client meant it to; a signal the scenario sent, or
// one after a timeout, is still the outcome.
func TestMetaOutcomeSessionOver(t *testing.T) {
	over := provider.Meta{ExitCode: -1, Signal: "SIGTERM", RecorderNote: provider.SessionOverNote}
	if o := over.Outcome(); !o.Clean() {
		t.Errorf("session over, then SIGTERM: outcome %+v, want clean", o)
	}
	killed := provider.Meta{ExitCode: -1, Signal: "SIGKILL", RecorderNote: provider.SessionOverNote + "; SIGKILL"}
	if o := killed.Outcome(); !o.Clean() {
		t.Errorf("session over, then SIGKILL: outcome %+v, want clean", o)
	}
	for _, m := range []provider.Meta{
		{ExitCode: -1, Signal: "SIGTERM"},
		{ExitCode: -1, Signal: "SIGINT", SentSignal: "SIGINT", RecorderNote: provider.SessionOverNote},
		{ExitCode: -1, Signal: "SIGKILL", TimedOut: true, RecorderNote: provider.SessionOverNote},
	} {
		if o := m.Outcome(); o.Clean() {
			t.Errorf("%+v: outcome clean", m)
		}
	}
}

// TestRefines: every Refines names a registered provider, no provider
// refines itself through a chain, and each declared overlap is resolved
// by it: a line both rows claim goes to the refining one, a line only the
// older row claims stays the older one's.
func TestRefines(t *testing.T) {
	var walk func(name string, seen []string)
	walk = func(name string, seen []string) {
		if slices.Contains(seen, name) {
			t.Fatalf("Refines cycle: %s", strings.Join(append(seen, name), " -> "))
		}
		p, ok := provider.Lookup(name)
		if !ok {
			t.Fatalf("%s refines %q, which is not registered", seen[len(seen)-1], name)
		}
		for _, r := range p.Refines {
			walk(r, append(slices.Clone(seen), name))
		}
	}
	for _, p := range provider.All() {
		walk(p.Name, nil)
	}
	for _, tc := range []struct{ head, want string }{
		// Both app-server and ACP claim an initialize result with a
		// protocolVersion; ACP refines app-server.
		{`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}` + "\n", "acp"},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}` + "\n", "acp"},
		{`{"id":0,"result":{"userAgent":"codex_cli_rs/0.169.0"}}` + "\n", "appserver"},
		{`{"method":"codex/event/task_started","params":{}}` + "\n", "appserver"},
		// Both claude and gemini-cli claim a subtype-less result line.
		{`{"type":"result","timestamp":"t","status":"error","stats":{}}` + "\n", "gemini-cli"},
	} {
		got, ok, err := provider.Detect([]byte(tc.head))
		if err != nil || !ok || got.Name != tc.want {
			t.Errorf("Detect(%s) = %q, %v, %v; want %s", tc.head, got.Name, ok, err, tc.want)
		}
	}
}

// TestDiscard: for every provider and every capture, DiscardTranscript,
// DiscardStdout and Bounded give the response of a plain parse with an
// empty transcript and RawStreams.Stdout "" (stderr and the terminal
// kept), after the same emissions (no capture reuses an id after its
// lifecycle ended); the item events are the plain transcript.
func TestDiscard(t *testing.T) {
	for _, p := range provider.All() {
		t.Run(p.Name, func(t *testing.T) {
			for _, c := range captures(t, p.Name) {
				var plain, lean adaptertest.RecordingSink
				want := p.Parse(c.input(p), &plain)
				in := c.input(p)
				in.DiscardTranscript, in.DiscardStdout, in.Bounded = true, true, true
				got := p.Parse(in, &lean)
				if len(got.Response.Transcript) != 0 {
					t.Errorf("%s: %d transcript items kept", c.dir, len(got.Response.Transcript))
				}
				if rs := got.Response.RawStreams; rs == nil || rs.Stdout != "" || rs.Stderr != want.Response.RawStreams.Stderr {
					t.Errorf("%s: RawStreams %+v", c.dir, rs)
				}
				if !reflect.DeepEqual(lean.Items(), want.Response.Transcript) && len(want.Response.Transcript) > 0 {
					t.Errorf("%s: the item events are not the plain transcript", c.dir)
				}
				if !reflect.DeepEqual(lean.Payloads, plain.Payloads) || len(lean.Events) != len(plain.Events) {
					t.Errorf("%s: the emissions differ", c.dir)
				}
				w := want.Response
				w.Transcript = nil
				rs := *w.RawStreams
				rs.Stdout = ""
				w.RawStreams = &rs
				g := got.Response
				g.Transcript = nil
				if !reflect.DeepEqual(g, w) || (got.Err == nil) != (want.Err == nil) || !reflect.DeepEqual(got.Findings, want.Findings) {
					t.Errorf("%s: the response or findings differ:\n got %+v\nwant %+v", c.dir, g, w)
				}
			}
		})
	}
}
