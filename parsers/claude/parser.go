package claude

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/ndjson"
	json "github.com/segmentio/encoding/json"
)

// Outcome is [driver.Outcome], the process outcome given to
// [Parser.Finish]: one type for every parser.
type Outcome = driver.Outcome

// ErrFinished is returned by Feed, FeedError, FeedInput and Finish after
// Finish.
var ErrFinished = emit.ErrFinished

// ErrUnknownRequest is returned by Resolve for a request id that is not
// pending (never seen, already answered, or cancelled by the CLI).
var ErrUnknownRequest = errors.New("claude: no pending control request with that id")

// Provider is Response.Provider and the prefix of the custom stream
// kinds: claude/<event>.
const Provider = "claude"

const provider = Provider

// Options configures a Parser. The zero value parses a plain
// `claude -p --output-format stream-json --verbose` run without live
// stream payloads.
type Options struct {
	// Streaming emits normalized StreamPayloads through EmitStream
	// (Request.Streaming). Transcript items are emitted either way.
	Streaming bool

	// SessionData is copied into the checkpoint's SessionState.Data:
	// the guard inputs cwd, workspace_id and profile_fingerprint (see the
	// driver.Param* keys), and any other entry the driver wants kept.
	SessionData map[string]string

	// PartialMessages says the CLI ran with --include-partial-messages:
	// it then writes stream_event lines carrying the Anthropic SSE events
	// of every model response, and the capability gains TokenLevel and
	// ToolCallArgs (tool input streamed by input_json_delta). stream_event
	// lines are parsed whatever this says; it only fixes the capability,
	// so set it exactly when the flag is passed.
	PartialMessages bool

	// ControlProtocol says the CLI ran with --input-format stream-json and
	// --permission-prompt-tool stdio: it then asks the host for permission
	// with can_use_tool control_request lines, and the capability gains
	// HITL (hitl.requested / hitl.resolved audit payloads). Answers go
	// through Resolve, or are recorded by FeedInput when replaying stdin.
	ControlProtocol bool

	// Observe, when set, is told by Parse where each frame starts, before
	// the frame is fed: its byte offset in stdout and its 1-based line;
	// then (len(stdout), 0) before Finish. A caller can so place every
	// emission at the frame that caused it. Feed and Finish ignore it.
	Observe func(offset int64, line int)

	// Unpaired, when set, is told of each protocol message whose partner
	// is missing (see pairs: a stream without its system init line, and
	// in a turn that succeeded a tool_use without its tool_result or a
	// streamed message or block never stopped): the offset, line and a
	// message. The parser repairs such a stream, so only this says a line
	// was lost. All but the first rule are reported by Finish.
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
	// own Bounded). The parser keeps the latest 64
	// messages and, of the older ones, those still being recorded, a tool
	// call's scope until its tool_result, and applies Unpaired's rules as
	// the lines come: a line for a message forgotten starts a new one (its
	// usage counted again in the fallback usage), and a tool_result before
	// its tool_use does not answer it. Parse without it to judge a stream exactly.
	Bounded bool

	// DiscardStdout makes Parse keep no copy of stdout: RawStreams.Stdout
	// is "" (stderr and the terminal are kept). It is for a consumer that
	// counts and hashes stdout as it is read (wrapping the reader it gives
	// Parse), and it is outside the driver contract, which wants the exact
	// bytes there. Feed and Finish ignore it.
	DiscardStdout bool
}

// state is the parser's position in the run.
type state uint8

const (
	// stateIdle: no protocol line yet.
	stateIdle state = iota
	// stateRunning: lines seen, no root result yet.
	stateRunning
	// stateResult: a root result was seen. Under the control protocol
	// another turn may follow, and its result closes that turn and replaces
	// the terminal; in one-shot mode any later line is malformed.
	stateResult
	// stateFinished: Finish was called.
	stateFinished
)

