package openai

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/apistream"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/internal/quote"
	"github.com/agentwire/agentwire/sse"
)

// The provider names, used in custom stream kinds
// ("openai-responses/response.web_search_call.searching") and as
// Response.Provider.
const (
	ProviderResponses = "openai-responses"
	ProviderChat      = "openai-chat"
)

// Format selects the wire format a Parser reads.
type Format uint8

const (
	// Auto decides from the first event that tells (a "type" beginning
	// with "response.", or a chunk with "choices" or object
	// "chat.completion.chunk"); until then error events are read the same
	// way in both formats. It is the zero value.
	Auto Format = iota
	// Responses is the OpenAI Responses API stream (POST /v1/responses).
	Responses
	// Chat is the Chat Completions stream (POST /v1/chat/completions) of
	// OpenAI and of every OpenAI-compatible provider.
	Chat
)

// String returns "auto", "responses" or "chat".
func (f Format) String() string {
	switch f {
	case Auto:
		return "auto"
	case Responses:
		return "responses"
	case Chat:
		return "chat"
	}
	return "format(" + strconv.Itoa(int(f)) + ")"
}

// Provider returns the provider name of the format: ProviderResponses,
// ProviderChat, or "openai" for Auto.
func (f Format) Provider() string {
	switch f {
	case Responses:
		return ProviderResponses
	case Chat:
		return ProviderChat
	}
	return "openai"
}

// Outcome is the observed outcome of the HTTP exchange, passed to
// [Parser.Finish]: Err is a read error of the body (a reset connection),
// Cancelled and TimedOut the caller's. It is the same type for every
// parser.
type Outcome = driver.Outcome

// Options configures a [Parser]. The zero value parses a non-streaming run
// and detects the format.
type Options struct {
	// Format is the wire format; Auto (the zero value) detects it.
	Format Format
	// Streaming emits normalized StreamPayloads through the sink's
	// EmitStream (driver.Request.Streaming). Transcript items are emitted
	// either way.
	Streaming bool
	// HTTPStatus is the status of the response whose body is fed, when the
	// caller knows it; it is copied onto the typed error of an in-stream
	// error event (RunFailure.HTTPStatus). Parse and ParseHTTP set it.
	HTTPStatus int
	// Outcome is the outcome of the exchange as the caller saw it
	// (cancelled, timed out), given to Finish by Parse, which adds a read
	// error of the body to it.
	Outcome Outcome
	// Observe, when set, is told by Parse where each frame starts, before
	// it is fed: its byte offset in the body and its 1-based line; and
	// (len(body), 0) before Finish.
	Observe func(offset int64, line int)
	// Unpaired, when set, is told of each event whose partner or
	// predecessor is missing from the body, with the event's byte offset
	// and line: a Responses sequence_number that skips or repeats a
	// number, an event for an output item no response.output_item.added
	// announced, an item announced but never done when the terminal came;
	// a Chat choice that [DONE] ended without its finish_reason. The
	// parser repairs such a stream (it closes what is open), so the
	// contract validators cannot see the loss; this is how it is reported
	// (the provider registry's UNPAIRED findings).
	Unpaired func(offset int64, line int, message string)

	// DiscardTranscript keeps no transcript: Response.Transcript is empty
	// and each item is only handed to the sink (internal/emit's
	// DiscardTranscript). It is for a consumer that keeps or prints the
	// items itself, such as a command printing a timeline as it comes, and
	// it is outside the driver contract: the transcript no longer mirrors
	// the item events (adaptertest RUN-04).
	DiscardTranscript bool

	// Bounded forgets each lifecycle once it is over, so that a long run
	// costs memory for what is open, not for every id it saw
	// (internal/emit's Bounded). It is for a consumer that prints the
	// events as they come and keeps no transcript (with DiscardTranscript),
	// such as a command printing a timeline, and it is outside the driver
	// contract: an id reused after its lifecycle is over is taken for a new
	// lifecycle under the same id, neither given a fresh "id#2" nor
	// reported as a reuse (adaptertest's Checker judges such a run with its
	// own Bounded). The parser's own state is one
	// response's items and tool calls, which the terminal event
	// reconciles and the uniqueness of call ids needs. Parse without it to judge a stream exactly.
	Bounded bool

	// DiscardStdout makes Parse keep no copy of stdout: RawStreams.Stdout
	// is "" (stderr and the terminal are kept). It is for a consumer that
	// counts and hashes stdout as it is read (wrapping the reader it gives
	// Parse), and it is outside the driver contract, which wants the exact
	// bytes there. Feed and Finish ignore it.
	DiscardStdout bool

	// fullPath turns the fast paths (the Chat chunk's, the Responses
	// event's) off, for the tests that hold the two paths to the same
	// result (FuzzChatFast, FuzzResponsesFast).
	fullPath bool
}

