package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/internal/chunk"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/provider"
)

// Chunking delivers a byte slice through an io.Reader in some pattern of
// reads. The parsers must give the same result under every chunking. The
// ones here are the module's one set (internal/chunk), which every test of
// the module delivers input under.
type Chunking struct {
	Name   string
	Reader func(b []byte) io.Reader
}

// The chunkings Test replays every case under.
var (
	// Whole delivers the input in reads as large as the caller asks.
	Whole = Chunking(chunk.Whole)
	// Lines delivers one line (terminator included) per read.
	Lines = Chunking(chunk.Lines)
	// Bytes delivers one byte per read.
	Bytes = Chunking(chunk.Bytes)
)

// Random delivers reads in a sequence fixed by seed, mostly of 1 to 64
// bytes and one in 16 of up to 4096.
func Random(seed uint64) Chunking { return Chunking(chunk.Random(seed)) }

// Chunkings returns Whole, Lines, Bytes and Random(seed).
func Chunkings(seed uint64) []Chunking {
	var out []Chunking
	for _, c := range chunk.All(seed) {
		out = append(out, Chunking(c))
	}
	return out
}

// Options select how Replay runs. The zero value replays whole, with the
// parser of the case's provider.
type Options struct {
	// Chunking delivers stdout and stdin; the zero value is Whole.
	Chunking Chunking
	// NoStream turns stream payloads off: the document then has the
	// transcript items only. Goldens are made with payloads on.
	NoStream bool
	// Stdout, when set, is read for stdout instead of the case's Stdout (a
	// live pipe, a file still being written): the case's Stdout then needs
	// to hold only what provider detection and switches looked at, and the
	// Result describes what the framing tee read.
	Stdout io.Reader
	// Live, when set, is called with every Document event as the parser
	// emits it (chunk events are not Document events), with its index
	// among the Document's events and its origin. The event's Stream and
	// RunEvent are valid for the call only (the next emission reuses
	// them): a consumer that keeps one past the call keeps a copy. Its
	// Item is the parser's, kept by reference as a RecordingSink keeps it.
	Live func(i int, ev Event, o Origin)
	// Begin, when set, is called once before the parse with the parser's
	// capability (what the Document's Capability will be): a consumer
	// writing the document as it comes (DocumentWriter) writes its head.
	Begin func(provider string, capability Capability)
	// Discard keeps no emission: each is judged as it comes
	// (adaptertest.Checker) and handed to Live, and then dropped, so that
	// a replay's memory is the parser's, not a copy of every event. The
	// Result's Document then has no Events (nil), Origins and Sink are
	// nil; its findings and everything else are the same. Nor is stdout
	// copied: it is counted and hashed as the parser reads it
	// (provider.Input.DiscardStdout), so the Result's
	// Response.RawStreams.Stdout is "" (the Document's stdout_bytes and
	// stdout_sha256 are the same). Two judgements need the bytes and get
	// them only from a stdout of at most 1 MiB: RSP-03's "Output contains
	// the raw stdout", and Truncated, from a final line without its LF of
	// at most 8 MiB (a longer one is Malformed).
	Discard bool
	// DiscardTranscript, with Discard, has the parser keep no transcript
	// either (provider.Input.DiscardTranscript, outside the driver
	// contract): for a consumer that prints the items as they come (Live)
	// and needs no more of them. The Document's Response then has an empty
	// transcript, and RUN-04 (the transcript mirrors the item events) is
	// not judged; everything else is the same.
	DiscardTranscript bool
	// Bounded, with Discard, has the parser and the Checker forget each
	// lifecycle once it is over (provider.Input.Bounded and
	// adaptertest's Checker.Bounded, outside the driver contract), so
	// that a long run costs memory for what is open, not for every id:
	// for a consumer that prints the events as they come. An id reused
	// after its lifecycle is over is then a new lifecycle under the same
	// id, not given a fresh "id#2" and not reported (EVT-03, EVT-05, the
	// parsers' own reuse findings). Of the malformed frames, the first
	// 1000 are listed one by one and the others in one Malformed finding
	// at the first of them that counts them (a truncated final line
	// still has its own). Without reuse and with fewer malformed frames,
	// everything is the same.
	Bounded bool
	// NoDigest, with Discard, has stdout counted but not hashed: the
	// Document's stdout_sha256 is then "", for a consumer that prints no
	// document (the findings, a timeline); everything else is the same.
	NoDigest bool
}

