package provider

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentwire/agentwire/driver"
)

// Provider is one provider: everything corpus, fuzz, the CLI and the
// drivers know of it. A row file of this package builds one and registers
// it (see the package doc).
type Provider struct {
	// Name is the registry key: the corpus directory, meta.json's
	// "provider", the CLI's --provider value. Lower case, [a-z0-9-].
	Name string
	// Summary says in a few words which stream it parses, for help texts
	// ("codex exec --json JSONL").
	Summary string
	// Codec is the session codec of the provider's checkpoints (nil for a
	// stream without a session).
	Codec driver.SessionCodec
	// Detect reports whether head, the first bytes of a capture's provider
	// stream (up to DetectLimit, the last line possibly cut), is this
	// provider's, and the offset of the first line that says so. Detect
	// picks the provider whose evidence comes first. It must be cheap and
	// must not panic on any input.
	Detect func(head []byte) (offset int, ok bool)
	// Refines names the providers whose Detect evidence this one's
	// refines: when this provider and one it refines both claim the same
	// line, the line is this provider's. A provider whose framing and
	// vocabulary overlap an older one's (ACP is JSON-RPC, as app-server
	// is; Gemini CLI writes "result" lines, as Claude Code does) declares
	// the overlap here, and the older row stays as it is: its Detect need
	// not know of the newer one. Refines must name registered providers
	// and never form a cycle (TestRefines).
	Refines []string
	// Switches are the provider's boolean parser options that a case's
	// meta.json implies and that a bare capture states by flag or
	// detection (nil: none).
	Switches []Switch
	// Capability is the parser's stream capability for a parse of in: it
	// depends on the options in gives (Streaming, Settings), never on the
	// content, so a consumer knows it before the parse (corpus writes it
	// ahead of the events and judges each payload by it as it comes).
	Capability func(in Input) driver.StreamCapability
	// Parse parses one capture into sink. It reads Stdout (and Stdin,
	// Stderr) to their ends through internal/feed's loop, calls
	// in.Observe before each frame and before Finish, and returns
	// Finish's response with complete RawStreams, the error, and the wire
	// findings of the parser's pass; Register sets Parsed.Capability from
	// Capability.
	Parse func(in Input, sink driver.EventSink) Parsed
	// Framing is how Stdout is framed: JSON lines (the zero value), SSE (a
	// model API's HTTP body) or JSON-RPC. The fuzz seeds generator files
	// each recording under that framing's fuzz target too and reads its
	// lines for dictionary words accordingly.
	Framing Framing
	// Fuzz names the provider's fuzz target and adds dictionary words
	// (the zero value is complete for most providers; see Fuzz).
	Fuzz Fuzz
}

// Framing is the framing of a provider's Stdout.
type Framing int

const (
	// FramingJSONLines is one JSON value per line (package ndjson).
	FramingJSONLines Framing = iota
	// FramingSSE is a Server-Sent Events body (package sse).
	FramingSSE
	// FramingJSONRPC is JSON-RPC messages, one per line (package jsonrpc).
	FramingJSONRPC
)

// String returns the framing package's name: ndjson, sse or jsonrpc.
func (f Framing) String() string {
	switch f {
	case FramingSSE:
		return "sse"
	case FramingJSONRPC:
		return "jsonrpc"
	}
	return "ndjson"
}

// Fuzz is what package fuzz needs of a provider beyond Parse and Codec to
// give it its end-to-end fuzz target (fuzz.Targets, the generated fuzz
// functions of fuzz/targets and fuzz_test.go, the seeds and the libFuzzer
// dictionary fuzz/dict/<Name>.dict).
type Fuzz struct {
	// Target is the name of the fuzz target, "Fuzz" and then a capital
	// letter, letters and digits. Empty: FuzzTarget's default, "Fuzz" and
	// each hyphen-separated word of Name with its first letter capitalized
	// ("anthropic-messages": FuzzAnthropicMessages). A target's name must
	// not begin another's (OSS-Fuzz's compile_native_go_fuzzer finds the
	// function by a grep for "func NAME"; fuzz's tests check it), and a
	// registered target's name never changes: campaigns and OSS-Fuzz keep
	// their corpora and findings under it.
	Target string
	// Words are libFuzzer dictionary words the recordings do not show
	// (the seeds generator adds every JSON key and discriminator value of
	// the provider's corpus, and the framing's own syntax, by itself).
	Words []string
}

