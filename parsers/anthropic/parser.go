package anthropic

import (
	"encoding/json"
	"errors"
	"mime"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/apistream"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/sse"
)

// Provider is the provider name used in custom stream kinds
// ("anthropic/citation", ...) and in Response.Provider.
const Provider = "anthropic"

// Outcome is [driver.Outcome], the outcome of the HTTP exchange passed to
// [Parser.Finish]; only Err, Cancelled and TimedOut mean something for an
// API stream (ExitCode, Signal and TimedOut are copied to the Response).
type Outcome = driver.Outcome

// Options configures a [Parser]. The zero value parses a non-streaming
// run of a 200 text/event-stream response.
type Options struct {
	// Streaming emits normalized StreamPayloads through the sink's
	// EmitStream (driver.Request.Streaming). Transcript items are emitted
	// either way.
	Streaming bool

	// HTTPStatus is the response's status code; 0 means unknown and is
	// read as 200. Outside 200-299 the body is an error document, not an
	// event stream (see the package doc). When neither HTTPStatus nor
	// ContentType is given, a body whose first non-blank byte is "{" is
	// taken for a document too (an error body captured without headers).
	HTTPStatus int

	// ContentType is the response's Content-Type header; "" means unknown
	// and is read as text/event-stream. Any other media type makes the body
	// a document, not an event stream.
	ContentType string

	// Observe, when set, is told by Parse where each frame starts (byte
	// offset in the body, 1-based line) before it is fed, and (len(body),
	// 0) before Finish.
	Observe func(offset int64, line int)

	// Unpaired, when set, is told of each event whose partner is missing
	// from the body, with the event's byte offset and line: content before
	// message_start, a content_block_delta or content_block_stop without
	// its content_block_start, a block started and not stopped when
	// message_stop came. The parser repairs such a stream (it opens and
	// closes what is missing), so the contract validators cannot see the
	// loss; this is how it is reported (the provider registry's UNPAIRED
	// findings).
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
	// message's blocks, which it needs until the message ends. Parse without it to judge a stream exactly.
	Bounded bool

	// DiscardStdout makes Parse keep no copy of stdout: RawStreams.Stdout
	// is "" (stderr and the terminal are kept). It is for a consumer that
	// counts and hashes stdout as it is read (wrapping the reader it gives
	// Parse), and it is outside the driver contract, which wants the exact
	// bytes there. Feed and Finish ignore it.
	DiscardStdout bool
}

// Capability is the parser's StreamCapability, whatever the options:
// Native (a formal event protocol), TokenLevel (text_delta), Reasoning
// (thinking blocks), ToolCallArgs (input_json_delta) and Finish (every
// message_delta carries a stop_reason). No HITL: a tool_use is answered by
// the client's next request, not inside the stream.
var Capability = driver.StreamCapability{Native: true, TokenLevel: true, Reasoning: true, ToolCallArgs: true, Finish: true}

// The terminal event names of Response.RawStreams.Terminal.
const (
	TerminalStop  = "message_stop" // the success terminal
	TerminalError = "error"        // an error event, or the error body of a non-2xx response
)

// The Response.Metadata keys the parser sets.
const (
	MetaTransport    = "transport"             // "anthropic-messages-sse", or "anthropic-messages-http" for a document body
	MetaMessageID    = "message_id"            // the (last) message_start's message id
	MetaStopSequence = "stop_sequence"         // the stop sequence that ended the message, when one did
	MetaRequestID    = "request_id"            // the request_id of an error body, when it has one
	MetaMalformed    = apistream.MetaMalformed // number of malformed events and framing errors, when any
	MetaProblem      = apistream.MetaProblem   // the first one's reason, when any
	MetaUnknown      = apistream.MetaUnknown   // number of unknown events, blocks and deltas, when any
)

// ErrFinished is returned by Feed and FeedError after Finish.
var ErrFinished = errors.New("anthropic: parser already finished")

// maxBody bounds the bytes of a document body (an error response) kept
// for decoding; error documents are a few hundred bytes.
const maxBody = 1 << 20

// blockKind is what a content block is to the parser.
type blockKind uint8

const (
	blockText blockKind = iota + 1
	blockThinking
	blockTool       // tool_use: a call the client executes
	blockServerTool // server_tool_use, mcp_tool_use: the provider executes it
	blockOther      // a result, redacted thinking or unknown block: no lifecycle
)