// Replay parses c with its provider's parser, delivering stdout whole, and
// builds its Document.
func Replay(c *Case) (*Result, error) { return Options{}.Replay(c) }

// Result is one replay of a case.
type Result struct {
	Case *Case
	Parsed
	// Sink holds every emission with its origin (nil with Options.Discard).
	Sink *adaptertest.RecordingSink
	// Document is the JSON document; Origins[i] is the origin of
	// Document.Events[i] (both without events with Options.Discard).
	Document *Document
	Origins  []Origin
	// Findings are the document's violations with the offset of the
	// offending frame, followed by the malformed lines and framing errors
	// the parser reported (clause Malformed or Truncated) and the broken
	// pairs of the provider protocol (clause Unpaired) the parser found.
	Findings []Finding

	cleanExit bool // exit code 0 without a signal: a truncation is damage
}

// Malformed is the pseudo-clause of a Finding for input the parser
// reported as malformed: a line that is not the protocol, an event out of
// order, a line after the terminal, a framing error. It is not an
// adaptertest clause (the parsers keep such lines as stdout items and stay
// within the contract), but a capture that has one is damaged.
const Malformed = "MALFORMED"

// Unpaired is the pseudo-clause of a Finding for a provider message whose
// partner is missing from the capture (provider.Unpaired): an item started
// and never completed in a run that reached its terminal, a terminal
// without the start it ends, a session without its announcement, a tool
// call without its result. The parsers repair such streams (they close
// what is open), so the contract validators cannot see the loss; each
// parser reports it from its own pass. It is what `agentwire check`
// reports for a capture with a line removed.
const Unpaired = provider.Unpaired

// Truncated is the pseudo-clause of a Finding for a malformed final line
// that ends without a newline and is a proper prefix of a JSON value: the
// capture was cut off mid-line (the CLI was killed or lost its output, as
// Claude Code 2.0.50 does past about 64 KiB). Any other malformed final
// line (CR-only line ends, a complete value followed by more bytes) is
// Malformed. A truncation is damage when the process exited 0 without a
// signal (a clean exit does not lose its last line), and only reported
// otherwise.
const Truncated = "TRUNCATED"

// Incomplete is the pseudo-clause of a Finding for a capture whose process
// exited 0 without a signal, timeout or cancellation, but whose stream has
// no terminal event: what a clean run always writes is missing. It is
// damage.
const Incomplete = "INCOMPLETE"

// Finding is a violation or a malformed frame, placed in stdout.
type Finding struct {
	adaptertest.Violation
	// Offset and Line are those of the frame that produced the offending
	// emission; Offset is -1 when the finding concerns the run as a whole.
	// Line is 0 for what Finish emitted at the end of the input.
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
}

// String renders a finding as "EVT-03 at offset 1234 (line 5) [#7]: message".
func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(f.Clause)
	switch {
	case f.Offset < 0:
		b.WriteString(" (whole run)")
	case f.Line == 0:
		fmt.Fprintf(&b, " at offset %d (end of stdout)", f.Offset)
	default:
		fmt.Fprintf(&b, " at offset %d (line %d)", f.Offset, f.Line)
	}
	if f.Index >= 0 {
		fmt.Fprintf(&b, " [event #%d]", f.Index)
	}
	b.WriteString(": ")
	b.WriteString(f.Message)
	return b.String()
}

