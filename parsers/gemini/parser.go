package gemini

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/apistream"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/sse"
)

// Provider is the provider name used in custom stream kinds
// ("gemini/groundingMetadata", ...) and in Response.Provider.
const Provider = "gemini"

// Outcome is the observed outcome of the request, passed to
// [Parser.Finish]. It is the same type for every parser; for an HTTP
// stream only Cancelled, TimedOut and Err matter (Err is the body's read
// error, a disconnect).
type Outcome = driver.Outcome

// Options configures a [Parser]. The zero value parses a 200 response,
// non-streaming.
type Options struct {
	// Streaming emits normalized StreamPayloads through the sink's
	// EmitStream. Transcript items are emitted either way.
	Streaming bool
	// HTTPStatus is the response's HTTP status; 0 means unknown, taken as
	// 200. A status outside 200..299 makes the run a provider error
	// whatever the body holds (see the package doc).
	HTTPStatus int
	// MaxEventSize is the sse reader's limit on one event (Parse and
	// ParseResponse); zero means sse.DefaultMaxEventSize.
	MaxEventSize int
	// Outcome is the request's outcome (a cancellation, a timeout) that
	// Parse gives Finish, with the body's read error joined into Err.
	Outcome Outcome
	// Observe, when set, is told by Parse where each frame starts, before
	// the frame is fed: its byte offset in the body and its 1-based line;
	// then (len(body), 0) before Finish. Feed and Finish ignore it.
	Observe func(offset int64, line int)
	// ContentType is the response's Content-Type, kept in
	// Response.Metadata. The parser never trusts it to choose the framing:
	// Parse sniffs the body (see Parse).
	ContentType string

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
	// response's candidates and pending calls, each forgotten once
	// answered. Parse without it to judge a stream exactly.
	Bounded bool

	// DiscardStdout makes Parse keep no copy of stdout: RawStreams.Stdout
	// is "" (stderr and the terminal are kept). It is for a consumer that
	// counts and hashes stdout as it is read (wrapping the reader it gives
	// Parse), and it is outside the driver contract, which wants the exact
	// bytes there. Feed and Finish ignore it.
	DiscardStdout bool
}

// Capability is the parser's StreamCapability, whatever the options:
//   - Native and TokenLevel: the API streams text in many chunks;
//   - Reasoning: thought parts ("thought": true) are reasoning;
//   - ToolCallArgs: a call streamed with partialArgs (Vertex AI's
//     streamFunctionCallArguments) opens at its first fragment and gets its
//     arguments as one tool_call.args delta, the complete JSON text, when
//     it closes; a whole functionCall carries complete Args on its start;
//   - not HITL: tool calls are answered by the client's next request;
//   - Finish: every successful stream reports a finishReason (or a
//     prompt block), so a successful run carries exactly one Finish.
var Capability = driver.StreamCapability{Native: true, TokenLevel: true, Reasoning: true, ToolCallArgs: true, Finish: true}

// ErrFinished is returned by Feed, FeedJSON and FeedError after Finish.
var ErrFinished = errors.New("gemini: parser already finished")

// blockKind is the lifecycle a candidate has open for its text parts.
type blockKind uint8

const (
	blockNone blockKind = iota
	blockText
	blockThought
)

// candState is what the parser remembers of one candidate.
type candState struct {
	index  int
	prefix string // "" for candidate 0, "c<index>-" for the others

	block    blockKind
	blockID  string
	texts    int             // text blocks opened
	thoughts int             // thought blocks opened
	buf      strings.Builder // the open block's text (but candidate 0's answer text)
	start    int             // where candidate 0's open text block starts in Parser.output
	sig      string          // thoughtSignature of the open block
	calls    int             // function calls seen (for synthesized ids)
	codes    int             // executableCode parts seen

	stream *streamCall // the open streamed function call
	// pending are the client function calls no functionResponse answered.
	pending []callRef
	// openCode are the executableCode calls awaiting their result.
	openCode []string

	finishRaw     string
	finishMessage string
	// last holds the exact bytes of each candidate member kept as Raw, as
	// last emitted, so a value repeated on every chunk is emitted once.
	last map[string]string
}