// block is one content block of the current message.
type block struct {
	index int
	kind  blockKind
	typ   string
	// wid is the lifecycle id: "<message id>:<index>" for text and
	// thinking, the tool id for a call.
	wid        string
	name       string
	serverName string
	// span is a text block's text, a range of the Output (see
	// Parser.text); text accumulates thinking, sig the signature, args the
	// input_json_delta fragments.
	span            apistream.Span
	text, sig, args strings.Builder
	fragments       int
	input           json.RawMessage // the block's own input
	citations       []any
	stopped         bool
	off             int64 // where its content_block_start (or first delta) is
	line            int
}

// Parser is the Messages stream state machine for one response. Feed it
// the frames of the body in order, then call Finish once. It is not safe
// for concurrent use.
type Parser struct {
	em   *emit.Emitter
	opts Options

	document bool   // the body is a document (error response), not a stream
	sniff    bool   // neither status nor content type given: the first bytes decide
	body     []byte // a document body, up to maxBody
	bodyLen  int64

	msgID, model string
	anon         int
	started      bool // a message_start was seen
	blocks       map[int]*block
	order        []*block // blocks of the current message, in start order
	last         *block   // the block the last delta went to

	usage        usage
	stopReason   *string
	stopSequence string
	lastDelta    []byte // the data of the last message_delta

	output apistream.Output

	terminal *driver.TerminalPayload
	ended    string         // the terminal event seen (message_stop or error), if any
	stopped  bool           // message_stop seen
	errEvent *wireErrorBody // the error event, when one ended the stream

	scratch  fastScratch
	ev       wireEvent
	off      int64 // the position of the event being fed
	line     int
	problems apistream.Problems
	done     bool

	// named and namedType are the last event name found equal to its
	// type, and the type (nameCheck).
	named, namedType string
}

// New returns a Parser that emits to sink. The sink is used only during
// Feed, FeedError and Finish.
func New(sink driver.EventSink, opts Options) *Parser {
	p := &Parser{
		em:       emit.New(sink, opts.Streaming, Capability),
		opts:     opts,
		document: isDocument(opts.HTTPStatus, opts.ContentType),
		sniff:    opts.HTTPStatus == 0 && opts.ContentType == "",
		blocks:   map[int]*block{},
	}
	if opts.DiscardTranscript {
		p.em.DiscardTranscript()
	}
	if opts.Bounded {
		p.em.Bounded()
	}
	return p
}