// Replay parses c as o says and builds its Document.
func (o Options) Replay(c *Case) (*Result, error) {
	ch := o.Chunking
	if ch.Reader == nil {
		ch = Whole
	}
	p, in, err := prepare(c, ch, !o.NoStream, o.Stdout)
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", c.Name, err)
	}
	capability := p.Capability(in)
	if o.Begin != nil {
		o.Begin(c.Provider, capabilityOf(capability))
	}
	sink := newDocSink(!o.Discard, o.Discard && o.Bounded, o.Live)
	check := adaptertest.NewChecker(in.Streaming, capability)
	var m *meter
	if o.Discard {
		m = newMeter(in.Stdout, !o.NoDigest)
		in.Stdout, in.DiscardStdout = m, true
		in.DiscardTranscript = o.DiscardTranscript
		check.DiscardTranscript = o.DiscardTranscript
		in.Bounded, check.Bounded = o.Bounded, o.Bounded
	}
	// The parser emits into sink, which records, then has check judge,
	// then numbers and hands on each emission (sink.check), and tells
	// both where the frames start.
	sink.check = check
	in.Observe = sink.At
	r := &Result{Case: c, Parsed: parse(p, in, sink), Sink: sink.rec}
	r.build(sink, check, m)
	return r, nil
}

// stdoutView is what build needs of stdout: its length and digest, where
// its last LF stands (-1: none), whether it ends with one, and the bytes
// after the last LF (nil: not known, a final line too long to keep).
type stdoutView struct {
	n      int
	sha    string
	lastNL int64
	endsNL bool
	last   []byte
}

func (r *Result) build(sink *docSink, check *adaptertest.Checker, m *meter) {
	c, p := r.Case, r.Parsed
	var out stdoutView
	resp := p.Response // as the Checker judges it
	if m != nil {
		out = stdoutView{n: int(m.n), sha: m.sum(), lastNL: m.lastNL, endsNL: m.n > 0 && m.lastNL == m.n-1, last: m.tail}
		if rs := resp.RawStreams; rs != nil && m.whole != nil {
			// A small stdout is judged on its bytes, as a recording
			// replay judges it.
			cp := *rs
			cp.Stdout = string(m.whole)
			resp.RawStreams = &cp
		}
	} else {
		var stdout string
		if rs := p.Response.RawStreams; rs != nil {
			// What the framing tee read: the case's bytes, or a live source's.
			stdout = rs.Stdout
		} else {
			stdout = string(c.Stdout)
		}
		sum := sha256.Sum256(stringBytes(stdout))
		out = stdoutView{n: len(stdout), sha: hex.EncodeToString(sum[:]), lastNL: int64(strings.LastIndexByte(stdout, '\n')),
			endsNL: len(stdout) > 0 && stdout[len(stdout)-1] == '\n'}
		out.last = stringBytes(stdout[out.lastNL+1:])
	}
	doc := &Document{
		Provider:   c.Provider,
		Capability: capabilityOf(p.Capability),
		Response:   newDocResponse(p.Response, out.n, out.sha, c.Stderr),
		Violations: []adaptertest.Violation{},
	}
	if sink.rec != nil {
		doc.Events, r.Origins = docEvents(sink.rec)
	}
	report := check.Report(resp, p.Err, p.Codec)
	for _, part := range [][]adaptertest.Placed{report.Stream, report.Finish, report.Run, report.Response} {
		for _, v := range part {
			f := Finding{Violation: v.Violation, Offset: -1}
			f.Index = v.Place.Index
			if f.Index >= 0 {
				f.Offset, f.Line = v.Place.Origin.Offset, v.Place.Origin.Line
			}
			doc.Violations = append(doc.Violations, f.Violation)
			r.Findings = append(r.Findings, f)
		}
	}
	// Malformed input, once per frame. A final line cut off without its
	// newline is a truncated capture (a killed or crashed process), told
	// apart from damage in the middle of the stream.
	lastNL := out.lastNL
	truncated := func() bool {
		return out.n > 0 && !out.endsNL && out.last != nil && jsonPrefix(out.last)
	}
	for _, b := range sink.bad {
		clause := Malformed
		if b.at.Offset > lastNL && truncated() {
			clause = Truncated
		}
		r.Findings = append(r.Findings, Finding{
			Violation: adaptertest.Violation{Clause: clause, Index: b.index, Message: b.why},
			Offset:    b.at.Offset, Line: b.at.Line,
		})
	}
	if n := sink.more; n > 0 {
		// Bounded: one finding for the frames not listed, from the first
		// of them on; a truncated final line is still told apart.
		last := sink.lastMore
		cut := last.at.Offset > lastNL && truncated()
		if cut {
			n--
		}
		if n > 0 {
			b := sink.firstMore
			r.Findings = append(r.Findings, Finding{
				Violation: adaptertest.Violation{Clause: Malformed, Index: b.index,
					Message: fmt.Sprintf("%d malformed frames from here on, not listed one by one (a bounded replay lists the first %d): %s", n, boundedBad, b.why)},
				Offset: b.at.Offset, Line: b.at.Line,
			})
		}
		if cut {
			r.Findings = append(r.Findings, Finding{
				Violation: adaptertest.Violation{Clause: Truncated, Index: last.index, Message: last.why},
				Offset:    last.at.Offset, Line: last.at.Line,
			})
		}
	}
	r.Findings = append(r.Findings, p.Wire...)
	if out := c.Meta.Outcome(); out.Clean() && p.Response.RawStreams != nil && p.Response.RawStreams.Terminal == nil {
		r.Findings = append(r.Findings, Finding{
			Violation: adaptertest.Violation{Clause: Incomplete, Index: -1, Message: "the process exited 0 but the stream has no terminal event"},
			Offset:    -1,
		})
	}
	r.cleanExit = c.Meta.ExitCode == 0 && c.Meta.Signal == ""
	r.Document = doc
}