type callRef struct{ id, name string }

// streamCall is a function call streamed with partialArgs.
type streamCall struct {
	id, name, sig string
	args          argsBuilder
}

// Parser is the Gemini streamGenerateContent state machine for one
// response. Feed it the SSE frames of the body in order (or the whole body
// with FeedJSON when it is not SSE), then call Finish once. It is not safe
// for concurrent use.
type Parser struct {
	em   *emit.Emitter
	opts Options

	ev    event
	cands []*candState
	// walkMember walks a top-level member into ev as CheckMembers hands
	// it over (made once: a method value would be allocated per event).
	walkMember func(name, value []byte)
	// members validates the events, remembering the last: the members an
	// event repeats at the same place (modelVersion, responseId, an
	// unchanged usageMetadata) are not scanned again.
	members jsonguard.Members

	// usageRaw is the last usageMetadata with a count (the last one at all
	// while none had a count); usageCounted says whether it has one.
	usageRaw     []byte
	usageCounted bool

	blockReason  string
	blockMessage string
	apiErr       *apiError
	terminal     *driver.TerminalPayload
	frameRaw     []byte // the raw bytes of the event being fed (setTerminal)

	output     strings.Builder
	model      string
	responseID string
	createTime string
	last       map[string]string // top-level members kept as Raw, as last emitted

	events      int
	problems    apistream.Problems
	unknownSeen map[string]bool
	scratch     []byte // text decoding
	done        bool
}

// New returns a Parser that emits to sink. The sink is used only during
// Feed, FeedJSON, FeedError and Finish.
func New(sink driver.EventSink, opts Options) *Parser {
	p := &Parser{em: emit.New(sink, opts.Streaming, Capability), opts: opts}
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

// Terminal returns the last event that carried a finishReason, a prompt
// block or an error, or nil.
func (p *Parser) Terminal() *driver.TerminalPayload { return p.terminal }

// Events returns the number of GenerateContentResponse objects decoded.
func (p *Parser) Events() int { return p.events }

// Malformed returns the number of malformed events and framing errors.
func (p *Parser) Malformed() int { return p.problems.Malformed }

// Unknown returns the number of distinct unknown members and part types
// seen.
func (p *Parser) Unknown() int { return p.problems.Unknown }

// Feed processes one SSE frame of the body, in stream order. Only event
// frames carry data (comment and span frames are ignored); the data of an
// event is one GenerateContentResponse object, a JSON array of them, or an
// error object. Malformed data is recorded, never fatal: Feed returns only
// the sink's error (sticky) or ErrFinished.
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
	d := bytes.TrimPrefix(f.Data, []byte("\xef\xbb\xbf"))
	p.frameRaw = f.Raw
	i := jsonguard.SkipWS(d, 0)
	if i == len(d) || string(d[i:]) == "[DONE]" {
		// Gemini sends neither; an OpenAI-style proxy may add the sentinel.
		return nil
	}
	return p.value(d, f.Offset, f.Line)
}

// FeedJSON processes a body that is not SSE: one JSON value, either a
// GenerateContentResponse, an error object (the non-2xx bodies, even when
// they are served as text/event-stream), or a JSON array of either (the
// streamGenerateContent answer without alt=sse). It is Feed of one event
// frame holding the whole body; Parse uses it for a body that starts with
// '{' or '['.
func (p *Parser) FeedJSON(body []byte) error {
	return p.Feed(sse.Frame{Kind: sse.KindEvent, Data: body, Raw: body, Line: 1})
}

// FeedError records a framing error of the SSE reader (a *sse.Error: an
// event over the size limit, skipped) as a malformed event; parsing goes
// on. It returns only the sink's error.
func (p *Parser) FeedError(err error) error {
	if p.done {
		return ErrFinished
	}
	if err == nil {
		return p.em.Err()
	}
	return p.poison(apistream.FramingError(err))
}