// isDocument reports whether a response with this status and content type
// carries a document rather than an event stream.
func isDocument(status int, contentType string) bool {
	if !apistream.StatusOK(status) {
		return true
	}
	if contentType == "" {
		return false
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err != nil || mt != "text/event-stream"
}

// Capability returns the parser's StreamCapability (the package variable
// Capability).
func (p *Parser) Capability() driver.StreamCapability { return Capability }

// Terminal returns the terminal event seen so far (message_stop or
// error), or nil.
func (p *Parser) Terminal() *driver.TerminalPayload { return p.terminal }

// Malformed returns the number of malformed events and framing errors.
func (p *Parser) Malformed() int { return p.problems.Malformed }

// Unknown returns the number of unknown events, blocks and deltas.
func (p *Parser) Unknown() int { return p.problems.Unknown }

// Feed processes one frame of the body, in order. Only KindEvent frames
// carry events; comments and blank lines are ignored, and a block with
// fields but no data is malformed. For a document body (see Options) every
// frame's Raw is collected instead, so the framing must deliver every byte
// (sse.Options.Spans, as Parse sets). Malformed or unknown input is
// recorded, never fatal: Feed returns only the sink's error (sticky) or
// ErrFinished.
func (p *Parser) Feed(f sse.Frame) error {
	if p.done {
		return ErrFinished
	}
	if err := p.em.Err(); err != nil {
		return err
	}
	if p.sniff {
		switch i := jsonguard.SkipWS(f.Raw, 0); {
		case f.Kind == sse.KindBOM || i == len(f.Raw):
		case f.Raw[i] == '{':
			// Neither status nor content type was given and the body is a
			// JSON document: an error body captured without its headers.
			p.document, p.sniff = true, false
		default:
			p.sniff = false
		}
	}
	if p.document {
		p.bodyLen += int64(len(f.Raw))
		if room := maxBody - len(p.body); room > 0 {
			p.body = append(p.body, f.Raw[:min(room, len(f.Raw))]...)
		}
		return nil
	}
	switch f.Kind {
	case sse.KindEvent:
	case sse.KindNoData:
		return p.malformedEvent(f, "block without a data field")
	default:
		return nil // comments (keep-alives), blank lines, the BOM
	}
	p.off, p.line = f.Offset, f.Line
	if p.ended != "" {
		if p.isPing(f) {
			return nil
		}
		return p.malformedEvent(f, "event after the "+p.ended+" terminal")
	}
	// The fast path: text, thinking, signature and argument deltas, block
	// stops and pings of the API's own shape.
	if idx, kind, val, ok := fastDelta(f.Data, &p.scratch, &p.output); ok {
		p.nameCheck(&f, evBlockDelta)
		return p.delta(&f, idx, kind, val)
	}
	if idx, ok := fastStop(f.Data); ok {
		p.nameCheck(&f, evBlockStop)
		return p.blockStop(idx)
	}
	if fastPing(f.Data) {
		p.nameCheck(&f, evPing)
		return p.em.Err()
	}
	p.ev = wireEvent{}
	if err := jsonguard.Unmarshal(f.Data, &p.ev, 0); err != nil {
		return p.malformedEvent(f, "invalid JSON: "+err.Error())
	}
	ev := &p.ev
	if ev.Type == "" {
		return p.malformedEvent(f, "event without a string \"type\"")
	}
	p.nameCheck(&f, ev.Type)
	switch ev.Type {
	case evPing:
		return p.em.Err()
	case evMessageStart:
		return p.messageStart(f, ev)
	case evBlockStart:
		return p.blockStart(f, ev)
	case evBlockDelta:
		return p.blockDelta(f, ev)
	case evBlockStop:
		if ev.Index == nil {
			return p.malformedEvent(f, "content_block_stop without an index")
		}
		return p.blockStop(*ev.Index)
	case evMessageDelta:
		return p.messageDelta(f, ev)
	case evMessageStop:
		return p.messageStop(f)
	case evError:
		return p.errorEvent(f, ev)
	}
	return p.unknownEvent(f, ev.Type)
}

// isPing reports whether f is a ping, which may come anywhere.
func (p *Parser) isPing(f sse.Frame) bool {
	if f.Event == evPing {
		return true
	}
	t, ok := jsonguard.PeekString(f.Data, "type", nil)
	return ok && string(t) == evPing
}

// nameCheck records an event whose SSE event name is set and differs from
// its JSON type as malformed; the event is still applied by its type, as
// the SDKs decode it.
func (p *Parser) nameCheck(f *sse.Frame, typ string) {
	if f.Event == "" || f.Event == p.named && typ == p.namedType {
		// The sse reader hands out one string for a name it has seen
		// lately, and typ is one of the constants: comparing them with
		// the last pair found equal compares equal pointers, a byte
		// compare of the name skipped for nearly every event.
		return
	}
	if f.Event == typ {
		p.named, p.namedType = f.Event, typ
	} else {
		p.markMalformed("event name " + strconv.Quote(f.Event) + " but type " + strconv.Quote(typ) + " at line " + strconv.Itoa(f.Line))
	}
}

// FeedError records a framing error from the SSE reader (an *sse.Error
// for an event over the size limit, whose bytes were skipped) as a
// malformed event; parsing goes on. It returns only the sink's error.
func (p *Parser) FeedError(err error) error {
	if p.done {
		return ErrFinished
	}
	if err == nil || p.document {
		return p.em.Err()
	}
	it, raw := apistream.FramingError(err)
	p.markMalformed("framing error: " + err.Error())
	if err := p.em.Item(it); err != nil {
		return err
	}
	return p.em.Custom(Provider, "malformed", driver.StreamPayload{Raw: raw})
}

// malformedEvent keeps an event the protocol does not allow as a stdout
// transcript item and an anthropic/malformed payload, with its position.
func (p *Parser) malformedEvent(f sse.Frame, why string) error {
	p.markMalformed(why + " at line " + strconv.Itoa(f.Line))
	text := string(f.Data)
	if f.Kind != sse.KindEvent || text == "" {
		text = string(f.Raw) // never empty: a frame has its lines
	}
	meta := map[string]string{"malformed": why, "line": strconv.Itoa(f.Line), "offset": strconv.FormatInt(f.Offset, 10)}
	if f.Event != "" {
		meta["event"] = f.Event
	}
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: text, Metadata: meta}); err != nil {
		return err
	}
	return p.em.Custom(Provider, "malformed", driver.StreamPayload{Raw: map[string]any{"error": why, "line": f.Line, "offset": f.Offset, "event": f.Event, "data": text}})
}

