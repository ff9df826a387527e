package geminicli

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/ndjson"
)

// Provider is the provider name: the registry name and the prefix of the
// custom stream kinds ("gemini-cli/error", ...).
const Provider = "gemini-cli"

// Outcome is [driver.Outcome], the process outcome given to
// [Parser.Finish]: one type for every parser.
type Outcome = driver.Outcome

// Options configures a [Parser]. The zero value parses a fresh,
// non-streaming run.
type Options struct {
	// Streaming emits normalized StreamPayloads through the sink's
	// EmitStream (driver.Request.Streaming). Transcript items are emitted
	// either way.
	Streaming bool

	// SessionData is copied into the checkpoint's SessionState.Data: the
	// guard inputs driver.ParamCWD, driver.ParamWorkspaceID and
	// driver.ParamProfileFingerprint, and anything else the driver wants
	// stored with the session.
	SessionData map[string]string

	// Resume is the checkpoint state of the run this one resumes (`gemini
	// --resume <id>`), or nil for a new session. A resumed run whose init
	// names another session never yields a valid checkpoint.
	Resume *driver.SessionState

	// Observe, when set, is told by Parse where each frame starts, before
	// the frame is fed: its byte offset in stdout and its 1-based line;
	// then (len(stdout), 0) before Finish. Feed and Finish ignore it.
	Observe func(offset int64, line int)

	// Unpaired, when set, is told of each protocol message whose partner
	// is missing (see pairs: a stream without its init, a tool_result
	// without its tool_use, a tool_use without its tool_result in a run
	// that reached its result): the offset, line and a message. The parser
	// repairs such a stream (it closes what is open), so only this says a
	// line was lost. Open tool calls are reported by Finish.
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
	// own Bounded). Parse without it to judge a stream exactly.
	Bounded bool

	// DiscardStdout makes Parse keep no copy of stdout: RawStreams.Stdout
	// is "" (stderr and the terminal are kept). It is for a consumer that
	// counts and hashes stdout as it is read (wrapping the reader it gives
	// Parse), and it is outside the driver contract, which wants the exact
	// bytes there. Feed and Finish ignore it.
	DiscardStdout bool
}

// Capability is the parser's StreamCapability, whatever the options:
//   - Native: stream-json is a formal JSON-lines event protocol;
//   - TokenLevel: an assistant message arrives as many message events
//     with "delta": true, one per chunk the model streamed;
//   - not Reasoning: the CLI never writes the model's thoughts to
//     stream-json (they show only in the token counts);
//   - not ToolCallArgs: tool_use carries the complete parameters;
//   - not HITL: headless mode never asks; tools run or are refused by the
//     approval mode (--yolo, --approval-mode) and the policy engine;
//   - not Finish: no event carries the model's finish reason.
var Capability = driver.StreamCapability{Native: true, TokenLevel: true}

// state is the protocol position of a Parser.
type state uint8

const (
	stateStart   state = iota // nothing formal seen yet
	stateSession              // init seen
	stateDone                 // the result (the terminal) seen
)