// value handles one data value: an object, or an array of objects.
func (p *Parser) value(d []byte, off int64, line int) error {
	if i := jsonguard.SkipWS(d, 0); d[i] == '{' {
		// The usual event, one object: read by the fast path when it
		// has the common shape, else validated and walked in one pass
		// (jsonguard.Members: CheckMembers' result exactly).
		if fastEvent(d, &p.ev) {
			return p.object(d)
		}
		if err := p.slowEvent(d); err != nil {
			return p.malformedData(d, off, line, "invalid JSON: "+err.Error())
		}
		return p.object(d)
	}
	if err := jsonguard.Check(d, 0); err != nil {
		why := "invalid JSON: " + err.Error()
		if i := jsonguard.SkipWS(d, 0); d[i] != '{' && d[i] != '[' {
			why = "not JSON"
		}
		return p.malformedData(d, off, line, why)
	}
	i := jsonguard.SkipWS(d, 0)
	if d[i] != '[' {
		return p.malformedData(d, off, line, "a "+jsonKind(d[i:])+", not a GenerateContentResponse object")
	}
	var err error
	eachElement(d, i, func(b []byte, i int) int {
		end := jsonguard.ValueEnd(b, i)
		if err == nil {
			el := b[i:end]
			if walkEvent(el, &p.ev) != nil {
				err = p.malformedData(el, off, line, "a "+jsonKind(el)+", not a GenerateContentResponse object")
			} else {
				err = p.object(el)
			}
		}
		return end
	})
	return err
}

// slowEvent validates the event object d with p.members and walks it
// into p.ev as the validating pass hands each top-level member over.
func (p *Parser) slowEvent(d []byte) error {
	p.ev.reset()
	if p.walkMember == nil {
		p.walkMember = func(name, v []byte) { p.ev.member(name[1:len(name)-1], v, 0) }
	}
	return p.members.Check(d, 0, p.walkMember)
}

// object handles one checked JSON object d, walked into p.ev.
func (p *Parser) object(d []byte) error {
	ev := &p.ev
	p.events++
	for _, why := range ev.problems {
		p.markMalformed(why)
	}
	if p.responseID == "" {
		setStr(&p.responseID, ev.responseID)
	}
	if err := p.em.Start(p.responseID, "", ""); err != nil {
		return err
	}
	if ev.modelVersion != nil && string(ev.modelVersion[1:len(ev.modelVersion)-1]) != p.model {
		setStr(&p.model, ev.modelVersion)
	}
	if p.createTime == "" {
		setStr(&p.createTime, ev.createTime)
	}
	for i := range ev.candidates {
		if err := p.candidate(d, &ev.candidates[i]); err != nil {
			return err
		}
	}
	if ev.hasErr {
		// After the event's candidates: what the model sent before the
		// error is kept; the error fails the run.
		return p.errorObject(d, ev)
	}
	if ev.feedbackRaw != nil {
		if err := p.keep(&p.last, -1, "promptFeedback", ev.feedbackRaw); err != nil {
			return err
		}
		if ev.blockReason != "" {
			p.blockReason, p.blockMessage = ev.blockReason, ev.blockMessage
			p.setTerminal(d, "promptFeedback")
		}
	}
	for _, m := range ev.extras {
		p.markUnknown("member " + m.name)
		if err := p.keep(&p.last, -1, m.name, m.val); err != nil {
			return err
		}
	}
	if ev.hasUsage {
		// usageMetadata is a running snapshot: the last one with a count
		// replaces the earlier ones (Vertex sends one with only
		// trafficType until the last chunk). Only its bytes are kept;
		// Finish decodes the last.
		if counted := ev.usageCounted || bytes.Contains(ev.usageRaw, countName); counted || !p.usageCounted {
			p.usageRaw = append(p.usageRaw[:0], ev.usageRaw...)
			p.usageCounted = counted
		}
	}
	return nil
}