// Capability is the parser's StreamCapability, whatever the options and
// format: both APIs are formal event protocols (Native) that stream text
// and reasoning in deltas (TokenLevel, Reasoning) and tool-call arguments
// in fragments (ToolCallArgs), and always say why generation stopped
// (Finish). Neither has human-decision events (an mcp_approval_request is
// answered in the next request).
var Capability = driver.StreamCapability{Native: true, TokenLevel: true, Reasoning: true, ToolCallArgs: true, Finish: true}

// The Response.Metadata keys the parser sets.
const (
	MetaTransport   = "transport"             // "openai-responses-sse", "openai-chat-sse", "...-json" for a non-streamed body
	MetaID          = "id"                    // the response id (resp_...) or completion id (chatcmpl-...)
	MetaSequence    = "sequence_number"       // the last Responses sequence_number, when the events carry one
	MetaDone        = "done_sentinel"         // "seen", or "absent" when a Chat stream ended without data: [DONE]
	MetaMalformed   = apistream.MetaMalformed // number of malformed events and framing errors, when any
	MetaProblem     = apistream.MetaProblem   // the first malformed event's reason, when any
	MetaUnknown     = apistream.MetaUnknown   // number of unmapped events and item types, when any
	MetaChoices     = "choices"               // number of Chat choices, when more than one
	MetaFingerprint = "system_fingerprint"
	MetaServiceTier = "service_tier"
)

// ErrFinished is returned by Feed, FeedError and FeedBody after Finish.
var ErrFinished = errors.New("openai: parser already finished")

// Parser is the state machine for one response body. Feed it the SSE
// frames in order (or FeedBody a non-streamed or error body), then call
// Finish once. It is not safe for concurrent use.
type Parser struct {
	em     *emit.Emitter
	opts   Options
	format Format

	id, model   string
	fingerprint string
	serviceTier string
	initDone    bool
	json        bool // the body was a JSON document, not a stream

	terminal *driver.TerminalPayload
	ended    bool // the format's terminal was reached
	failure  *driver.RunFailure
	finish   *driver.Finish
	usage    *driver.Usage
	output   string // the Output, settled at the end of the body

	where    string // what was open when the body ended
	problems apistream.Problems
	done     bool
	buf      []byte            // scratch for unescaping
	kbuf     []byte            // scratch for unescaping member names
	members  jsonguard.Members // the events' validation (Chat chunks, Responses events), remembering the last
	// ctop is the top-level members of the Chat chunk being handled, read
	// by ctopMember (see checkChunk).
	ctop       chatTop
	ctopMember func(name, v []byte)
	// fast is the choices of the Chat chunk being handled when fastChunk
	// read it (ctop.fast set).
	fast  []fastChoice
	fmemo fastMemo
	// fshape is the last chunk fastChunk read whole and its reading.
	fshape fastShape
	// rshape is the last Responses event fastREvent read whole; rspans
	// is fastREvent's scratch (per member: name and value offsets).
	rshape rShape
	rspans []int

	r responsesState
	c chatState
}

// New returns a Parser that emits to sink. The sink is used only during
// Feed, FeedError, FeedBody and Finish.
func New(sink driver.EventSink, opts Options) *Parser {
	p := &Parser{em: emit.New(sink, opts.Streaming, Capability), opts: opts, format: opts.Format}
	p.r.init()
	p.c.init()
	if opts.DiscardTranscript {
		p.em.DiscardTranscript()
	}
	if opts.Bounded {
		p.em.Bounded()
	}
	return p
}

// Capability returns the parser's StreamCapability (the package variable
// Capability).
func (p *Parser) Capability() driver.StreamCapability { return Capability }

// Format returns the format being parsed: Options.Format, or what Auto
// detected so far (Auto while undecided).
func (p *Parser) Format() Format { return p.format }