func (s state) String() string {
	switch s {
	case stateIdle:
		return "idle"
	case stateRunning:
		return "running"
	case stateResult:
		return "result"
	case stateFinished:
		return "finished"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Parser is the Claude Code stream-json state machine. Create it with New,
// Feed it every stdout frame in order, then call Finish once. It is not
// safe for concurrent use and starts no goroutines.
type Parser struct {
	memo  jsonguard.Memo // the last short line decoded by rawLine
	again unknownMemo    // the last line of an unknown type kept whole
	pairs pairs          // for Options.Unpaired
	opts  Options
	cap   driver.StreamCapability
	em    *emit.Emitter

	state state

	// sid is the session id the first line carrying one announced (or the
	// new_conversation_id of a conversation_reset); every later line must
	// announce the same one.
	sid        string
	sidChanged bool
	// malformed counts malformed lines and framing errors; any poisons the
	// checkpoint.
	malformed int
	// problem is the first malformed line's reason.
	problem string
	// custom counts payloads of kinds this parser does not know.
	custom int

	// The root result that ends the run (the last one seen) and its exact
	// bytes.
	result   *resultLine
	terminal json.RawMessage
	success  bool

	model, version string

	// toolScope maps a tool_use id to the scope (parent_tool_use_id) of
	// the message that called it.
	toolScope map[string]string

	// Partial-message state: messages by (scope, id), the current message
	// of each scope, and creation order.
	msgs     map[msgKey]*message
	cur      map[string]*message
	msgOrder []*message
	anon     int

	// usage of root messages, last report per message id, in first-seen
	// order: the fallback when no result reports usage.
	msgUsage  map[string]apiUsage
	usageKeys []string
	// usageFolded sums the usage of the root messages forgotten (bounded,
	// Options.Bounded; folded: there was one).
	usageFolded apiUsage
	folded      bool

	// sl, al and ul are the reused decode targets of the fast paths
	// (stream_event, assistant and user lines). al and ul keep the room
	// of their content blocks from line to line (the decoder starts a
	// slice at 10 elements, 3 KB of lineBlocks); nothing keeps a pointer
	// into it after Feed returns.
	sl  streamLine
	al  assistantFast
	ul  userFast
	syl systemFast
	// usage is the room fastAssistant decodes message.usage into,
	// usageMemo the last one it read.
	usage     apiUsage
	usageMemo usageMemo
	usageRec  usageMemo // fastUsage's record of the object it reads
	// msgIDMemo and modelMemo are fastAssistantMessage's memos of the
	// message id and model.
	msgIDMemo, modelMemo strMemo
	// meta is messageMeta's map, of message metaID.
	meta   map[string]string
	metaID string

	// room is what the pointers of the streamLine fastStream fills point
	// to.
	room streamRoom

	// pending CLI control requests, by id and in arrival order.
	pending      map[string]*ControlRequest
	pendingOrder []string
}

// New returns a Parser emitting to sink.
func New(sink driver.EventSink, opts Options) *Parser {
	p := &Parser{
		opts:      opts,
		cap:       capabilityFor(opts),
		toolScope: map[string]string{},
		msgs:      map[msgKey]*message{},
		cur:       map[string]*message{},
		msgUsage:  map[string]apiUsage{},
		pending:   map[string]*ControlRequest{},
	}
	p.em = emit.New(sink, opts.Streaming, p.cap)
	if opts.DiscardTranscript {
		p.em.DiscardTranscript()
	}
	if opts.Bounded {
		p.em.Bounded()
	}
	return p
}

func capabilityFor(o Options) driver.StreamCapability {
	return driver.StreamCapability{
		Native:       true,
		TokenLevel:   o.PartialMessages,
		Reasoning:    true,
		ToolCallArgs: o.PartialMessages,
		HITL:         o.ControlProtocol,
	}
}

// Capability returns the stream capability, fixed by the options:
// Native and Reasoning always, TokenLevel and ToolCallArgs with
// PartialMessages, HITL with ControlProtocol.
func (p *Parser) Capability() driver.StreamCapability { return p.cap }

// Feed parses one stdout frame. Frames must come in stream order. Blank
// and BOM frames are skipped. A malformed line (not a JSON object, no
// type, a value that does not decode, a session id that differs from the
// one announced before) is recorded as a transcript item and a
// claude/malformed payload and poisons the checkpoint; an unknown type is
// kept as a custom payload. Feed returns only sink errors (sticky), and
// ErrFinished after Finish. The frame's slices are not retained.
func (p *Parser) Feed(f ndjson.Frame) error {
	if p.state == stateFinished {
		return ErrFinished
	}
	if err := p.em.Err(); err != nil {
		return err
	}
	if f.Kind != ndjson.KindLine {
		return nil
	}
	if p.state == stateResult && !p.opts.ControlProtocol {
		// One-shot mode runs one turn: the root result is the last line
		// Claude Code writes. Anything after it (a second result, a late
		// tool_use) is damage, never a new terminal.
		return p.bad(f, "line after the root result in one-shot mode")
	}
	if p.state == stateIdle {
		p.state = stateRunning
	}
	data := f.Data
	if m := &p.again; len(data) == len(m.line) && string(data) == string(m.line) && p.sid == m.sid {
		// The last line of an unknown type again (a flood of keep_alive
		// lines): what the general path would find in it again.
		if p.opts.Unpaired != nil {
			p.pairLine(m.event, false, f.Offset, f.Line)
		}
		return p.keepCustom(m.event, m.raw, false)
	}
	i := 0
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	if i == len(data) || data[i] != '{' {
		return p.nonJSON(f)
	}
	// The fast paths of the line types that make a stream: decode first,
	// the envelope (type, session_id) with the line, and trust the decoded
	// type only when it is the line's one and only "type" member, which is
	// then what Frame.Type returns. So the line is decoded once and not
	// scanned for its type and session id beforehand. Anything else
	// (other types, other member orders, a line that does not decode)
	// takes the general path below.
	switch {
	case bytes.HasPrefix(data, streamPrefix):
		// Once per token with partial messages; it checks its session id
		// itself. The deltas and stops take fastStream (streamfast.go);
		// the other events, or a line it declines, the decoder.
		l := &p.sl
		if !p.fastStream(data, l) {
			*l = streamLine{}
			if f.Decode(l) != nil || l.Type.n != 1 || l.Type.v != "stream_event" {
				break // the general path
			}
		}
		if p.opts.Unpaired != nil {
			p.pairLine("stream_event", false, f.Offset, f.Line)
		}
		return p.streamDecoded(f, l)
	case bytes.HasPrefix(data, assistantPrefix):
		// The common lines take fastAssistant (linefast.go); the others,
		// or a line it declines, the decoder.
		l := &p.al
		l.reset()
		ok := p.fastAssistant(data, l)
		if !ok {
			l.reset()
			ok = f.Decode(l) == nil && l.Type.n == 1 && l.Type.v == "assistant"
		}
		if ok {
			if err := p.fastEnvelope(f, "assistant", &l.SessionID); err != nil {
				return err
			}
			return p.assistantDecoded(f, &l.assistantLine)
		}
	case bytes.HasPrefix(data, userPrefix):
		l := &p.ul
		l.reset()
		ok := fastUser(data, l)
		if !ok {
			l.reset()
			ok = f.Decode(l) == nil && l.Type.n == 1 && l.Type.v == "user"
		}
		if ok {
			if err := p.fastEnvelope(f, "user", &l.SessionID); err != nil {
				return err
			}
			return p.userDecoded(f, &l.userLine)
		}
	}
	if bytes.HasPrefix(data, systemPrefix) {
		l := &p.syl
		*l = systemFast{}
		if fastSystem(data, l) {
			if p.opts.Unpaired != nil {
				p.pairLine("system", l.Subtype == "init", f.Offset, f.Line)
			}
			if l.SessionID.n != 0 {
				if err := p.session(f, l.SessionID.bytes()); err != nil {
					return err
				}
			}
			return p.systemDecoded(f, &l.systemLine, l.SessionID.bytes(), true)
		}
	}
	typ, ok := f.Type()
	if !ok {
		if err := jsonguard.Check(data, 0); err != nil {
			return p.bad(f, "invalid JSON: "+err.Error())
		}
		return p.bad(f, "message without a string type")
	}
	if p.opts.Unpaired != nil && len(typ) > 0 {
		sub, _ := f.Peek("subtype")
		p.pairLine(string(typ), string(typ) == "system" && string(sub) == "init", f.Offset, f.Line)
	}
	if string(typ) == "stream_event" {
		// It checks its session id while decoding.
		return p.streamEvent(f)
	}
	malformed := p.malformed
	if sid, ok := f.Peek("session_id"); ok && len(sid) > 0 {
		if err := p.session(f, sid); err != nil {
			return err
		}
	}
	if h := handlers[string(typ)]; h != nil {
		return h(p, f)
	}
	// An unknown type is a custom payload and a count (MetaUnknown), not a
	// transcript item: a CLI that writes a million keep_alive lines must
	// not make the transcript a million items long.
	return p.unknown(f, string(typ), malformed)
}

// unknownMemo is the last line of an unknown type that the general path
// kept whole (no malformed line: its session id, if any, was the
// session's, and it decoded): its bytes (at most jsonguard.MemoMax), its
// type, the session id it was checked against and its Raw (nil when not
// streaming). Feed gives the same bytes again, while the session id is the
// same, the same payload at once, without finding their type and session
// id and validating or decoding them again: every step of the general path
// depends on those bytes and that session id only.
type unknownMemo struct {
	line  []byte
	event string
	sid   string
	raw   map[string]any
}

// unknown is customLine for a line of an unknown type of the general path;
// malformed is p.malformed before the line's session check. It remembers
// the line in p.again when it was kept whole.
func (p *Parser) unknown(f ndjson.Frame, event string, malformed int) error {
	raw, ok := p.customRaw(f, false)
	if !ok {
		return p.bad(f, "undecodable "+quote(event)+" line")
	}
	if m := &p.again; p.malformed == malformed && event != "" && len(f.Data) <= jsonguard.MemoMax {
		m.line = append(m.line[:0], f.Data...)
		m.event, m.sid, m.raw = event, p.sid, raw
	}
	return p.keepCustom(event, raw, false)
}

// handlers maps the "type" of a line to its handler; stream_event has its
// own path above, unknown types become custom payloads.
var handlers = map[string]func(*Parser, ndjson.Frame) error{
	"assistant":              (*Parser).assistant,
	"user":                   (*Parser).user,
	"system":                 (*Parser).system,
	"result":                 (*Parser).resultLine,
	"control_request":        (*Parser).controlRequest,
	"control_response":       (*Parser).controlResponse,
	"control_cancel_request": (*Parser).controlCancel,
	"rate_limit_event":       (*Parser).rateLimit,
	"conversation_reset":     (*Parser).conversationReset,
	// The SDK's internal session mirroring: no audit value, kept as a
	// custom payload only.
	"transcript_mirror": func(p *Parser, f ndjson.Frame) error { return p.customLine(f, "transcript_mirror", false) },
}

var (
	streamPrefix    = []byte(`{"type":"stream_event"`)
	assistantPrefix = []byte(`{"type":"assistant"`)
	userPrefix      = []byte(`{"type":"user"`)
	systemPrefix    = []byte(`{"type":"system"`)
)

// fastEnvelope does for a line decoded on a fast path what the general
// path does before its handler: the pairing rules and the session check.
func (p *Parser) fastEnvelope(f ndjson.Frame, typ string, sid *idField) error {
	if p.opts.Unpaired != nil {
		p.pairLine(typ, false, f.Offset, f.Line)
	}
	if sid.n != 0 {
		return p.session(f, sid.bytes())
	}
	return nil
}

// session checks the session id a line announced.
func (p *Parser) session(f ndjson.Frame, sid []byte) error {
	if p.sid == "" {
		p.sid = string(sid)
		return p.em.Start("", p.sid, "")
	}
	if string(sid) == p.sid {
		return nil
	}
	p.sidChanged = true
	return p.bad(f, "session_id changed from "+quote(p.sid)+" to "+quote(string(sid)))
}

// FeedError records a framing error (such as an *ndjson.LineError for a
// line over the size limit) as malformed protocol: a transcript item and a
// claude/malformed payload. It poisons the checkpoint; parsing goes on. It
// returns only sink errors.
func (p *Parser) FeedError(err error) error {
	if p.state == stateFinished {
		return ErrFinished
	}
	if err == nil {
		return p.em.Err()
	}
	p.poison(err.Error())
	raw := map[string]any{"error": err.Error()}
	meta := map[string]string{}
	var le *ndjson.LineError
	if errors.As(err, &le) {
		raw["line"], raw["offset"] = le.Line, le.Offset
		meta["line"], meta["offset"] = strconv.Itoa(le.Line), strconv.FormatInt(le.Offset, 10)
		if le.Len > 0 {
			raw["skipped_bytes"] = le.Len
		}
	}
	if e := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "malformed", Text: err.Error(), Metadata: meta}); e != nil {
		return e
	}
	return p.em.Custom(provider, "malformed", driver.StreamPayload{Raw: raw})
}