func (p *Parser) markMalformed(why string) { p.problems.Mark(why) }

// unknownEvent keeps an event type this parser does not know as the custom
// kind anthropic/<type> with its exact data: a payload and a count, no
// transcript item (a flood of them keeps the transcript short), and no
// work at all when no payload is wanted. Counted, not malformed: the API
// adds event types over time.
func (p *Parser) unknownEvent(f sse.Frame, typ string) error {
	p.problems.Unknown++
	if !p.opts.Streaming {
		return p.em.Err()
	}
	return p.em.Custom(Provider, typ, driver.StreamPayload{Raw: map[string]any{"event": f.Event, "data": string(f.Data)}})
}

// messageStart begins the message. A second message_start with another
// id, or with the same id after blocks began, is a restart of the
// response (a server-side retry spliced into the stream): what the first
// attempt streamed is closed and kept in the transcript, marked abandoned,
// and the message, its Output and its usage start again. A repeat of the
// same id before any block is a duplicate and only its usage counts.
func (p *Parser) messageStart(f sse.Frame, ev *wireEvent) error {
	if ev.Message == nil {
		return p.malformedEvent(f, "message_start without a message")
	}
	id := ev.Message.ID
	if p.started && id == p.msgID && len(p.order) == 0 {
		p.usage.merge(ev.Message.Usage)
		return p.em.Err()
	}
	restart := p.started
	if restart {
		if err := p.abandon(); err != nil {
			return err
		}
	}
	if id == "" {
		p.anon++
		id = "message-" + strconv.Itoa(p.anon)
	}
	p.started = true
	p.msgID, p.model = id, ev.Message.Model
	p.usage = usage{}
	p.usage.merge(ev.Message.Usage)
	p.stopReason, p.stopSequence, p.lastDelta = nil, "", p.lastDelta[:0]
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptInit, Model: ev.Message.Model, Metadata: map[string]string{MetaMessageID: ev.Message.ID}}); err != nil {
		return err
	}
	if !restart && !p.em.Started() {
		return p.em.Start(ev.Message.ID, "", "")
	}
	return p.em.Custom(Provider, evMessageStart, driver.StreamPayload{Raw: map[string]any{"message_id": ev.Message.ID, "model": ev.Message.Model, "restart": restart}})
}

// abandon ends the current message's blocks for a restart.
func (p *Parser) abandon() error {
	for _, b := range p.order {
		if !b.stopped {
			if err := p.stopBlock(b, true); err != nil {
				return err
			}
		}
	}
	p.order = p.order[:0]
	clear(p.blocks)
	p.last = nil
	p.output.Reset()
	return p.em.Err()
}

// ensureMessage gives events that come before any message_start a message
// to belong to (the stream is malformed, but its content is kept).
func (p *Parser) ensureMessage() {
	if !p.started {
		p.started = true
		p.anon++
		p.msgID = "message-" + strconv.Itoa(p.anon)
		p.markMalformed("content before message_start")
		p.unpaired("event before any message_start")
	}
}

// unpaired reports a broken pairing at the event being fed to
// Options.Unpaired.
func (p *Parser) unpaired(msg string) { p.unpairedAt(p.off, p.line, msg) }

func (p *Parser) unpairedAt(off int64, line int, msg string) {
	if p.opts.Unpaired != nil {
		p.opts.Unpaired(off, line, msg)
	}
}

func (p *Parser) lifecycleID(index int) string {
	return p.msgID + ":" + strconv.Itoa(index)
}

func isServerTool(typ string) bool { return typ == "server_tool_use" || typ == "mcp_tool_use" }

func isResult(typ string) bool { return strings.HasSuffix(typ, "_tool_result") }

