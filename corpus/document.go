package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
)

// Document is the JSON document of one parsed run: the output of
// `agentwire parse --format json` and the golden format. The package doc
// describes every member.
type Document struct {
	Provider   string                  `json:"provider"`
	Capability Capability              `json:"capability"`
	Events     []Event                 `json:"events"`
	Response   DocResponse             `json:"response"`
	Violations []adaptertest.Violation `json:"violations"`
}

// Capability is driver.StreamCapability with every member always present.
type Capability struct {
	Native       bool `json:"native"`
	TokenLevel   bool `json:"token_level"`
	Reasoning    bool `json:"reasoning"`
	ToolCallArgs bool `json:"tool_call_args"`
	HITL         bool `json:"hitl"`
	Finish       bool `json:"finish"`
}

// Event is one emission: exactly one member is set.
type Event struct {
	Stream   *driver.StreamPayload  `json:"stream,omitempty"`
	Item     *driver.TranscriptItem `json:"item,omitempty"`
	RunEvent *driver.RunEvent       `json:"run_event,omitempty"`
}

// DocResponse is the document's view of driver.Response.
type DocResponse struct {
	Output       string                  `json:"output"`
	Summary      string                  `json:"summary"`
	Transcript   []driver.TranscriptItem `json:"transcript"`
	Usage        *Usage                  `json:"usage"`
	Finish       *Finish                 `json:"finish"`
	Terminal     *Terminal               `json:"terminal"`
	Checkpoint   *Checkpoint             `json:"checkpoint"`
	Failure      *Failure                `json:"failure"`
	ExitCode     int                     `json:"exit_code"`
	Signal       string                  `json:"signal"`
	TimedOut     bool                    `json:"timed_out"`
	StdoutBytes  int                     `json:"stdout_bytes"`
	StdoutSHA256 string                  `json:"stdout_sha256"`
	StderrBytes  int                     `json:"stderr_bytes"`
}

// Usage is the token accounting the provider reported, with the one
// meaning of driver.Usage.
type Usage struct {
	InputTokens           int `json:"input_tokens"`
	OutputTokens          int `json:"output_tokens"`
	CachedInputTokens     int `json:"cached_input_tokens"`
	CacheWriteInputTokens int `json:"cache_write_input_tokens"`
	ReasoningTokens       int `json:"reasoning_tokens"`
}

// Finish is the normalized reason the provider stopped (driver.Finish):
// Reason a member of the driver.FinishReason union, Raw the provider's own
// value ("" when it sent none).
type Finish struct {
	Reason driver.FinishReason `json:"reason"`
	Raw    string              `json:"raw"`
}

// Terminal is the provider's official terminal event: its native name and
// its exact JSON value.
type Terminal struct {
	Event string          `json:"event"`
	JSON  json.RawMessage `json:"json"`
}

// Checkpoint is the resume checkpoint.
type Checkpoint struct {
	Valid bool          `json:"valid"`
	State *SessionState `json:"state"`
}

// SessionState is the checkpoint's session; Data is never null.
type SessionState struct {
	ResumeID  string            `json:"resume_id"`
	DisplayID string            `json:"display_id"`
	Data      map[string]string `json:"data"`
}

// Failure is the structured failure of the run; ErrorType and HTTPStatus
// are a model API's typed error ("" and 0 otherwise).
type Failure struct {
	Code       driver.FailureCode `json:"code"`
	Message    string             `json:"message"`
	ErrorType  string             `json:"error_type"`
	HTTPStatus int                `json:"http_status"`
}