// Terminal returns the terminal event seen so far, or nil: Responses'
// response.completed, response.incomplete or response.failed; for Chat the
// chunk that carried the finish_reason of the Output choice; the first
// error event of a stream that failed without one ("error"), or the JSON
// error document of a non-2xx response ("http_error").
func (p *Parser) Terminal() *driver.TerminalPayload { return p.terminal }

// Malformed returns the number of malformed events and framing errors.
func (p *Parser) Malformed() int { return p.problems.Malformed }

// Unknown returns the number of unmapped events and item types.
func (p *Parser) Unknown() int { return p.problems.Unknown }

func (p *Parser) provider() string { return p.format.Provider() }

// unpaired reports a broken pairing to Options.Unpaired.
func (p *Parser) unpaired(offset int64, line int, msg string) {
	if p.opts.Unpaired != nil {
		p.opts.Unpaired(offset, line, msg)
	}
}

// isDone reports whether data is the [DONE] sentinel (the OpenAI SDKs stop
// at a payload that begins with it).
func isDone(data []byte) bool { return bytes.HasPrefix(data, []byte("[DONE]")) }

// Feed processes one frame of the body, in stream order. Frames that are
// not events (comments such as OpenRouter's ": OPENROUTER PROCESSING"
// keep-alives, blank lines, a BOM, under sse.Options.Spans) carry nothing
// and are skipped. Malformed or unknown input is recorded, never fatal:
// Feed returns only the sink's error (sticky) or ErrFinished.
func (p *Parser) Feed(f sse.Frame) error {
	if p.done {
		return ErrFinished
	}
	if err := p.em.Err(); err != nil {
		return err
	}
	if f.Kind != sse.KindEvent {
		return nil
	}
	data := f.Data
	i := jsonguard.SkipWS(data, 0)
	if i == len(data) {
		return nil // "data:" with nothing: a keep-alive some servers send
	}
	if isDone(data[i:]) {
		return p.doneSentinel(f)
	}
	// Once the format is known, one pass validates an event and reads its
	// top-level members.
	switch {
	case p.format == Responses && data[i] == '{':
		var ev rEvent
		if p.opts.fullPath || !p.fastREvent(data, i, &ev) {
			if err := p.checkREvent(f, &ev); err != nil {
				return p.malformedEvent(f, "invalid JSON: "+err.Error())
			}
		} else if ev.typ == "" {
			ev.typ = f.Event
		}
		return p.responsesEventOf(f, &ev)
	case p.format == Chat && data[i] == '{':
		if !p.opts.fullPath && p.fastChunk(data) {
			p.ctop.fast = true
			return p.chatChunkOf(f, &p.ctop)
		}
		t, err := p.checkChunk(data)
		if err != nil {
			return p.malformedEvent(f, "invalid JSON: "+err.Error())
		}
		return p.chatChunkOf(f, t)
	}
	if err := jsonguard.Check(data, 0); err != nil {
		if data[i] != '{' && data[i] != '[' {
			return p.malformedEvent(f, "not JSON")
		}
		return p.malformedEvent(f, "invalid JSON: "+err.Error())
	}
	if data[i] != '{' {
		return p.malformedEvent(f, "JSON value that is not an object")
	}
	if p.format == Auto {
		p.detect(f)
	}
	switch p.format {
	case Responses:
		return p.responsesEvent(f)
	case Chat:
		return p.chatChunk(f)
	}
	// Still undecided: only an error can be read without knowing.
	if ev, ok := errorEvent(f); ok {
		return p.streamError(f, ev)
	}
	return p.unknownEvent(f, f.Event)
}

// detect decides the format from a frame.
func (p *Parser) detect(f sse.Frame) { p.format = FormatOf(f.Event, f.Data) }

// FormatOf tells the format from one event: its SSE event name (or "")
// and its data, or from a whole JSON body (with the name ""): Responses
// for a "type" that begins with "response." (or such an event name) or an
// object "response"; Chat for a chunk with "choices" or an object
// "chat.completion" or "chat.completion.chunk"; Auto when the event does
// not tell (an error, a keep-alive, another provider's event). It does
// not validate data and never panics.
func FormatOf(event string, data []byte) Format {
	if strings.HasPrefix(event, "response.") {
		return Responses
	}
	o, _ := object(data)
	for o.next() {
		switch string(o.key) {
		case "type":
			if bytes.HasPrefix(o.v(), []byte(`"response.`)) {
				return Responses
			}
		case "object":
			v := o.v()
			if bytes.HasPrefix(v, []byte(`"chat.completion`)) {
				return Chat
			}
			if string(v) == `"response"` {
				return Responses
			}
		case "choices":
			return Chat
		}
	}
	return Auto
}