// blockStart opens a content block.
func (p *Parser) blockStart(f sse.Frame, ev *wireEvent) error {
	if ev.Index == nil || len(ev.ContentBlock) == 0 {
		return p.malformedEvent(f, "content_block_start without an index or content_block")
	}
	var cb wireBlock
	if err := jsonguard.Unmarshal(ev.ContentBlock, &cb, 0); err != nil {
		return p.malformedEvent(f, "content_block_start with an invalid content_block: "+err.Error())
	}
	p.ensureMessage()
	idx := *ev.Index
	if old := p.blocks[idx]; old != nil && !old.stopped {
		// The same index started again without its stop.
		p.markMalformed("content_block_start for open index " + strconv.Itoa(idx))
		if err := p.stopBlock(old, false); err != nil {
			return err
		}
	}
	b := &block{index: idx, typ: cb.Type, off: p.off, line: p.line}
	p.blocks[idx] = b
	p.order = append(p.order, b)
	p.last = b
	switch {
	case cb.Type == "text":
		b.kind, b.wid = blockText, p.lifecycleID(idx)
		if _, err := p.em.Open(emit.Text, "", b.wid); err != nil {
			return err
		}
		return p.text(b, []byte(cb.Text))
	case cb.Type == "thinking":
		b.kind, b.wid = blockThinking, p.lifecycleID(idx)
		b.sig.WriteString(cb.Signature)
		if _, err := p.em.Open(emit.Reasoning, "", b.wid); err != nil {
			return err
		}
		return p.thinking(b, []byte(cb.Thinking))
	case cb.Type == "tool_use" || isServerTool(cb.Type):
		b.kind = blockTool
		if isServerTool(cb.Type) {
			b.kind = blockServerTool
		}
		b.wid, b.name, b.serverName = cb.ID, cb.Name, cb.ServerName
		if b.wid == "" {
			b.wid = p.lifecycleID(idx)
		}
		if b.name == "" {
			b.name = "unknown"
		}
		b.input = append(json.RawMessage(nil), cb.Input...)
		var args map[string]any
		if in, ok := decodeAny(cb.Input).(map[string]any); ok && len(in) > 0 {
			args = in // complete already: no argument deltas are expected
		}
		if b.kind == blockServerTool {
			// The API runs it (web search, code execution, an MCP server):
			// tool_call.start says so, and names the block type.
			raw := map[string]any{"type": cb.Type}
			if b.serverName != "" {
				raw["server_name"] = b.serverName
			}
			_, err := p.em.OpenServerTool("", b.wid, b.name, args, raw)
			return err
		}
		_, err := p.em.OpenTool("", b.wid, b.name, args, "", "")
		return err
	case cb.Type == "redacted_thinking":
		b.kind = blockOther
		if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: cb.Type, Text: "redacted thinking",
			Metadata: map[string]string{MetaMessageID: p.msgID, "index": strconv.Itoa(idx)}, Data: map[string]any{"data": cb.Data}}); err != nil {
			return err
		}
		return p.em.Custom(Provider, "block."+cb.Type, driver.StreamPayload{Raw: map[string]any{"index": idx, "data": cb.Data}})
	case isResult(cb.Type) && cb.ToolUseID != "":
		b.kind = blockOther
		return p.toolResult(b, &cb)
	}
	b.kind = blockOther
	p.problems.Unknown++
	raw := map[string]any{"index": idx, "type": cb.Type, "data": string(f.Data)}
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: cb.Type, Text: "anthropic content block " + cb.Type,
		Metadata: map[string]string{MetaMessageID: p.msgID, "index": strconv.Itoa(idx)}, Data: raw}); err != nil {
		return err
	}
	return p.em.Custom(Provider, "block."+blockName(cb.Type), driver.StreamPayload{Raw: raw})
}

func blockName(t string) string {
	if t == "" {
		return "unknown"
	}
	return t
}

// toolResult handles a *_tool_result block: the result of a call the
// provider executed (web search, web fetch, code execution, MCP, ...).
func (p *Parser) toolResult(b *block, cb *wireBlock) error {
	content := decodeAny(cb.Content)
	isErr := cb.IsError
	if m, ok := content.(map[string]any); ok {
		if t, _ := m["type"].(string); strings.HasSuffix(t, "_error") {
			isErr = true
		}
	}
	name := ""
	if call := p.findTool(cb.ToolUseID); call != nil {
		name = call.name
	}
	it := driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: cb.ToolUseID, ToolName: name, Text: resultText(content), IsError: isErr,
		Subtype: cb.Type, Data: map[string]any{"content": content}}
	if err := p.em.Item(it); err != nil {
		return err
	}
	res := map[string]any{"type": cb.Type, "content": content}
	if isErr {
		res["is_error"] = true
	}
	ok, err := p.em.ToolResult("", cb.ToolUseID, res)
	if err != nil || ok {
		return err
	}
	// A result for a call this stream never started.
	return p.em.Custom(Provider, "block."+cb.Type, driver.StreamPayload{Raw: map[string]any{"index": b.index, "tool_use_id": cb.ToolUseID, "content": content}})
}

// findTool returns the call block of the current message with the id.
func (p *Parser) findTool(id string) *block {
	for _, b := range p.order {
		if (b.kind == blockTool || b.kind == blockServerTool) && b.wid == id {
			return b
		}
	}
	return nil
}