// nonJSON records a stdout line that is not a JSON object (a banner, a
// debug print, a truncated line) as a stdout item, verbatim.
func (p *Parser) nonJSON(f ndjson.Frame) error {
	p.poison("line " + strconv.Itoa(f.Line) + ": not a JSON object")
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: string(f.Data),
		Metadata: map[string]string{"line": strconv.Itoa(f.Line)}}); err != nil {
		return err
	}
	return p.em.Custom(provider, "malformed", driver.StreamPayload{Raw: map[string]any{
		"error": "not a JSON object", "line": f.Line, "offset": f.Offset}})
}

func (p *Parser) poison(reason string) {
	if p.malformed == 0 {
		p.problem = reason
	}
	p.malformed++
}

// bad records a malformed line.
func (p *Parser) bad(f ndjson.Frame, reason string) error {
	if strings.HasPrefix(reason, "ndjson: ") {
		p.poison(reason) // a LineError names its line
	} else {
		p.poison("line " + strconv.Itoa(f.Line) + ": " + reason)
	}
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "malformed", Text: reason,
		Metadata: map[string]string{"line": strconv.Itoa(f.Line), "offset": strconv.FormatInt(f.Offset, 10)}}); err != nil {
		return err
	}
	return p.em.Custom(provider, "malformed", driver.StreamPayload{Raw: map[string]any{
		"error": reason, "line": f.Line, "offset": f.Offset}})
}