// finalUsage decodes the kept usageMetadata; nil when it has no count.
func (p *Parser) finalUsage() *driver.Usage {
	var u usage
	if len(p.usageRaw) == 0 || p.usageRaw[0] != '{' {
		return nil
	}
	walkUsage(p.usageRaw, 0, &u)
	if !u.has {
		return nil
	}
	return &driver.Usage{
		InputTokens:       u.prompt + u.toolUse,
		CachedInputTokens: u.cached,
		OutputTokens:      u.candidates + u.thoughts,
		ReasoningTokens:   u.thoughts,
	}
}

// errorObject handles an event (or body) with a top-level error.
func (p *Parser) errorObject(d []byte, ev *event) error {
	if p.apiErr != nil {
		// A second error changes nothing: the first one failed the run.
		return p.em.Custom(Provider, "error", driver.StreamPayload{Raw: map[string]any{"error": decodeAny(ev.err.raw)}})
	}
	e := ev.err
	e.raw = bytes.Clone(e.raw)
	e.details = bytes.Clone(e.details)
	p.apiErr = &e
	p.setTerminal(d, "error")
	for _, c := range p.cands {
		if err := p.closeBlock(c); err != nil {
			return err
		}
	}
	return nil
}

// setTerminal records the terminal event. Its JSON is the event's data
// without surrounding whitespace, exact bytes of the stream; a value split
// over several data lines (or after an empty data line: "data\ndata: {...}"
// joins to "\n{...}") has no such bytes, so it leaves no TerminalPayload and
// is counted as malformed, as in parsers/anthropic. The FuzzGemini campaign
// of 2026-12-02 found the second form.
func (p *Parser) setTerminal(d []byte, event string) {
	p.terminal = apistream.Terminal(event, d, p.frameRaw)
	if p.terminal == nil {
		p.markMalformed(event + " data split over several data lines")
	}
}

// cand returns the state of candidate index, creating it.
func (p *Parser) cand(index int) *candState {
	for _, c := range p.cands {
		if c.index == index {
			return c
		}
	}
	c := &candState{index: index}
	if index != 0 {
		c.prefix = "c" + strconv.Itoa(index) + "-"
	}
	p.cands = append(p.cands, c)
	return c
}

func (p *Parser) candidate(d []byte, cw *candidate) error {
	c := p.cand(cw.index)
	for i := range cw.parts {
		if err := p.part(c, &cw.parts[i]); err != nil {
			return err
		}
	}
	for _, m := range cw.extras {
		if !knownCandidateMember(m.name) {
			p.markUnknown("candidate member " + m.name)
		}
		if err := p.keep(&c.last, c.index, m.name, m.val); err != nil {
			return err
		}
	}
	if cw.finishMessage != "" {
		c.finishMessage = cw.finishMessage
	}
	if cw.finishReason != "" {
		// Not the end of the stream: a server-side tool's call can carry
		// STOP and be followed by its response and more text. The last
		// finishReason wins.
		c.finishRaw = cw.finishReason
		p.setTerminal(d, "finishReason")
	}
	return nil
}

// knownCandidateMember reports whether a candidate member is one the API
// documents (kept as Raw, not counted as unknown).
func knownCandidateMember(name string) bool {
	switch name {
	case "safetyRatings", "citationMetadata", "groundingMetadata", "urlContextMetadata",
		"avgLogprobs", "logprobsResult", "tokenCount", "groundingAttributions", "urlRetrievalMetadata":
		return true
	}
	return false
}

// keep emits a member this parser does not map as the custom payload
// gemini/<name> with the value in Raw, when its bytes differ from the last
// ones emitted under that name (usage-like members repeat on every chunk).
// Empty objects and arrays are not emitted (the URL-context stream sends
// groundingMetadata {} on every chunk before the real one).
func (p *Parser) keep(last *map[string]string, index int, name string, val []byte) error {
	if *last == nil {
		*last = map[string]string{}
	}
	if prev, ok := (*last)[name]; ok && prev == string(val) {
		return nil
	}
	(*last)[name] = string(val)
	if emptyValue(val) {
		return nil
	}
	raw := map[string]any{name: decodeAny(val)}
	if index >= 0 {
		raw["candidate"] = index
	}
	return p.em.Custom(Provider, name, driver.StreamPayload{Raw: raw})
}