// resultText is the text of an MCP-style result content: a string, or the
// text members of an array of text blocks joined; "" otherwise.
func resultText(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		var sb strings.Builder
		for _, e := range c {
			if m, ok := e.(map[string]any); ok && m["type"] == "text" {
				if s, ok := m["text"].(string); ok {
					sb.WriteString(s)
				}
			}
		}
		return sb.String()
	}
	return ""
}

// decodeAny decodes raw into a generic value; nil when it is empty or
// invalid.
func decodeAny(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if jsonguard.Unmarshal(raw, &v, 0) != nil {
		return nil
	}
	return v
}

// blockDelta handles a content_block_delta the fast path did not take.
func (p *Parser) blockDelta(f sse.Frame, ev *wireEvent) error {
	if ev.Index == nil || len(ev.Delta) == 0 {
		return p.malformedEvent(f, "content_block_delta without an index or delta")
	}
	var d wireDelta
	if err := jsonguard.Unmarshal(ev.Delta, &d, 0); err != nil {
		return p.malformedEvent(f, "content_block_delta with an invalid delta: "+err.Error())
	}
	switch d.Type {
	case "text_delta":
		return p.delta(&f, *ev.Index, deltaText, []byte(d.Text))
	case "thinking_delta":
		return p.delta(&f, *ev.Index, deltaThinking, []byte(d.Thinking))
	case "signature_delta":
		return p.delta(&f, *ev.Index, deltaSignature, []byte(d.Signature))
	case "input_json_delta":
		return p.delta(&f, *ev.Index, deltaInputJSON, []byte(d.PartialJSON))
	case "citations_delta":
		return p.citation(f, *ev.Index, d.Citation)
	}
	p.problems.Unknown++
	raw := map[string]any{"index": *ev.Index, "type": d.Type, "data": string(f.Data)}
	return p.em.Custom(Provider, "delta."+blockName(d.Type), driver.StreamPayload{Raw: raw})
}

// blockFor returns the block a delta of kind goes to: the started block
// at idx, or for text and thinking a block the delta starts (a delta
// without its content_block_start). nil when the delta does not fit.
func (p *Parser) blockFor(idx int, kind deltaKind) *block {
	b := p.last
	if b == nil || b.index != idx {
		b = p.blocks[idx]
	}
	want := blockText
	switch kind {
	case deltaThinking, deltaSignature:
		want = blockThinking
	case deltaInputJSON:
		if b != nil && !b.stopped && (b.kind == blockTool || b.kind == blockServerTool) {
			p.last = b
			return b
		}
		return nil
	}
	if b != nil && !b.stopped && b.kind == want {
		p.last = b
		return b
	}
	if b != nil && !b.stopped {
		return nil // a delta of another kind on an open block
	}
	p.ensureMessage()
	p.markMalformed("content_block_delta without its content_block_start at index " + strconv.Itoa(idx))
	p.unpaired("content_block_delta at index " + strconv.Itoa(idx) + " without its content_block_start")
	b = &block{index: idx, kind: want, typ: "text", wid: p.lifecycleID(idx), off: p.off, line: p.line}
	fam := emit.Text
	if want == blockThinking {
		b.typ, fam = "thinking", emit.Reasoning
	}
	p.blocks[idx] = b
	p.order = append(p.order, b)
	p.last = b
	if _, err := p.em.Open(fam, "", b.wid); err != nil {
		return nil
	}
	return b
}

// delta applies a text, thinking, signature or argument delta.
func (p *Parser) delta(f *sse.Frame, idx int, kind deltaKind, val []byte) error {
	if b := p.last; kind == deltaText && b != nil && b.index == idx && b.kind == blockText && !b.stopped {
		// A text delta of the block the last delta went to, as nearly
		// every one is: blockFor's first answer, without its work (the
		// sink's error was looked at before the event).
		return p.text(b, val)
	}
	b := p.blockFor(idx, kind)
	if err := p.em.Err(); err != nil {
		return err
	}
	if b == nil {
		return p.malformedEvent(*f, "content_block_delta that does not fit the block at index "+strconv.Itoa(idx))
	}
	switch kind {
	case deltaText:
		return p.text(b, val)
	case deltaThinking:
		return p.thinking(b, val)
	case deltaSignature:
		b.sig.Write(val)
		return nil
	}
	b.fragments++
	if len(val) == 0 {
		return nil
	}
	return p.em.ToolArgs("", b.wid, apistream.Append(&b.args, val))
}