func (s state) String() string {
	switch s {
	case stateStart:
		return "start"
	case stateSession:
		return "session"
	case stateDone:
		return "done"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Parser is the Gemini CLI stream-json state machine for one run. Feed it
// the frames of stdout in order, then call Finish once. It is not safe for
// concurrent use.
type Parser struct {
	em   *emit.Emitter
	opts Options
	st   state

	sessionID string
	model     string

	// The assistant message being streamed: its lifecycle id and text.
	msgOpen bool
	msgN    int
	msgID   string
	msgText strings.Builder
	output  string // the text of the last completed assistant message

	tools map[string]*toolState // by tool_id, until its result

	terminal     *driver.TerminalPayload
	result       *wireResult
	usage        *driver.Usage
	lastError    string // last error event's message
	malformed    int
	firstProblem string
	unknown      int
	done         bool
	pairs        pairs
}

// toolState is what the parser remembers of a tool call until its result.
type toolState struct {
	name string
	off  int64
	line int
}

// New returns a Parser that emits to sink. The sink is used only during
// Feed, FeedError and Finish.
func New(sink driver.EventSink, opts Options) *Parser {
	p := &Parser{
		em:    emit.New(sink, opts.Streaming, Capability),
		opts:  opts,
		tools: map[string]*toolState{},
	}
	if opts.DiscardTranscript {
		p.em.DiscardTranscript()
	}
	if opts.Bounded {
		p.em.Bounded()
	}
	return p
}

// Capability returns the parser's StreamCapability (the package variable
// Capability): it does not depend on the options or the input.
func (p *Parser) Capability() driver.StreamCapability { return Capability }

// State returns the protocol position, for diagnostics: "start",
// "session" or "done".
func (p *Parser) State() string { return p.st.String() }

// SessionID returns the session id announced by init, if any.
func (p *Parser) SessionID() string { return p.sessionID }

// Terminal returns the official terminal event (the result line) seen so
// far, or nil.
func (p *Parser) Terminal() *driver.TerminalPayload { return p.terminal }

// Malformed returns the number of malformed lines and framing errors seen.
func (p *Parser) Malformed() int { return p.malformed }

// Unknown returns the number of events of unknown type or role seen.
func (p *Parser) Unknown() int { return p.unknown }

// ErrFinished is returned by Feed and FeedError after Finish.
var ErrFinished = errors.New("geminicli: parser already finished")

// Feed processes one frame of stdout, in stream order. Blank lines and a
// leading BOM are kept in the raw stream only; every other frame becomes
// transcript items and (when streaming) payloads. Malformed or unknown
// input is recorded, never fatal: Feed returns only the sink's error
// (sticky) or ErrFinished.
func (p *Parser) Feed(f ndjson.Frame) error {
	if p.done {
		return ErrFinished
	}
	if err := p.em.Err(); err != nil {
		return err
	}
	switch f.Kind {
	case ndjson.KindBlank, ndjson.KindBOM:
		return nil
	case ndjson.KindLine:
	default:
		return p.malformedLine(f, "unknown frame kind "+f.Kind.String())
	}
	if p.st == stateDone {
		return p.malformedLine(f, "line after the result")
	}
	typ, ok := f.Type()
	if !ok {
		return p.untyped(f)
	}
	if p.opts.Unpaired != nil {
		p.pairFirst(typ, f.Offset, f.Line)
	}
	// Anything but another chunk of the assistant message ends it.
	if !bytes.Equal(typ, []byte(evMessage)) {
		if err := p.endMessage(); err != nil {
			return err
		}
	}
	switch string(typ) {
	case evInit:
		return p.initEvent(f)
	case evMessage:
		return p.messageEvent(f)
	case evToolUse:
		return p.toolUse(f)
	case evToolResult:
		return p.toolResult(f)
	case evError:
		return p.errorEvent(f)
	case evResult:
		return p.resultEvent(f)
	}
	return p.unknownEvent(f, string(typ))
}

// FeedError records a framing error from the line reader (a
// *ndjson.LineError for a line over the size limit, whose bytes were
// skipped) as a malformed line: it poisons the checkpoint and parsing goes
// on. It returns only the sink's error.
func (p *Parser) FeedError(err error) error {
	if p.done {
		return ErrFinished
	}
	if err == nil {
		return p.em.Err()
	}
	meta := map[string]string{"malformed": "framing error"}
	raw := map[string]any{"error": err.Error()}
	var le *ndjson.LineError
	if errors.As(err, &le) {
		meta["line"] = strconv.Itoa(le.Line)
		meta["offset"] = strconv.FormatInt(le.Offset, 10)
		raw["line"], raw["offset"], raw["len"] = le.Line, le.Offset, le.Len
	}
	return p.poison(driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: err.Error(), Metadata: meta}, raw)
}

// untyped handles a line that is not an object with a string "type".
func (p *Parser) untyped(f ndjson.Frame) error {
	if err := jsonguard.Check(f.Data, 0); err != nil {
		if t := bytes.TrimLeft(f.Data, " \t\r"); len(t) > 0 && t[0] != '{' && t[0] != '[' {
			return p.malformedLine(f, "not JSON")
		}
		return p.malformedLine(f, "invalid JSON: "+err.Error())
	}
	return p.malformedLine(f, "JSON value without a string \"type\"")
}

// malformedLine keeps a line the protocol does not allow as a stdout
// transcript item (and a gemini-cli/malformed payload) with its position,
// and poisons the checkpoint.
func (p *Parser) malformedLine(f ndjson.Frame, why string) error {
	text := string(f.Data)
	meta := map[string]string{"malformed": why, "line": strconv.Itoa(f.Line), "offset": strconv.FormatInt(f.Offset, 10)}
	return p.poison(driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: text, Metadata: meta},
		map[string]any{"error": why, "line": f.Line, "offset": f.Offset, "text": text})
}