// FeedError records a framing error from the SSE reader (an *sse.Error
// for an event over the size limit, whose bytes were skipped) as a
// malformed event; parsing goes on. It returns only the sink's error.
func (p *Parser) FeedError(err error) error {
	if p.done {
		return ErrFinished
	}
	if err == nil {
		return p.em.Err()
	}
	return p.poison(apistream.FramingError(err))
}

// malformedEvent keeps an event the protocol does not allow as a stdout
// transcript item and a <provider>/malformed payload.
func (p *Parser) malformedEvent(f sse.Frame, why string) error {
	text := string(f.Data)
	meta := map[string]string{"malformed": why, "line": strconv.Itoa(f.Line), "offset": strconv.FormatInt(f.Offset, 10)}
	if f.Event != "" {
		meta["event"] = f.Event
	}
	return p.poison(driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: text, Metadata: meta},
		map[string]any{"error": why, "line": f.Line, "offset": f.Offset, "text": text})
}

func (p *Parser) poison(it driver.TranscriptItem, raw map[string]any) error {
	p.problems.Mark(it.Metadata["malformed"])
	if it.Text == "" {
		it.Text = it.Metadata["malformed"]
	}
	if err := p.em.Item(it); err != nil {
		return err
	}
	return p.em.Custom(p.provider(), "malformed", driver.StreamPayload{Raw: raw})
}

// unknownEvent keeps an event this parser does not map as the custom
// payload <provider>/<type> with the whole event in Raw. It is counted,
// not malformed: both APIs add event types over time.
func (p *Parser) unknownEvent(f sse.Frame, typ string) error {
	p.problems.Unknown++
	if typ == "" {
		typ = "unknown"
	}
	return p.em.Custom(p.provider(), typ, driver.StreamPayload{Raw: rawMap(f.Data)})
}

// doneSentinel handles data: [DONE]: the Chat terminal; after a Responses
// terminal (OpenRouter appends one) it carries nothing.
func (p *Parser) doneSentinel(f sse.Frame) error {
	if p.format == Chat || p.format == Auto {
		return p.chatDone(f)
	}
	p.r.doneSeen = true
	return nil
}

// init emits the init transcript item and run.started with the id, once.
func (p *Parser) initRun(id, model string) error {
	if p.id == "" {
		p.id = id
	}
	if p.model == "" {
		p.model = model
	}
	if p.initDone || (id == "" && model == "") {
		return nil
	}
	p.initDone = true
	it := driver.TranscriptItem{Kind: driver.TranscriptInit, Model: p.model}
	if p.format == Responses {
		// The response id is the handle of previous_response_id.
		it.SessionID = p.id
	} else if p.id != "" {
		it.Metadata = map[string]string{MetaID: p.id}
	}
	if err := p.em.Item(it); err != nil {
		return err
	}
	if p.em.Started() {
		return nil
	}
	return p.em.Start(p.id, "", "")
}

// errFields is a typed provider error as it arrives: an "error" object
// ({"type", "code", "message", "param"}, OpenAI and most compatibles),
// flat members, or a string.
type errFields struct {
	typ, code, message, param string
	status                    int // a status the error object names (Groq's status_code)
	raw                       []byte
}

// readError reads an error object (or string) v.
func readError(v []byte) errFields {
	e := errFields{raw: v}
	if isString(v) {
		e.message = str(v)
		return e
	}
	o, ok := object(v)
	if !ok {
		return e
	}
	for o.next() {
		switch string(o.key) {
		case "type":
			e.typ = scalar(o.v())
		case "code":
			e.code = scalar(o.v())
		case "message":
			e.message = scalar(o.v())
		case "param":
			e.param = scalar(o.v())
		case "status_code", "status":
			if n, ok := num(o.v()); ok {
				e.status = n
			} else if e.typ == "" {
				e.typ = scalar(o.v()) // Google's "status": "INVALID_ARGUMENT"
			}
		}
	}
	return e
}