// text applies a text delta. A text block's text is a span of the Output
// (apistream.Output): a range of it while no other block's text came in
// between (always, in practice), its own copy otherwise.
func (p *Parser) text(b *block, val []byte) error {
	if len(val) == 0 {
		return p.em.Err()
	}
	return p.em.Delta(emit.Text, "", b.wid, p.output.Append(&b.span, val))
}

func (p *Parser) thinking(b *block, val []byte) error {
	if len(val) == 0 {
		return p.em.Err()
	}
	return p.em.Delta(emit.Reasoning, "", b.wid, apistream.Append(&b.text, val))
}

// citation keeps a citations_delta: on the text block (its transcript
// item's Data["citations"]) and as an anthropic/citation payload.
func (p *Parser) citation(f sse.Frame, idx int, raw json.RawMessage) error {
	c := decodeAny(raw)
	if c == nil {
		return p.malformedEvent(f, "citations_delta without a citation")
	}
	b := p.blocks[idx]
	if b == nil || b.stopped || b.kind != blockText {
		return p.malformedEvent(f, "citations_delta for no open text block at index "+strconv.Itoa(idx))
	}
	b.citations = append(b.citations, c)
	return p.em.Custom(Provider, "citation", driver.StreamPayload{MessageID: b.wid, Raw: map[string]any{"index": idx, "citation": c}})
}

// blockStop ends the block at idx.
func (p *Parser) blockStop(idx int) error {
	b := p.blocks[idx]
	if b == nil || b.stopped {
		p.markMalformed("content_block_stop for no open block at index " + strconv.Itoa(idx))
		p.unpaired("content_block_stop at index " + strconv.Itoa(idx) + " without its content_block_start")
		return p.em.Err()
	}
	return p.stopBlock(b, false)
}

// stopBlock closes b's lifecycle and records its transcript item;
// abandoned marks a block a restart cut off.
func (p *Parser) stopBlock(b *block, abandoned bool) error {
	b.stopped = true
	meta := map[string]string{MetaMessageID: p.msgID, "index": strconv.Itoa(b.index)}
	if abandoned {
		meta["abandoned"] = "true"
	}
	switch b.kind {
	case blockText:
		if err := p.em.Close(emit.Text, "", b.wid, nil); err != nil {
			return err
		}
		text := p.output.Text(&b.span)
		if text == "" && len(b.citations) == 0 {
			return nil
		}
		it := driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: text, Metadata: meta}
		if len(b.citations) > 0 {
			it.Data = map[string]any{"citations": b.citations}
		}
		if it.Text == "" {
			it.Kind, it.Text, it.Subtype = driver.TranscriptSystem, "citations", "citations"
		}
		return p.em.Item(it)
	case blockThinking:
		if err := p.em.Close(emit.Reasoning, "", b.wid, nil); err != nil {
			return err
		}
		var data map[string]any
		if b.sig.Len() > 0 {
			data = map[string]any{"signature": b.sig.String()}
		}
		if b.text.Len() == 0 {
			if data == nil {
				return nil
			}
			return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "thinking", Text: "thinking signature", Metadata: meta, Data: data})
		}
		return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptThinking, Text: b.text.String(), Metadata: meta, Data: data})
	case blockTool, blockServerTool:
		input, invalid := b.toolInput()
		if b.kind == blockServerTool {
			meta["provider_executed"] = "true"
			if b.serverName != "" {
				meta["server_name"] = b.serverName
			}
		}
		it := driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolName: b.name, ToolUseID: b.wid, Input: input, Subtype: b.typ, Metadata: meta}
		var res map[string]any
		if invalid != "" {
			// The raw string is kept; it is never handed on as a valid call.
			it.IsError = true
			meta["invalid_input"] = invalid
			res = map[string]any{"invalid_input": invalid}
		}
		if err := p.em.Close(emit.Tool, "", b.wid, res); err != nil {
			return err
		}
		return p.em.Item(it)
	}
	return p.em.Err()
}

// toolInput is the call's input: its fragments concatenated and parsed,
// or, when there was no fragment or they were all empty, the block's own
// input ({} when it had none). invalid says why the input is not a JSON
// object; the input is then the raw string.
func (b *block) toolInput() (input any, invalid string) {
	raw := b.args.String()
	if raw == "" {
		raw = strings.TrimSpace(string(b.input))
		if raw == "" || raw == "null" {
			return map[string]any{}, ""
		}
	}
	var v any
	if err := jsonguard.Unmarshal([]byte(raw), &v, 0); err != nil {
		return raw, "invalid JSON: " + err.Error()
	}
	if m, ok := v.(map[string]any); ok {
		return m, ""
	}
	return raw, "input is not a JSON object"
}