func emptyValue(val []byte) bool {
	i := jsonguard.SkipWS(val, 1)
	return len(val) >= 2 && (val[0] == '{' || val[0] == '[') && i == len(val)-1
}

func (p *Parser) part(c *candState, pt *part) error {
	if len(pt.extras) > 0 {
		if err := p.partExtras(c, pt); err != nil {
			return err
		}
	}
	switch pt.kind {
	case partText:
		return p.text(c, pt)
	case partEmpty:
		if pt.signature != "" {
			return p.signature(c, pt.signature)
		}
		return nil
	case partFunctionCall:
		return p.functionCall(c, pt)
	case partFunctionResponse:
		return p.functionResponse(c, pt)
	case partExecutableCode:
		return p.executableCode(c, pt)
	case partCodeResult:
		return p.codeResult(c, pt)
	case partInlineData, partFileData:
		if err := p.closeBlock(c); err != nil {
			return err
		}
		name := "inlineData"
		if pt.kind == partFileData {
			name = "fileData"
		}
		return p.opaquePart(c, pt, name, false)
	default:
		if err := p.closeBlock(c); err != nil {
			return err
		}
		p.markUnknown("part " + pt.unknown)
		return p.opaquePart(c, pt, pt.unknown, true)
	}
}

// partExtras keeps the members of a part that are not mapped (partMetadata,
// videoMetadata, members newer than this parser).
func (p *Parser) partExtras(c *candState, pt *part) error {
	raw := map[string]any{}
	for _, m := range pt.extras {
		if !knownPartMember(m.name) {
			p.markUnknown("part member " + m.name)
		}
		raw[m.name] = decodeAny(m.val)
	}
	raw["candidate"] = c.index
	return p.em.Custom(Provider, "part_fields", driver.StreamPayload{Raw: raw})
}

// opaquePart keeps a part this parser does not give a lifecycle (inline
// data, file data, unknown part types) as the custom payload
// gemini/<name> and a system transcript item, its value in Raw and Data.
func (p *Parser) opaquePart(c *candState, pt *part, name string, unknown bool) error {
	v := decodeAny(pt.val)
	raw := map[string]any{name: v, "candidate": c.index}
	data := map[string]any{name: v}
	if pt.signature != "" {
		raw["thoughtSignature"] = pt.signature
		data["thought_signature"] = pt.signature
	}
	text := "gemini part " + name
	if m, ok := v.(map[string]any); ok {
		if mt, ok := m["mimeType"].(string); ok && mt != "" {
			text += " " + mt
		}
	}
	meta := map[string]string{"part": name}
	if unknown {
		meta["unknown"] = "true"
	}
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: text, Metadata: meta, Data: data}); err != nil {
		return err
	}
	return p.em.Custom(Provider, name, driver.StreamPayload{Raw: raw})
}

// text handles a text part: an answer or, with thought, a thought summary.
func (p *Parser) text(c *candState, pt *part) error {
	want := blockText
	if pt.thought {
		want = blockThought
	}
	empty := len(pt.text) <= 2 // the literal ""
	if pt.decoded {
		empty = len(pt.text) == 0
	}
	if empty {
		// An empty text part carries nothing but, sometimes, the
		// signature of the thinking behind the answer.
		if pt.signature != "" {
			return p.signature(c, pt.signature)
		}
		return nil
	}
	if c.block != want {
		if err := p.closeBlock(c); err != nil {
			return err
		}
		c.block = want
		if want == blockText {
			c.texts++
			c.blockID = c.prefix + "text-" + strconv.Itoa(c.texts)
			c.start = p.output.Len()
		} else {
			c.thoughts++
			c.blockID = c.prefix + "thought-" + strconv.Itoa(c.thoughts)
		}
	}
	if pt.signature != "" {
		c.sig = pt.signature
	}
	fam, dst := emit.Text, &c.buf
	switch {
	case want == blockThought:
		fam = emit.Reasoning
	case c.index == 0:
		// Candidate 0's answer text is Output; its block's item and each
		// delta are substrings of it, not copies.
		dst = &p.output
	}
	if pt.decoded {
		return p.em.Delta(fam, "", c.blockID, apistream.Append(dst, pt.text))
	}
	return p.em.Delta(fam, "", c.blockID, p.appendText(dst, pt.text))
}