// errorEvent reads the error of an error frame: a top-level "error"
// member (object or string), or for a frame named "error" or typed "error"
// whose members are flat, the frame itself. ok is false for a frame that
// carries no error.
func errorEvent(f sse.Frame) (errFields, bool) {
	o, _ := object(f.Data)
	var e errFields
	found, typed := false, false
	for o.next() {
		switch string(o.key) {
		case "error":
			if !isNull(o.v()) {
				e, found = readError(o.v()), true
			}
		case "type":
			typed = string(o.v()) == `"error"`
		}
	}
	if found {
		e.raw = f.Data
		return e, true
	}
	if f.Event == "error" || typed {
		e = readError(f.Data)
		if e.typ == "error" {
			e.typ = ""
		}
		e.raw = f.Data
		return e, true
	}
	return errFields{}, false
}

// failureOf makes the typed RunFailure of a provider error.
func (p *Parser) failureOf(e errFields, status int) *driver.RunFailure {
	f := &driver.RunFailure{Code: driver.FailureProviderError, Message: e.message, HTTPStatus: status}
	// The code is the specific one ("rate_limit_exceeded",
	// "insufficient_quota", "tool_use_failed"); type the class
	// ("invalid_request_error").
	// A numeric code (OpenRouter's 400) is a status, not a type.
	f.ErrorType = e.code
	if f.ErrorType == "" || isDigits(f.ErrorType) {
		f.ErrorType = e.typ
	}
	meta := map[string]any{}
	if e.typ != "" {
		meta["type"] = e.typ
	}
	if e.code != "" {
		meta["code"] = e.code
	}
	if e.param != "" {
		meta["param"] = e.param
	}
	if e.status != 0 {
		meta["status_code"] = e.status
	}
	if len(meta) > 0 {
		f.Metadata = meta
	}
	if f.Message == "" {
		switch {
		case f.ErrorType != "":
			f.Message = f.ErrorType
		case status != 0:
			f.Message = "HTTP " + strconv.Itoa(status)
		default:
			f.Message = "provider error"
		}
	}
	return f
}

func isDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// streamError records a provider error event: the first one is the run's
// failure (later ones only fill what it lacks), and each is kept as a
// failure transcript item and a <provider>/error payload.
func (p *Parser) streamError(f sse.Frame, e errFields) error {
	fail := p.failureOf(e, p.opts.HTTPStatus)
	p.setFailure(fail)
	if p.terminal == nil {
		// The error ends the stream (the SDKs stop at it); a terminal that
		// follows (response.failed) takes its place.
		p.terminal = terminalOf("error", f)
	}
	it := driver.TranscriptItem{Kind: driver.TranscriptFailure, Text: fail.Message, IsError: true}
	if fail.ErrorType != "" {
		it.Metadata = map[string]string{"code": fail.ErrorType}
	}
	if err := p.em.Item(it); err != nil {
		return err
	}
	return p.em.Custom(p.provider(), "error", driver.StreamPayload{Raw: rawMap(f.Data)})
}

func (p *Parser) setFailure(f *driver.RunFailure) {
	if p.failure == nil {
		p.failure = f
		return
	}
	if p.failure.ErrorType == "" {
		p.failure.ErrorType = f.ErrorType
	}
	if p.failure.HTTPStatus == 0 {
		p.failure.HTTPStatus = f.HTTPStatus
	}
}

// FeedBody processes a whole body that is not an event stream: the JSON
// error document of a non-2xx response (status is its HTTP status), or the
// JSON of a non-streamed 2xx response (a chat.completion object, or a
// Responses response object), which is read as the stream that would have
// carried it. Use it instead of Feed, once.
func (p *Parser) FeedBody(status int, body []byte) error {
	if p.done {
		return ErrFinished
	}
	if err := p.em.Err(); err != nil {
		return err
	}
	p.json = true
	if jsonguard.SkipWS(body, 0) == len(body) && (status == 0 || status >= 200 && status < 300) {
		return nil // an empty body: nothing to read, the run is incomplete
	}
	f := sse.Frame{Kind: sse.KindEvent, Data: body, Raw: body, Line: 1}
	okStatus := status == 0 || (status >= 200 && status < 300)
	valid := jsonguard.Check(body, 0) == nil
	if okStatus && valid {
		if e, ok := errorEvent(f); ok && isErrorDoc(body) {
			return p.httpError(f, e, status)
		}
		if p.format == Auto {
			p.detect(f)
		}
		switch p.format {
		case Chat:
			// A chat.completion: the choices' finish_reason is its terminal.
			return p.chatChunk(f)
		case Responses:
			return p.responseDocument(f)
		}
		return p.unknownEvent(f, "body")
	}
	if !okStatus {
		var e errFields
		if valid {
			e = bodyError(body)
		}
		if e.message == "" && !valid {
			e.message = "HTTP " + strconv.Itoa(status) + ": " + quote.Bytes(body, quote.DefaultMax)
		}
		return p.httpError(f, e, status)
	}
	return p.malformedEvent(f, "response body is neither JSON nor an event stream")
}