// stringBytes returns the bytes of s without a copy, for reading only (the
// last line of a stdout can be most of it).
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// jsonPrefix reports whether line (without its newline) is a proper prefix
// of a JSON value: it is not valid JSON, and the first problem is the end
// of the input, so more bytes could complete it.
func jsonPrefix(line []byte) bool {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return false
	}
	err := jsonguard.Check(line, 0)
	var se *jsonguard.SyntaxError
	return err != nil && errors.As(err, &se) && se.Offset >= len(line) && !errors.Is(err, jsonguard.ErrTooDeep)
}

// malformed reports whether a document event is a parser's report of
// malformed input, and why.
func malformed(ev Event) (string, bool) {
	switch {
	case ev.Item != nil:
		it := ev.Item
		if why := it.Metadata["malformed"]; why != "" {
			return why, true
		}
		if it.Subtype == "malformed" {
			return it.Text, true
		}
	case ev.Stream != nil:
		// A custom kind <provider>/malformed: "/malformed" at its end and
		// no slash before it (tested in that order, the first failing
		// fast for every other kind).
		k := string(ev.Stream.Kind)
		if n := len(k) - len("/malformed"); n >= 0 && k[n:] == "/malformed" && strings.IndexByte(k, '/') == n {
			return "malformed line", true
		}
	}
	return "", false
}

// JSON returns the canonical text of the document (golden.json).
func (r *Result) JSON() ([]byte, error) { return r.Document.Marshal() }

// Violations returns the adaptertest findings (not the malformed or
// truncated input).
func (r *Result) Violations() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Clause != Malformed && f.Clause != Truncated && f.Clause != Unpaired && f.Clause != Incomplete {
			out = append(out, f)
		}
	}
	return out
}

// Damaged returns the adaptertest findings, the malformed input, the
// unpaired protocol messages and a missing terminal on a clean exit: what
// `agentwire check` fails on. A truncated last line is damage only when
// the process exited 0 without a signal.
func (r *Result) Damaged() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Clause != Truncated || r.cleanExit {
			out = append(out, f)
		}
	}
	return out
}

func adaptertestViolation(f provider.Finding) adaptertest.Violation {
	return adaptertest.Violation{Clause: f.Clause, Index: -1, Message: f.Message}
}