// appendText decodes the string literal lit onto dst and returns the
// decoded text, a substring of dst's contents: a Builder never changes
// the bytes it has written, so the substring stays valid as dst grows.
func (p *Parser) appendText(dst *strings.Builder, lit []byte) string {
	text, scratch := apistream.AppendLiteral(dst, p.scratch, lit)
	p.scratch = scratch
	return text
}

// signature keeps a thoughtSignature that came on a part without text: on
// the open text or thought block's item when there is one, else as the
// custom payload gemini/thoughtSignature and a system item.
func (p *Parser) signature(c *candState, sig string) error {
	if c.block != blockNone {
		c.sig = sig
		return nil
	}
	raw := map[string]any{"thoughtSignature": sig, "candidate": c.index}
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: "thought signature",
		Metadata: map[string]string{"part": "thoughtSignature"}, Data: map[string]any{"thought_signature": sig}}); err != nil {
		return err
	}
	return p.em.Custom(Provider, "thoughtSignature", driver.StreamPayload{Raw: raw})
}

// closeBlock closes the candidate's open text or thought block and emits
// its transcript item (the block's whole text; the signature in Data).
func (p *Parser) closeBlock(c *candState) error {
	if c.block == blockNone {
		return nil
	}
	it := driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: c.buf.String()}
	fam := emit.Text
	switch {
	case c.block == blockThought:
		it.Kind, fam = driver.TranscriptThinking, emit.Reasoning
	case c.index == 0:
		// A Builder never changes bytes it has written: the substring
		// stays valid as Output grows.
		it.Text = p.output.String()[c.start:]
	}
	if c.sig != "" {
		it.Data = map[string]any{"thought_signature": c.sig}
	}
	if c.index != 0 {
		it.Metadata = map[string]string{"candidate": strconv.Itoa(c.index)}
	}
	id := c.blockID
	c.block, c.blockID, c.sig = blockNone, "", ""
	c.buf.Reset()
	if err := p.em.Close(fam, "", id, nil); err != nil {
		return err
	}
	return p.em.Item(it)
}

// callID returns the call's id: the server's when it sent one, else a
// synthesized one (see the package doc).
func (c *candState) callID(id string) string {
	c.calls++
	if id != "" {
		return id
	}
	return c.prefix + "call-" + strconv.Itoa(c.calls)
}