// isErrorDoc reports whether a 2xx JSON body is an error document: it has
// a non-null top-level "error" and no "choices" or "output".
func isErrorDoc(b []byte) bool {
	o, _ := object(b)
	hasErr, hasData := false, false
	for o.next() {
		switch string(o.key) {
		case "error":
			hasErr = !isNull(o.v())
		case "choices", "output":
			hasData = true
		}
	}
	return hasErr && !hasData
}

// bodyError reads the error of an HTTP error body: {"error": {...}}
// (OpenAI and most compatibles), [{"error": {...}}] (Google's OpenAI
// endpoint), {"error": "text"}, or a flat {"message", "type", "code"}
// object (vLLM, FastAPI's {"detail": ...}).
func bodyError(b []byte) errFields {
	i := jsonguard.SkipWS(b, 0)
	if i < len(b) && b[i] == '[' {
		var first []byte
		each(b, func(el []byte) {
			if first == nil {
				first = el
			}
		})
		return bodyError(first)
	}
	o, ok := object(b)
	if !ok {
		return errFields{raw: b}
	}
	var e errFields
	found := false
	detail := ""
	for o.next() {
		switch string(o.key) {
		case "error":
			if !isNull(o.v()) {
				e, found = readError(o.v()), true
			}
		case "detail":
			detail = scalar(o.v())
		}
	}
	if !found {
		e = readError(b)
	}
	if e.message == "" {
		e.message = detail
	}
	e.raw = b
	return e
}

// httpError records the typed error of a non-2xx response.
func (p *Parser) httpError(f sse.Frame, e errFields, status int) error {
	fail := p.failureOf(e, status)
	p.setFailure(fail)
	if p.terminal == nil && jsonguard.Check(f.Data, 0) == nil {
		// The error document is the whole answer.
		p.terminal = terminalOf("http_error", f)
	}
	it := driver.TranscriptItem{Kind: driver.TranscriptFailure, Text: fail.Message, IsError: true,
		Metadata: map[string]string{"http_status": strconv.Itoa(status)}}
	if fail.ErrorType != "" {
		it.Metadata["code"] = fail.ErrorType
	}
	if err := p.em.Item(it); err != nil {
		return err
	}
	raw := rawMap(f.Data)
	if raw == nil {
		raw = map[string]any{"body": string(f.Data)}
	}
	raw["http_status"] = status
	return p.em.Custom(p.provider(), "http_error", driver.StreamPayload{Raw: raw})
}