// Marshal returns the canonical text of the document: two-space
// indentation, no HTML escaping, a final newline. It is golden.json.
func (d *Document) Marshal() ([]byte, error) {
	var b bytes.Buffer
	if err := d.Encode(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Encode writes the canonical text of the document (what Marshal returns)
// to w member by member and event by event, so that the text of a long
// run is never held whole: it is a DocumentWriter given the document's
// members in turn.
func (d *Document) Encode(w io.Writer) error {
	dw := NewDocumentWriter(w, d.Provider, d.Capability)
	if d.Events == nil {
		// A document without its events (Options.Discard): null, as
		// encoding/json writes a nil slice.
		dw.bw.WriteString("  \"events\": null,\n")
		dw.state = docEventsClosed
	}
	for i := range d.Events {
		if err := dw.Event(&d.Events[i]); err != nil {
			return err
		}
	}
	return dw.Close(&d.Response, d.Violations)
}

// DocumentWriter writes the canonical text of a Document (what Marshal
// returns) as a run goes: the head when it is made, each event as it
// comes, the response and the violations at Close. `agentwire parse
// --format json` writes a replay's document so (Options.Begin, Live and
// Discard), keeping no event. The indentation of a value does not depend
// on what surrounds it, so the pieces join into exactly the text of the
// document encoded at once.
type DocumentWriter struct {
	bw    *bufio.Writer
	buf   bytes.Buffer
	enc   *json.Encoder
	e     docEnc
	state int
	err   error
	items *spool // with TranscriptFromEvents: the items' text, in order
}

const (
	docNoEvents = iota
	docInEvents
	docEventsClosed
)

// NewDocumentWriter writes the head of a document (its provider and
// capability) to w and returns the writer of the rest.
func NewDocumentWriter(w io.Writer, provider string, capability Capability) *DocumentWriter {
	dw := &DocumentWriter{bw: bufio.NewWriterSize(w, 64<<10)}
	dw.enc = json.NewEncoder(&dw.buf)
	dw.enc.SetEscapeHTML(false)
	dw.head(provider, capability)
	return dw
}

func (dw *DocumentWriter) head(provider string, capability Capability) {
	dw.piece("{\n  \"provider\": ", provider, "  ", ",\n")
	dw.piece("  \"capability\": ", &capability, "  ", ",\n")
}

// piece writes before, v indented for its depth (its first line
// unprefixed, as it follows before), and after; the first error sticks.
func (dw *DocumentWriter) piece(before string, v any, prefix, after string) {
	if dw.err != nil {
		return
	}
	dw.buf.Reset()
	dw.enc.SetIndent(prefix, "  ")
	if dw.err = dw.enc.Encode(v); dw.err != nil {
		return
	}
	dw.bw.WriteString(before)
	dw.bw.Write(bytes.TrimSuffix(dw.buf.Bytes(), []byte("\n")))
	_, dw.err = dw.bw.WriteString(after)
}

// TranscriptFromEvents has Close write the response's transcript from the
// items of the events written, in their order, instead of the response's
// Transcript (which it ignores): for a replay whose parser keeps no
// transcript (Options.DiscardTranscript), where the item events are the
// transcript (adaptertest RUN-04 requires them to be; such a replay does
// not judge it). The items' text is spooled as it is written: in memory up
// to 8 MiB, then in a temporary file (os.CreateTemp's directory) that
// Close removes, so that a long run's document is never held whole.
// Call it before the first Event.
func (dw *DocumentWriter) TranscriptFromEvents() {
	dw.items = &spool{max: spoolMemory, chunk: spoolChunk}
}

// Event writes the next event.
func (dw *DocumentWriter) Event(ev *Event) error {
	before := ",\n    "
	if dw.state == docNoEvents {
		before = "  \"events\": [\n    "
		dw.state = docInEvents
	}
	if dw.err != nil {
		return dw.err
	}
	// Events gather in e.buf and go to bw more than its size at a time,
	// which bufio then writes through without copying them.
	dw.e.buf = append(dw.e.buf, before...)
	if dw.err = dw.e.event(ev, 2); dw.err != nil {
		return dw.err
	}
	if dw.items != nil && ev.Item != nil {
		// The event's item is at depth 3, as the transcript's items are:
		// its text is theirs (docEnc.event marks where it is).
		if dw.err = dw.items.add(dw.e.buf[dw.e.itemAt[0]:dw.e.itemAt[1]]); dw.err != nil {
			return dw.err
		}
	}
	if len(dw.e.buf) > dw.bw.Size() {
		dw.flushEvents()
	}
	return dw.err
}

// flushEvents writes the events gathered in e.buf to bw.
func (dw *DocumentWriter) flushEvents() {
	if len(dw.e.buf) > 0 && dw.err == nil {
		_, dw.err = dw.bw.Write(dw.e.buf)
	}
	dw.e.buf = dw.e.buf[:0]
}

// response appends resp at depth 1, with DocResponse's members in order.
// With items (DocumentWriter.TranscriptFromEvents) the transcript is the
// spooled items' text, written to w after what e holds before it.
func (e *docEnc) response(r *DocResponse, items *spool, w io.Writer) error {
	o := e.open(1)
	o.str("output", r.Output)
	o.str("summary", r.Summary)
	o.key("transcript")
	switch {
	case items != nil && items.n == 0:
		e.buf = append(e.buf, "[]"...)
	case items != nil:
		e.buf = append(e.buf, '[')
		if _, err := w.Write(e.buf); err != nil {
			return err
		}
		e.buf = e.buf[:0]
		if err := items.writeTo(w); err != nil {
			return err
		}
		e.newline(2)
		e.buf = append(e.buf, ']')
	case r.Transcript == nil:
		e.buf = append(e.buf, "null"...)
	case len(r.Transcript) == 0:
		e.buf = append(e.buf, "[]"...)
	default:
		e.buf = append(e.buf, '[')
		for i := range r.Transcript {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.newline(3)
			if err := e.item(&r.Transcript[i], 3); err != nil {
				return err
			}
		}
		e.newline(2)
		e.buf = append(e.buf, ']')
	}
	for _, f := range []struct {
		k string
		v any
	}{{"usage", r.Usage}, {"finish", r.Finish}, {"terminal", r.Terminal}, {"checkpoint", r.Checkpoint}, {"failure", r.Failure}, {"exit_code", r.ExitCode}, {"signal", r.Signal},
		{"timed_out", r.TimedOut}, {"stdout_bytes", r.StdoutBytes}, {"stdout_sha256", r.StdoutSHA256}, {"stderr_bytes", r.StderrBytes}} {
		o.key(f.k)
		if err := e.fallback(f.v, 2); err != nil {
			return err
		}
	}
	o.close()
	return nil
}

// Close writes the response and the violations, ending the document, and
// flushes it.
func (dw *DocumentWriter) Close(resp *DocResponse, violations []adaptertest.Violation) error {
	dw.flushEvents()
	switch dw.state {
	case docNoEvents:
		dw.bw.WriteString("  \"events\": [],\n")
	case docInEvents:
		dw.bw.WriteString("\n  ],\n")
	}
	dw.state = docEventsClosed
	if dw.err == nil {
		dw.e.buf = append(dw.e.buf[:0], "  \"response\": "...)
		if dw.err = dw.e.response(resp, dw.items, dw.bw); dw.err == nil {
			dw.e.buf = append(dw.e.buf, ",\n"...)
			_, dw.err = dw.bw.Write(dw.e.buf)
		}
	}
	if dw.items != nil {
		if err := dw.items.close(); dw.err == nil {
			dw.err = err
		}
	}
	dw.piece("  \"violations\": ", violations, "  ", "\n}\n")
	if dw.err != nil {
		return dw.err
	}
	return dw.bw.Flush()
}

// newDocResponse converts a response; stdoutBytes and stdoutSHA256 are the
// length and hex SHA-256 of the exact raw stdout, stderr the raw stderr.
func newDocResponse(resp driver.Response, stdoutBytes int, stdoutSHA256 string, stderr []byte) DocResponse {
	d := DocResponse{
		Output:       resp.Output,
		Summary:      resp.Summary,
		Transcript:   resp.Transcript,
		ExitCode:     resp.ExitCode,
		Signal:       resp.Signal,
		TimedOut:     resp.TimedOut,
		StdoutBytes:  stdoutBytes,
		StdoutSHA256: stdoutSHA256,
		StderrBytes:  len(stderr),
	}
	if d.Transcript == nil {
		d.Transcript = []driver.TranscriptItem{}
	}
	if u := resp.Usage; u != nil {
		d.Usage = &Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedInputTokens: u.CachedInputTokens,
			CacheWriteInputTokens: u.CacheWriteInputTokens, ReasoningTokens: u.ReasoningTokens}
	}
	if f := resp.Finish; f != nil {
		d.Finish = &Finish{Reason: f.Reason, Raw: f.Raw}
	}
	if rs := resp.RawStreams; rs != nil && rs.Terminal != nil {
		d.Terminal = &Terminal{Event: rs.Terminal.Event, JSON: rs.Terminal.JSON}
		if !json.Valid(d.Terminal.JSON) {
			// Keep the document valid JSON; RSP-05 reports the problem.
			q, _ := json.Marshal(string(rs.Terminal.JSON))
			d.Terminal.JSON = q
		}
	}
	if cp := resp.Checkpoint; cp != nil {
		d.Checkpoint = &Checkpoint{Valid: cp.Valid}
		if st := cp.State; st != nil {
			data := st.Data
			if data == nil {
				data = map[string]string{}
			}
			d.Checkpoint.State = &SessionState{ResumeID: st.ResumeID, DisplayID: st.DisplayID, Data: data}
		}
	}
	if f := resp.Failure; f != nil {
		d.Failure = &Failure{Code: f.Code, Message: f.Message, ErrorType: f.ErrorType, HTTPStatus: f.HTTPStatus}
	}
	return d
}

// capabilityOf converts a driver capability.
func capabilityOf(c driver.StreamCapability) Capability {
	return Capability{Native: c.Native, TokenLevel: c.TokenLevel, Reasoning: c.Reasoning, ToolCallArgs: c.ToolCallArgs, HITL: c.HITL, Finish: c.Finish}
}

// EventLines encodes events as JSON lines: each event's text as
// encoding/json marshals it (no indentation, no HTML escaping) and a
// newline, the lines of `agentwire parse --format jsonl`. The zero value
// is ready to use; it is not safe for concurrent use.
type EventLines struct{ e docEnc }

// Append appends the line of ev to dst and returns the extended slice.
// On an error (a value encoding/json cannot encode, such as a NaN) dst is
// returned as it was.
func (l *EventLines) Append(dst []byte, ev *Event) ([]byte, error) {
	l.e.compact = true
	l.e.buf = dst
	err := l.e.event(ev, 0)
	out := l.e.buf
	l.e.buf = nil
	if err != nil {
		return dst, err
	}
	return append(out, '\n'), nil
}