// messageDelta records the stop reason, stop sequence and usage.
func (p *Parser) messageDelta(f sse.Frame, ev *wireEvent) error {
	p.ensureMessage()
	if len(ev.Delta) > 0 {
		var d wireMessageDelta
		if err := jsonguard.Unmarshal(ev.Delta, &d, 0); err != nil {
			return p.malformedEvent(f, "message_delta with an invalid delta: "+err.Error())
		}
		if d.StopReason != nil {
			s := *d.StopReason
			p.stopReason = &s
		}
		if d.StopSequence != nil {
			p.stopSequence = *d.StopSequence
		}
	}
	p.usage.merge(ev.Usage)
	p.lastDelta = append(p.lastDelta[:0], f.Data...)
	return p.em.Err()
}

// messageStop is the success terminal.
func (p *Parser) messageStop(f sse.Frame) error {
	p.ensureMessage()
	for _, b := range p.order {
		if !b.stopped {
			p.unpairedAt(b.off, b.line, "content block "+strconv.Itoa(b.index)+" ("+b.typ+") started but not stopped before message_stop")
			if err := p.stopBlock(b, false); err != nil {
				return err
			}
		}
	}
	p.stopped = true
	p.setTerminal(f, TerminalStop)
	it := driver.TranscriptItem{Kind: driver.TranscriptResult, Subtype: TerminalStop, Usage: p.usage.normalized(), Metadata: map[string]string{MetaMessageID: p.msgID}}
	if p.stopReason != nil {
		it.Metadata["stop_reason"] = *p.stopReason
	}
	if p.stopSequence != "" {
		it.Metadata[MetaStopSequence] = p.stopSequence
	}
	if len(p.lastDelta) > 0 {
		if d, ok := decodeAny(p.lastDelta).(map[string]any); ok {
			delete(d, "type")
			it.Data = map[string]any{"message_delta": d}
		}
	}
	return p.em.Item(it)
}

// setTerminal records the terminal event. Its JSON is the event's data
// trimmed of whitespace, exact bytes of the stream; a value split over
// several data lines has no such bytes, so it leaves no TerminalPayload
// (and is counted as malformed).
func (p *Parser) setTerminal(f sse.Frame, event string) {
	p.ended = event
	if p.terminal = apistream.Terminal(event, f.Data, f.Raw); p.terminal == nil {
		p.markMalformed(event + " data split over several data lines at line " + strconv.Itoa(f.Line))
	}
}

// errorEvent is the failure terminal: an error event, at any point.
func (p *Parser) errorEvent(f sse.Frame, ev *wireEvent) error {
	e := &wireErrorBody{Type: evError, Error: ev.Error, RequestID: ev.RequestID}
	if e.Error == nil {
		e.Error = &wireError{}
		p.markMalformed("error event without an error object")
	}
	p.errEvent = e
	p.setTerminal(f, TerminalError)
	return p.errorItem(e, p.opts.HTTPStatus)
}

// errorItem records a provider error as a result item.
func (p *Parser) errorItem(e *wireErrorBody, status int) error {
	f := providerFailure(e, status, nil)
	it := driver.TranscriptItem{Kind: driver.TranscriptResult, Subtype: TerminalError, IsError: true, Text: f.Message, Errors: []string{f.Message}}
	if f.ErrorType != "" {
		it.Metadata = map[string]string{"error_type": f.ErrorType}
	}
	return p.em.Item(it)
}

// providerFailure is the typed error of an error event or body.
func providerFailure(e *wireErrorBody, status int, body []byte) *driver.RunFailure {
	f := &driver.RunFailure{Code: driver.FailureProviderError, HTTPStatus: status}
	if e != nil && e.Error != nil {
		f.ErrorType, f.Message = e.Error.Type, e.Error.Message
	}
	if f.Message == "" {
		switch {
		case f.ErrorType != "":
			f.Message = f.ErrorType
		case status != 0:
			f.Message = "HTTP " + strconv.Itoa(status)
			if len(body) > 0 {
				f.Message += ": " + quoteBody(body)
			}
		default:
			f.Message = "provider error"
		}
	}
	if e != nil && e.RequestID != "" {
		f.Metadata = map[string]any{MetaRequestID: e.RequestID}
	}
	return f
}