// Finish ends the run with the outcome of the exchange: it closes every
// open lifecycle and emits the one terminal payload, and returns the
// Response.
//
// The run is, in this order:
//   - a provider error when an error event, an error chunk, a failed
//     response or a non-2xx body said so (FailureProviderError, with the
//     provider's type, message and status; Finish {error}, no Usage);
//   - cancelled or timed out when the outcome says so;
//   - a success when the format's terminal was reached (see the package
//     doc: Responses' response.completed or response.incomplete; Chat's
//     [DONE], or a finish_reason on a stream without one), with its Finish
//     and Usage;
//   - otherwise incomplete (FailureIncomplete): the body ended, or could
//     not be read (Outcome.Err, also returned), before its terminal.
//
// Finish returns a non-nil error only for Outcome.Err or a sink error,
// and may be called once.
func (p *Parser) Finish(out Outcome) (driver.Response, error) {
	if p.done {
		return driver.Response{}, ErrFinished
	}
	switch p.format {
	case Responses:
		p.responsesEnd()
	case Chat:
		p.chatEnd()
	}
	p.done = true
	resp := driver.Response{
		Output:   p.output,
		Provider: p.provider(),
		Model:    p.model,
		Metadata: map[string]string{MetaTransport: p.transport()},
	}
	if p.id != "" {
		resp.Metadata[MetaID] = p.id
	}
	if p.fingerprint != "" {
		resp.Metadata[MetaFingerprint] = p.fingerprint
	}
	if p.serviceTier != "" {
		resp.Metadata[MetaServiceTier] = p.serviceTier
	}
	p.problems.Metadata(resp.Metadata)
	p.metadata(resp.Metadata)
	if p.terminal != nil {
		resp.RawStreams = &driver.RawStreams{Terminal: p.terminal}
	}
	var finish *driver.Finish
	failure := p.failure
	switch {
	case failure != nil:
		finish = &driver.Finish{Reason: driver.FinishError, Raw: p.errorRaw()}
	case out.Cancelled:
		failure = &driver.RunFailure{Code: driver.FailureCancelled, Message: "request cancelled"}
	case out.TimedOut:
		failure = &driver.RunFailure{Code: driver.FailureTimeout, Message: "request timed out"}
	case p.ended:
		finish = p.finish
		if finish == nil {
			finish = &driver.Finish{Reason: driver.FinishUnknown}
		}
		resp.Usage = p.usage
	default:
		msg := "stream ended before its terminal event"
		if p.json {
			msg = "response body ended before its terminal"
		}
		if out.Err != nil {
			msg += ": " + out.Err.Error()
		}
		failure = &driver.RunFailure{Code: driver.FailureIncomplete, Message: msg + p.incompleteWhere()}
	}
	resp.Failure = failure
	resp.Finish = finish
	err := p.em.FinishWith(resp.Usage, finish, failure)
	tr := p.em.Transcript()
	resp.Transcript = tr[:len(tr):len(tr)]
	if out.Err != nil {
		return resp, out.Err
	}
	return resp, err
}

func (p *Parser) transport() string {
	s := p.provider()
	if p.json {
		return s + "-json"
	}
	return s + "-sse"
}

// errorRaw is the Raw of the error finish: the failed response's status or
// the error's type.
func (p *Parser) errorRaw() string {
	switch {
	case p.r.failedStatus != "":
		return p.r.failedStatus
	case p.failure.ErrorType != "":
		return p.failure.ErrorType
	}
	return "error"
}

func (p *Parser) metadata(m map[string]string) {
	switch p.format {
	case Responses:
		if p.r.hasSeq {
			m[MetaSequence] = strconv.Itoa(p.r.lastSeq)
		}
	case Chat:
		switch {
		case p.c.doneSeen:
			m[MetaDone] = "seen"
		case !p.json:
			m[MetaDone] = "absent"
		}
		if n := len(p.c.choices); n > 1 {
			m[MetaChoices] = strconv.Itoa(n)
		}
	}
}

// incompleteWhere says what was open when an incomplete stream ended.
func (p *Parser) incompleteWhere() string { return p.where }

// terminalOf is the TerminalPayload of a frame: its JSON exactly as it
// stands in the body (the data without surrounding whitespace), or nil
// when the data is not contiguous there (JSON split over several data:
// lines, whose joined text the body does not hold).
func terminalOf(event string, f sse.Frame) *driver.TerminalPayload {
	return apistream.Terminal(event, f.Data, f.Raw)
}

// toolInput parses the arguments of a tool call: the JSON value (an empty
// string is {}), or, when they are not valid JSON (a call cut by
// max_output_tokens, a provider's invalid output), the raw string with
// ok false: it is kept, never handed on as a valid call.
func toolInput(args []byte) (any, bool, string) {
	i := jsonguard.SkipWS(args, 0)
	if i == len(args) {
		return map[string]any{}, true, ""
	}
	if err := jsonguard.Check(args, 0); err != nil {
		return string(args), false, err.Error()
	}
	return rawValue(args), true, ""
}

// toolCallItem is the transcript item of a finished client tool call.
func toolCallItem(id, name string, args []byte, meta map[string]string) driver.TranscriptItem {
	if name == "" {
		name = "unknown"
	}
	it := driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolUseID: id, ToolName: name, Metadata: meta}
	in, ok, why := toolInput(args)
	it.Input = in
	if !ok {
		it.IsError = true
		if it.Metadata == nil {
			it.Metadata = map[string]string{}
		}
		it.Metadata["invalid_arguments"] = why
	}
	return it
}