// FuzzTarget returns the name of p's fuzz target: p.Fuzz.Target, or
// "Fuzz" followed by the words of p.Name, each capitalized.
func (p Provider) FuzzTarget() string {
	if p.Fuzz.Target != "" {
		return p.Fuzz.Target
	}
	var b strings.Builder
	b.WriteString("Fuzz")
	for _, w := range strings.Split(p.Name, "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// Switch is a boolean parser option of a provider.
type Switch struct {
	// Name is the CLI flag ("partial-messages"); unique in the registry.
	Name string
	// Usage is the flag's help text.
	Usage string
	// FromMeta says whether the recorded run had the option on.
	FromMeta func(Meta) bool
	// Detect, when set, says whether a bare capture (no meta.json) has it
	// on, from its stdout and stdin (stdin may be nil). Nil: off. The
	// command gives it the head of stdout only (provider.DetectLimit
	// bytes, or the first lines of a live input): a parse reads stdout
	// once, and needs its options before the first frame.
	Detect func(stdout, stdin []byte) bool
}

// Capture is one run's recorded streams and outcome.
type Capture struct {
	// Stdout is the provider stream: a CLI's stdout, or the HTTP body of a
	// model API's response.
	Stdout io.Reader
	// Stderr is the process's stderr (nil: none).
	Stderr io.Reader
	// Stdin is the client side where the protocol has one: what the host
	// wrote to the process (nil: none).
	Stdin io.Reader
	// Outcome is the process outcome.
	Outcome driver.Outcome
	// HTTPStatus and ContentType are the response status and Content-Type
	// of a model API's stream (0 and "" for a CLI).
	HTTPStatus  int
	ContentType string
}

// Input is what a Provider's Parse gets.
type Input struct {
	Capture
	// Streaming asks for stream payloads (the transcript items are emitted
	// either way).
	Streaming bool
	// Settings holds the value of each of the provider's Switches, by name
	// (a missing name is off).
	Settings map[string]bool
	// SessionData goes into the checkpoint's SessionState.Data (the guard
	// inputs: driver.ParamCWD, ...).
	SessionData map[string]string
	// Resume is the checkpoint state of the run this one resumes, or nil.
	Resume *driver.SessionState
	// Observe, when set, is told where each frame starts (byte offset in
	// Stdout, 1-based line) before the frame is fed, and (len(stdout), 0)
	// before Finish.
	Observe func(offset int64, line int)
	// DiscardTranscript and DiscardStdout are the parsers' options of the
	// same names, for a consumer that keeps or prints the items itself
	// and counts and hashes stdout as it reads it (corpus with
	// Options.Discard, the command's timeline): Response.Transcript is
	// then empty and RawStreams.Stdout "". Both are outside the driver
	// contract (adaptertest RUN-04, and RawStreams' exact bytes).
	DiscardTranscript, DiscardStdout bool
	// Bounded is the parsers' option of the same name, for a consumer
	// that prints the events as they come (the command's timeline and
	// JSON lines): each lifecycle is forgotten once it is over, so an id
	// reused after it is a new lifecycle, not a reuse reported. Outside
	// the driver contract (adaptertest's Checker.Bounded judges such a
	// run).
	Bounded bool
}

// Parsed is what a Provider's Parse returns.
type Parsed struct {
	// Capability is the parser's stream capability for the input
	// (Provider.Capability's).
	Capability driver.StreamCapability
	// Response is Finish's response, RawStreams holding the exact stdout
	// and stderr and the terminal.
	Response driver.Response
	// Err is the error Finish or the sink returned.
	Err error
	// Findings are the broken pairings of the provider protocol the
	// parser saw in its pass (clause Unpaired).
	Findings []Finding
}

// Unpaired is the clause of a Finding for a provider message whose partner
// is missing from the capture: an item started and never completed in a
// run that reached its terminal, a terminal without the start it ends, a
// session without its announcement, a tool call without its result. The
// parsers repair such streams (they close what is open), so the contract
// validators cannot see the loss; the parser's own pass reports it.
const Unpaired = "UNPAIRED"

// Finding is a problem of the provider protocol in a capture.
type Finding struct {
	Clause  string
	Message string
	// Offset and Line are those of the message concerned; Offset is -1
	// when the finding concerns the run as a whole.
	Offset int64
	Line   int
}

var (
	mu       sync.RWMutex
	registry = map[string]Provider{}
	nameRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	targetRE = regexp.MustCompile(`^Fuzz[A-Z][A-Za-z0-9]*$`)
)

// Register adds p to the registry. It panics when p is incomplete (a Name
// of [a-z0-9-], Detect and Parse are required), when its fuzz target's
// name is malformed, or when its name, its fuzz target's name or a switch
// name is taken: a registry row registers once, from init.
func Register(p Provider) {
	if !nameRE.MatchString(p.Name) || p.Detect == nil || p.Parse == nil || p.Capability == nil {
		panic(fmt.Sprintf("provider: Register(%q): a provider needs a name of [a-z0-9-], Detect, Capability and Parse", p.Name))
	}
	parse, capability := p.Parse, p.Capability
	p.Parse = func(in Input, sink driver.EventSink) Parsed {
		r := parse(in, sink)
		r.Capability = capability(in)
		return r
	}
	if !targetRE.MatchString(p.FuzzTarget()) {
		panic(fmt.Sprintf("provider: Register(%q): fuzz target %q is not Fuzz, a capital letter, letters and digits", p.Name, p.FuzzTarget()))
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[p.Name]; dup {
		panic("provider: Register: " + p.Name + " is registered twice")
	}
	for _, q := range registry {
		a, b := p.FuzzTarget(), q.FuzzTarget()
		if strings.HasPrefix(a, b) || strings.HasPrefix(b, a) {
			panic(fmt.Sprintf("provider: Register(%q): fuzz target %s and %s's %s: no target's name may begin another's (set Fuzz.Target)", p.Name, a, q.Name, b))
		}
	}
	for _, s := range p.Switches {
		if !nameRE.MatchString(s.Name) || s.FromMeta == nil {
			panic(fmt.Sprintf("provider: Register(%q): switch %q needs a name of [a-z0-9-] and FromMeta", p.Name, s.Name))
		}
		for _, q := range registry {
			if slices.ContainsFunc(q.Switches, func(t Switch) bool { return t.Name == s.Name }) {
				panic(fmt.Sprintf("provider: Register(%q): switch %q is %s's", p.Name, s.Name, q.Name))
			}
		}
	}
	registry[p.Name] = p
}

// Lookup returns the provider called name.
func Lookup(name string) (Provider, bool) {
	mu.RLock()
	defer mu.RUnlock()
	p, ok := registry[name]
	return p, ok
}

// All returns the registered providers, sorted by name.
func All() []Provider {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Provider, 0, len(registry))
	for _, p := range registry {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Provider) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Names returns the registered names, sorted.
func Names() []string {
	var out []string
	for _, p := range All() {
		out = append(out, p.Name)
	}
	return out
}

// DetectLimit bounds the head of a capture that Detect reads.
const DetectLimit = 1 << 20

// Detect returns the provider whose Detect finds evidence first in head
// (at most DetectLimit bytes are looked at). ok is false when none does.
// Of providers with evidence at the same offset, one that another of them
// refines (Provider.Refines) drops out; two or more left make an error:
// the content is ambiguous and the caller must name the provider.
func Detect(head []byte) (p Provider, ok bool, err error) {
	head = head[:min(len(head), DetectLimit)]
	best := -1
	var tied []Provider
	for _, q := range All() {
		off, hit := q.Detect(head)
		switch {
		case !hit:
		case best < 0 || off < best:
			best, tied = off, []Provider{q}
		case off == best:
			tied = append(tied, q)
		}
	}
	if best < 0 {
		return Provider{}, false, nil
	}
	left := slices.DeleteFunc(slices.Clone(tied), func(q Provider) bool {
		return slices.ContainsFunc(tied, func(r Provider) bool { return slices.Contains(r.Refines, q.Name) })
	})
	if len(left) != 1 {
		names := make([]string, len(tied))
		for i, q := range tied {
			names[i] = q.Name
		}
		return Provider{}, false, fmt.Errorf("offset %d reads as a stream of each of %s; name the provider", best, strings.Join(names, ", "))
	}
	return left[0], true, nil
}

// SettingsFrom returns the values of p's switches that m implies.
func (p Provider) SettingsFrom(m Meta) map[string]bool {
	out := make(map[string]bool, len(p.Switches))
	for _, s := range p.Switches {
		out[s.Name] = s.FromMeta(m)
	}
	return out
}

// unpaired collects a parser's Options.Unpaired reports as Findings.
type unpaired []Finding

func (u *unpaired) add(offset int64, line int, msg string) {
	*u = append(*u, Finding{Clause: Unpaired, Message: msg, Offset: offset, Line: line})
}

// keepStderr reads a capture's stderr into resp.RawStreams for a parser
// that has none of its own (an HTTP response has no stderr, but a capture
// that comes with one keeps it, as every provider's RawStreams do), and
// joins a read error into err.
func keepStderr(in Input, resp *driver.Response, err error) error {
	if in.Stderr == nil {
		return err
	}
	b, rerr := io.ReadAll(in.Stderr)
	if resp.RawStreams == nil {
		resp.RawStreams = &driver.RawStreams{}
	}
	resp.RawStreams.Stderr = string(b)
	return errors.Join(err, rerr)
}