func (p *Parser) poison(it driver.TranscriptItem, raw map[string]any) error {
	p.markMalformed(it.Metadata["malformed"])
	if it.Text == "" {
		it.Text = it.Metadata["malformed"] // TRN-01: a stdout item has Text
	}
	if err := p.em.Item(it); err != nil {
		return err
	}
	return p.em.Custom(Provider, "malformed", driver.StreamPayload{Raw: raw})
}

// markMalformed records a protocol violation that does not stop parsing.
func (p *Parser) markMalformed(why string) {
	p.malformed++
	if p.firstProblem == "" {
		p.firstProblem = why
	}
}

// decode decodes the frame into v; on failure the line is recorded as
// malformed (with the decoder's positioned error) and ok is false.
func (p *Parser) decode(f ndjson.Frame, typ string, v any) (ok bool, err error) {
	if derr := f.Decode(v); derr != nil {
		return false, p.malformedLine(f, "invalid "+typ+" event: "+derr.Error())
	}
	return true, nil
}

// rawOf decodes a line into a map for the Raw of a custom payload.
func rawOf(f ndjson.Frame) (map[string]any, error) {
	var m map[string]any
	if err := f.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// unknownEvent keeps an event type this parser does not know as a custom
// payload gemini-cli/<type> with the whole event in Raw (no transcript
// item, so that a flood of them keeps the transcript short). It is
// counted, not malformed: the CLI may add event types.
func (p *Parser) unknownEvent(f ndjson.Frame, typ string) error {
	raw, err := rawOf(f)
	if err != nil {
		return p.malformedLine(f, "invalid "+typ+" event: "+err.Error())
	}
	p.unknown++
	return p.em.Custom(Provider, typ, driver.StreamPayload{Raw: raw})
}

func (p *Parser) initEvent(f ndjson.Frame) error {
	var ev wireInit
	if ok, err := p.decode(f, evInit, &ev); !ok {
		return err
	}
	switch {
	case ev.SessionID == nil || *ev.SessionID == "":
		return p.malformedLine(f, "init without a session_id")
	case p.st != stateStart:
		return p.malformedLine(f, "second init")
	case p.em.Started():
		p.markMalformed("init after other events")
	}
	p.st = stateSession
	p.sessionID, p.model = *ev.SessionID, ev.Model
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptInit, SessionID: p.sessionID, Model: p.model}); err != nil {
		return err
	}
	if p.em.Started() {
		// Something came first and run.started went out without the
		// session id: announce it as a custom payload.
		return p.em.Custom(Provider, evInit, driver.StreamPayload{ThreadID: p.sessionID, Raw: map[string]any{"session_id": p.sessionID, "model": p.model}})
	}
	return p.em.Start("", p.sessionID, "")
}