func (p *Parser) decodeErr(f ndjson.Frame, err error) error {
	return p.bad(f, err.Error())
}

// rawLine decodes the whole line for a custom payload's Raw (nil when it
// does not decode). A line equal to the previous one decoded here gets its
// map again (jsonguard.Memo).
func (p *Parser) rawLine(f ndjson.Frame) map[string]any { return p.raw(f, false) }

// raw is rawLine for a line that checked says was already validated (by a
// fast path's strict reading of it), which is then decoded without
// validating it again (jsonguard.DecodeChecked: the same value).
func (p *Parser) raw(f ndjson.Frame, checked bool) map[string]any {
	if m, ok := p.memo.Get(f.Data); ok {
		return m
	}
	var m map[string]any
	if checked {
		v, ok := jsonguard.DecodeChecked(f.Data)
		if m, _ = v.(map[string]any); !ok || m == nil {
			return nil
		}
	} else if f.Decode(&m) != nil {
		return nil
	}
	p.memo.Put(f.Data, m)
	return m
}

// customLine keeps a line of a type without a canonical mapping: custom
// kind claude/<event> with the decoded line in Raw, and, when it has audit
// value, a system transcript item.
func (p *Parser) customLine(f ndjson.Frame, event string, item bool) error {
	raw, ok := p.customRaw(f, item)
	if !ok {
		return p.bad(f, "undecodable "+quote(event)+" line")
	}
	return p.keepCustom(event, raw, item)
}