func (p *Parser) functionCall(c *candState, pt *part) error {
	if err := p.closeBlock(c); err != nil {
		return err
	}
	fc := &pt.fc
	if len(fc.extras) > 0 {
		raw := map[string]any{"candidate": c.index}
		for _, m := range fc.extras {
			p.markUnknown("functionCall member " + m.name)
			raw[m.name] = decodeAny(m.val)
		}
		if err := p.em.Custom(Provider, "functionCall_fields", driver.StreamPayload{Raw: raw}); err != nil {
			return err
		}
	}
	if s := c.stream; s != nil {
		if fc.name == "" && fc.args == nil {
			// A fragment of the open streamed call; one without
			// willContinue closes it.
			if pt.signature != "" && s.sig == "" {
				s.sig = pt.signature
			}
			if err := p.partialArgs(s, fc.partialArgs); err != nil {
				return err
			}
			if !fc.willContinue {
				return p.closeStream(c)
			}
			return nil
		}
		// A new call while one is open: the open one ended unannounced.
		p.markMalformed("streamed functionCall " + s.name + " not closed before the next call")
		if err := p.closeStream(c); err != nil {
			return err
		}
	}
	if fc.name == "" && fc.args == nil && fc.partialArgs == nil {
		p.markMalformed("functionCall without a name")
		return p.em.Custom(Provider, "functionCall", driver.StreamPayload{Raw: map[string]any{"functionCall": map[string]any{}, "candidate": c.index}})
	}
	id := c.callID(fc.id)
	if fc.willContinue && fc.args == nil {
		name := fc.name
		if name == "" {
			// As for a whole call: the tool_call item needs a name
			// (TRN-02), and a call without one is damage. FuzzGemini
			// found a streamed call whose name was lost this way.
			name = "unknown"
			p.markMalformed("functionCall without a name")
		}
		s := &streamCall{id: id, name: name, sig: pt.signature}
		c.stream = s
		if _, err := p.em.OpenTool("", id, name, nil, "", ""); err != nil {
			return err
		}
		return p.partialArgs(s, fc.partialArgs)
	}
	var args map[string]any
	var input any
	if fc.args != nil {
		if m := decodeObject(fc.args); m != nil {
			args, input = m, m
		} else {
			// Args that are not an object cannot be tool_call.start's Args:
			// the call keeps its raw value and is marked.
			p.markMalformed("functionCall " + fc.name + " args is not an object")
			input = decodeAny(fc.args)
		}
	}
	if args == nil {
		args = map[string]any{}
		if fc.args == nil {
			input = args
		}
	}
	if fc.partialArgs != nil {
		// Whole and partial at once: apply the fragments to the args.
		var b argsBuilder
		b.root = args
		if err := b.apply(fc.partialArgs); err != "" {
			p.markMalformed(err)
		}
		args = b.root
	}
	return p.wholeCall(c, id, fc.name, args, input, pt.signature)
}

// wholeCall emits a complete client function call: tool_call.start with
// its Args and tool_call.end at once (the client runs it), and its item.
func (p *Parser) wholeCall(c *candState, id, name string, args map[string]any, input any, sig string) error {
	if name == "" {
		name = "unknown"
		p.markMalformed("functionCall without a name")
	}
	if _, err := p.em.OpenTool("", id, name, args, "", ""); err != nil {
		return err
	}
	if err := p.em.Close(emit.Tool, "", id, nil); err != nil {
		return err
	}
	c.pending = append(c.pending, callRef{id, name})
	it := driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolUseID: id, ToolName: name, Input: input}
	if sig != "" {
		it.Data = map[string]any{"thought_signature": sig}
	}
	return p.em.Item(it)
}

func (p *Parser) partialArgs(s *streamCall, raw []byte) error {
	if raw == nil {
		return nil
	}
	if why := s.args.apply(raw); why != "" {
		p.markMalformed(why)
	}
	return nil
}

// closeStream ends the open streamed call: its assembled arguments go out
// as one tool_call.args delta (compact JSON), then tool_call.end and the
// tool_call item.
func (p *Parser) closeStream(c *candState) error {
	s := c.stream
	c.stream = nil
	args := s.args.object()
	if err := p.em.ToolArgs("", s.id, string(marshalCompact(args))); err != nil {
		return err
	}
	if err := p.em.Close(emit.Tool, "", s.id, nil); err != nil {
		return err
	}
	c.pending = append(c.pending, callRef{s.id, s.name})
	it := driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolUseID: s.id, ToolName: s.name, Input: args,
		Metadata: map[string]string{"streamed_args": "true"}}
	if s.sig != "" {
		it.Data = map[string]any{"thought_signature": s.sig}
	}
	return p.em.Item(it)
}

// functionResponse handles a model-role functionResponse part: the API ran
// a server-side tool (an MCP server) and reports its result. It answers
// the call with its id, else the latest pending call of its name.
func (p *Parser) functionResponse(c *candState, pt *part) error {
	if err := p.closeBlock(c); err != nil {
		return err
	}
	m := decodeObject(pt.val)
	id, _ := m["id"].(string)
	name, _ := m["name"].(string)
	k := -1
	for i := len(c.pending) - 1; i >= 0; i-- {
		if (id != "" && c.pending[i].id == id) || (id == "" && c.pending[i].name == name) {
			k = i
			break
		}
	}
	if k < 0 {
		return p.opaquePart(c, pt, "functionResponse", false)
	}
	ref := c.pending[k]
	c.pending = append(c.pending[:k], c.pending[k+1:]...)
	result := map[string]any{"functionResponse": m, "provider_executed": true}
	if _, err := p.em.ToolResult("", ref.id, result); err != nil {
		return err
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: ref.id, ToolName: ref.name,
		Data: map[string]any{"functionResponse": m, "provider_executed": true}})
}