func (p *Parser) messageEvent(f ndjson.Frame) error {
	var ev wireMessage
	if ok, err := p.decode(f, evMessage, &ev); !ok {
		return err
	}
	if ev.Content == nil {
		if err := p.endMessage(); err != nil {
			return err
		}
		return p.malformedLine(f, "message without a string content")
	}
	switch ev.Role {
	case roleAssistant:
		if !ev.Delta {
			// A whole message (the CLI writes deltas only): it stands alone.
			if err := p.endMessage(); err != nil {
				return err
			}
			if err := p.delta(*ev.Content); err != nil {
				return err
			}
			return p.endMessage()
		}
		return p.delta(*ev.Content)
	case roleUser:
		if err := p.endMessage(); err != nil {
			return err
		}
		// The prompt, echoed: an item, never a payload (a driver does not
		// replay the user's input as its own output). An empty one (a
		// user message with "content": "", delta or not) is no item: a
		// user item has Text (TRN-01), and claude and appserver drop
		// theirs too.
		if *ev.Content == "" {
			return nil
		}
		return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptUser, Text: *ev.Content})
	}
	if err := p.endMessage(); err != nil {
		return err
	}
	raw, err := rawOf(f)
	if err != nil {
		return p.malformedLine(f, "invalid message event: "+err.Error())
	}
	p.unknown++
	return p.em.Custom(Provider, "message."+ev.Role, driver.StreamPayload{Raw: raw})
}

// delta adds a chunk to the assistant message, opening it first.
func (p *Parser) delta(s string) error {
	if !p.msgOpen {
		p.msgOpen = true
		p.msgN++
		p.msgID = "msg-" + strconv.Itoa(p.msgN)
		p.msgText.Reset()
	}
	p.msgText.WriteString(s)
	return p.em.Delta(emit.Text, "", p.msgID, s)
}

// endMessage closes the assistant message being streamed, if any: its
// text lifecycle ends and its transcript item is emitted.
func (p *Parser) endMessage() error {
	if !p.msgOpen {
		return nil
	}
	p.msgOpen = false
	text := p.msgText.String()
	p.msgText.Reset()
	if err := p.em.Close(emit.Text, "", p.msgID, nil); err != nil {
		return err
	}
	if text == "" {
		return nil
	}
	p.output = text
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: text, Model: p.model})
}

func (p *Parser) toolUse(f ndjson.Frame) error {
	var ev wireToolUse
	if ok, err := p.decode(f, evToolUse, &ev); !ok {
		return err
	}
	if ev.ToolID == "" {
		return p.malformedLine(f, "tool_use without a tool_id")
	}
	name := ev.ToolName
	if name == "" {
		p.markMalformed("tool_use without a tool_name")
		name = "unknown"
	}
	if _, open := p.tools[ev.ToolID]; open {
		p.markMalformed("tool_use " + ev.ToolID + " again before its tool_result")
	}
	var input any
	var args map[string]any
	if len(ev.Parameters) > 0 && !bytes.Equal(ev.Parameters, []byte("null")) {
		if jsonguard.Unmarshal(ev.Parameters, &args, 0) != nil {
			// Not an object: kept as the item's Input, the start has none.
			var v any
			if err := jsonguard.Unmarshal(ev.Parameters, &v, 0); err != nil {
				return p.malformedLine(f, "invalid tool_use parameters: "+err.Error())
			}
			p.markMalformed("tool_use parameters are not an object")
			input = v
		} else {
			input = args
		}
	}
	p.tools[ev.ToolID] = &toolState{name: name, off: f.Offset, line: f.Line}
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolName: name, ToolUseID: ev.ToolID, Input: input}); err != nil {
		return err
	}
	if p.em.IsOpen(emit.Tool, "", ev.ToolID) {
		return nil // the repeated tool_use: the call stays the open one
	}
	_, err := p.em.OpenTool("", ev.ToolID, name, args, "", "")
	return err
}