// customRaw is the Raw of customLine's payload, ok false when the line
// does not decode. Without an item or streaming there is nothing to build
// (raw is nil): the line is held to the rules Decode applies without
// building the value.
func (p *Parser) customRaw(f ndjson.Frame, item bool) (raw map[string]any, ok bool) {
	if !item && !p.opts.Streaming {
		return nil, jsonguard.Check(f.Data, 0) == nil && jsonguard.NumbersFit(f.Data)
	}
	raw = p.rawLine(f)
	return raw, raw != nil
}

// keepCustom is customLine once the line is found good, with raw its
// customRaw.
func (p *Parser) keepCustom(event string, raw map[string]any, item bool) error {
	p.custom++
	if !item && !p.opts.Streaming {
		return p.em.Err()
	}
	if item {
		if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: event,
			Text: "unknown message type " + quote(event), Data: raw}); err != nil {
			return err
		}
	}
	return p.em.Custom(provider, event, driver.StreamPayload{Raw: raw})
}

// scoped returns the transcript coordinates of a line in scope (its
// parent_tool_use_id): the scope itself, the scope of the parent tool call
// and the parent tool call.
func (p *Parser) scoped(it driver.TranscriptItem, scope string) driver.TranscriptItem {
	if scope != "" {
		it.ScopeID = scope
		it.ParentToolCallID = scope
		it.ParentScopeID = p.toolScope[scope]
	}
	return it
}

func (p *Parser) parents(scope string) (string, string) {
	if scope == "" {
		return "", ""
	}
	return p.toolScope[scope], scope
}