// executableCode opens the provider-executed code_execution call.
func (p *Parser) executableCode(c *candState, pt *part) error {
	if err := p.closeBlock(c); err != nil {
		return err
	}
	m := decodeObject(pt.val)
	id, _ := m["id"].(string)
	c.codes++
	if id == "" {
		id = c.prefix + "code-" + strconv.Itoa(c.codes)
	}
	// The decoded part is ours: its members but the id are the Args.
	args := m
	if args == nil {
		args = map[string]any{}
	}
	delete(args, "id")
	if _, err := p.em.OpenServerTool("", id, CodeExecutionTool, args, map[string]any{"type": "executableCode"}); err != nil {
		return err
	}
	c.openCode = append(c.openCode, id)
	it := driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolUseID: id, ToolName: CodeExecutionTool, Input: args,
		Data: map[string]any{"provider_executed": true}}
	if pt.signature != "" {
		it.Data["thought_signature"] = pt.signature
	}
	return p.em.Item(it)
}

// CodeExecutionTool is the tool name of the provider-executed code
// execution lifecycle (executableCode + codeExecutionResult parts).
const CodeExecutionTool = "code_execution"

// codeResult closes the code_execution call it answers (its id, else the
// oldest open one) with the result.
func (p *Parser) codeResult(c *candState, pt *part) error {
	if err := p.closeBlock(c); err != nil {
		return err
	}
	m := decodeObject(pt.val)
	id, _ := m["id"].(string)
	k := -1
	for i, open := range c.openCode {
		if id == "" || open == id {
			k = i
			break
		}
	}
	if k < 0 {
		p.markMalformed("codeExecutionResult without an executableCode")
		return p.opaquePart(c, pt, "codeExecutionResult", false)
	}
	id = c.openCode[k]
	c.openCode = append(c.openCode[:k], c.openCode[k+1:]...)
	// The outcome as decoded (a string, else ""), kept in Data as it is.
	outcomeV := m["outcome"]
	outcome, ok := outcomeV.(string)
	if !ok {
		outcomeV = ""
	}
	output, _ := m["output"].(string)
	// The decoded part is ours: its members but the id are the Result.
	result := m
	if result == nil {
		result = map[string]any{}
	}
	delete(result, "id")
	result["provider_executed"] = true
	if err := p.em.Close(emit.Tool, "", id, result); err != nil {
		return err
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: id, ToolName: CodeExecutionTool,
		Text: output, IsError: outcome != "" && outcome != "OUTCOME_OK",
		Data: map[string]any{"outcome": outcomeV, "provider_executed": true}})
}

// malformedData keeps data that is not a GenerateContentResponse as a
// stdout transcript item and a gemini/malformed payload.
func (p *Parser) malformedData(d []byte, off int64, line int, why string) error {
	text := string(d)
	meta := map[string]string{"malformed": why, "line": strconv.Itoa(line), "offset": strconv.FormatInt(off, 10)}
	return p.poison(driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: text, Metadata: meta},
		map[string]any{"error": why, "line": line, "offset": off, "text": text})
}

func (p *Parser) poison(it driver.TranscriptItem, raw map[string]any) error {
	p.markMalformed(it.Metadata["malformed"])
	if err := p.em.Item(it); err != nil {
		return err
	}
	return p.em.Custom(Provider, "malformed", driver.StreamPayload{Raw: raw})
}

func (p *Parser) markMalformed(why string) { p.problems.Mark(why) }

func (p *Parser) markUnknown(what string) {
	if p.unknownSeen[what] {
		return
	}
	if p.unknownSeen == nil {
		p.unknownSeen = map[string]bool{}
	}
	p.unknownSeen[what] = true
	p.problems.Unknown++
}