func (p *Parser) toolResult(f ndjson.Frame) error {
	var ev wireToolResult
	if ok, err := p.decode(f, evToolResult, &ev); !ok {
		return err
	}
	if ev.ToolID == "" {
		return p.malformedLine(f, "tool_result without a tool_id")
	}
	isErr := ev.Status != statusSuccess
	if ev.Status != statusSuccess && ev.Status != statusError {
		p.markMalformed("tool_result status " + strconv.Quote(ev.Status))
	}
	result := map[string]any{"status": ev.Status}
	data := map[string]any{"status": ev.Status}
	text := ""
	if ev.Output != nil {
		result["output"] = *ev.Output
		text = *ev.Output
	}
	if e := ev.Error; e != nil {
		result["error"] = map[string]any{"type": e.Type, "message": e.Message}
		data["error_type"] = e.Type
		if text == "" || isErr {
			text = e.Message
		}
	}
	t, known := p.tools[ev.ToolID]
	it := driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: ev.ToolID, Text: text, IsError: isErr, Data: data}
	if known {
		it.ToolName = t.name
		delete(p.tools, ev.ToolID)
	}
	if err := p.em.Item(it); err != nil {
		return err
	}
	if !known {
		if p.opts.Unpaired != nil {
			p.opts.Unpaired(f.Offset, f.Line, "tool_result "+ev.ToolID+" without a tool_use before it")
		}
		result["tool_id"] = ev.ToolID
		return p.em.Custom(Provider, evToolResult, driver.StreamPayload{Raw: result})
	}
	return p.em.Close(emit.Tool, "", ev.ToolID, result)
}

// errorEvent handles an error event: a warning or error the CLI reports
// without ending the run (a loop detected, a blocked or empty model
// response). It is not a terminal; its message is kept for the Failure of
// a run whose result has no error of its own.
func (p *Parser) errorEvent(f ndjson.Frame) error {
	var ev wireErrorEvent
	if ok, err := p.decode(f, evError, &ev); !ok {
		return err
	}
	msg := ""
	if ev.Message != nil {
		msg = *ev.Message
	}
	if msg == "" {
		p.markMalformed("error event without a message")
		msg = "error"
	}
	p.lastError = msg
	meta := map[string]string{"event": evError}
	if ev.Severity != "" {
		meta["severity"] = ev.Severity
	}
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: msg, Metadata: meta}); err != nil {
		return err
	}
	return p.em.Custom(Provider, evError, driver.StreamPayload{Raw: map[string]any{"severity": ev.Severity, "message": msg}})
}

func (p *Parser) resultEvent(f ndjson.Frame) error {
	var ev wireResult
	if ok, err := p.decode(f, evResult, &ev); !ok {
		return err
	}
	if p.st != stateSession {
		p.markMalformed("result before init")
	}
	if ev.Status != statusSuccess && ev.Status != statusError {
		p.markMalformed("result status " + strconv.Quote(ev.Status))
	}
	p.st = stateDone
	p.result = &ev
	p.terminal = &driver.TerminalPayload{Event: evResult, JSON: append([]byte(nil), f.Data...)}
	it := driver.TranscriptItem{Kind: driver.TranscriptResult, Subtype: ev.Status, IsError: ev.Status != statusSuccess}
	if e := ev.Error; e != nil {
		it.Text = e.Message
		it.Errors = []string{e.Message}
		it.Metadata = map[string]string{"error_type": e.Type}
	}
	if len(ev.Stats) > 0 && !bytes.Equal(ev.Stats, []byte("null")) {
		var st wireStats
		var whole map[string]any
		if jsonguard.Unmarshal(ev.Stats, &st, 0) != nil || jsonguard.Unmarshal(ev.Stats, &whole, 0) != nil {
			p.markMalformed("result stats are not an object of counts")
		} else {
			it.Data = map[string]any{"stats": whole}
			p.usage = usageOf(st)
			it.Usage = p.usage
		}
	}
	return p.em.Item(it)
}

// usageOf maps result.stats to the driver's one meaning of Usage (see the
// package doc), or nil when the counts are missing.
func usageOf(st wireStats) *driver.Usage {
	if st.InputTokens == nil || st.OutputTokens == nil {
		return nil
	}
	u := &driver.Usage{InputTokens: *st.InputTokens, OutputTokens: *st.OutputTokens}
	if st.Cached != nil {
		u.CachedInputTokens = *st.Cached
	}
	if st.TotalTokens != nil {
		if thoughts := *st.TotalTokens - *st.InputTokens - *st.OutputTokens; thoughts > 0 {
			u.OutputTokens += thoughts
			u.ReasoningTokens = thoughts
		}
	}
	return u
}
