package codex

import (
	"errors"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/ndjson"
)

// Provider is the provider name used in custom stream kinds
// ("codex/todo_list", ...).
const Provider = "codex"

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
	// stored with the session. Keys starting with "codex." are reserved for
	// the parser.
	SessionData map[string]string

	// Resume is the checkpoint state of the run this one resumes (`codex
	// exec resume <id>`), or nil for a new thread. When codex reports the
	// thread's running usage totals (see UsageTotals) and Resume carries
	// the totals a previous run stored (the codex.usage.* keys), the parser
	// reports this run's share. A resumed run whose thread.started names a
	// different thread never yields a valid checkpoint.
	Resume *driver.SessionState

	// UsageTotals says what the usage of turn.completed covers; the zero
	// value decides from the event itself.
	UsageTotals UsageTotals

	// Observe, when set, is told by Parse where each frame starts, before
	// the frame is fed: its byte offset in stdout and its 1-based line;
	// then (len(stdout), 0) before Finish. A caller can so place every
	// emission at the frame that caused it. Feed and Finish ignore it.
	Observe func(offset int64, line int)

	// Unpaired, when set, is told of each protocol message whose partner
	// is missing (see pairs: a stream without its thread.started, a
	// terminal without its turn.started, an item started and never
	// completed in a turn that ended): the offset, line and a message.
	// The parser repairs such a stream (it closes what is open), so only
	// this says a line was lost. Items are reported by Finish.
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
	// own Bounded). The parser forgets an item once
	// it is completed: an event for it after its item.completed is a new
	// item, not malformed; Unpaired pairs an item.completed only with the
	// item.started before it. Parse without it to judge a stream exactly.
	Bounded bool

	// DiscardStdout makes Parse keep no copy of stdout: RawStreams.Stdout
	// is "" (stderr and the terminal are kept). It is for a consumer that
	// counts and hashes stdout as it is read (wrapping the reader it gives
	// Parse), and it is outside the driver contract, which wants the exact
	// bytes there. Feed and Finish ignore it.
	DiscardStdout bool
}

// UsageTotals says what the usage figures of turn.completed cover.
type UsageTotals uint8

const (
	// UsageTotalsAuto decides per run: thread totals when the usage object
	// carries cache_write_input_tokens, which only the app-server-backed
	// exec writes (observed in 0.169.0: a resumed run reports run 1 + run 2),
	// else process totals (observed in 0.58.0 and 0.46.0: a resumed run
	// reports only its own requests).
	UsageTotalsAuto UsageTotals = iota
	// UsageTotalsProcess: the figures cover this process's model requests
	// only, as codex exec did before it was rebuilt on the app-server
	// (openai/codex#15424, March 2026).
	UsageTotalsProcess
	// UsageTotalsThread: the figures are the thread's running total
	// (tokenUsage.total of the app-server), resumed history included.
	UsageTotalsThread
)

// Capability is the parser's StreamCapability, whatever the options:
//   - Native: `codex exec --json` is a formal JSONL event protocol;
//   - not TokenLevel: an agent message arrives whole in item.completed,
//     so each message is one text.start, one text.content, one text.end;
//   - Reasoning: reasoning summaries are items of their own;
//   - not ToolCallArgs: a tool call's first event carries its complete
//     arguments (command, changes, server/tool/arguments, query);
//   - not HITL: exec is non-interactive, approvals are decided by flags
//     and a refused command shows up as a declined command_execution.
var Capability = driver.StreamCapability{Native: true, Reasoning: true}

// state is the protocol position of a Parser.
type state uint8

const (
	stateStart  state = iota // nothing formal seen yet
	stateThread              // thread.started seen, no turn yet
	stateTurn                // turn.started seen
	stateDone                // the official terminal (turn.completed or turn.failed) seen
)

func (s state) String() string {
	switch s {
	case stateStart:
		return "start"
	case stateThread:
		return "thread"
	case stateTurn:
		return "turn"
	case stateDone:
		return "done"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Parser is the `codex exec --json` state machine for one run. Feed it the
// frames of stdout in order, then call Finish once. It is not safe for
// concurrent use.
type Parser struct {
	em   *emit.Emitter
	opts Options
	st   state

	threadID string // from the top-level thread.started

	terminal     *driver.TerminalPayload
	turnFailed   string // turn.failed error message
	usage        *driver.Usage
	threadTotals bool // usage covers the whole thread
	output       string
	lastError    string // last top-level error event message
	// items holds what is known of the items seen before the latest one,
	// which is curID's and held in cur (see noteItem).
	items map[string]itemState
	curID string
	cur   itemState
	// otherCounts holds the lifecycle counts itemState has no room for
	// (see counts).
	otherCounts map[countKey]int
	noted       bool     // noteItem recorded the line's item under its wire id
	scratch     wireItem // the item being decoded
	lastID      string   // the last item event's id, when plain (wireItem.prevID)
	// lastCommand is the last command of an item event, when plain
	// (wireItem.prevCommand).
	lastCommand string
	// fast: Feed decoded the line's item into fastEv (pointing at scratch)
	// with the one-pass walk; see fastEvent.
	fast         bool
	fastEv       wireItemEvent
	rec          walkRecord // where the walk found what it read
	shapes       itemShapes // the item event lines walked lately
	malformed    int
	firstProblem string
	unknown      int
	done         bool
	pairs        pairs
	commandData  commandData // the shared Data of command results
	commandArgs  commandArgs // the shared Args of command calls
	memo         jsonguard.Memo
	rep          repeat // the last line of an unknown event, for unknownAgain
}

// repeat is the last line unknownEvent kept (a custom payload, or only
// counted when not streaming), of at most jsonguard.MemoMax bytes, with
// its type and Raw; ok is false once another line (not a blank one) came.
type repeat struct {
	line []byte
	typ  string
	raw  map[string]any
	ok   bool
}

// itemState is what the parser remembers of an item between its events:
// its type, as an index in itemTypes (only known items are recorded),
// whether it completed, and for the Emitter (emit.Counts, see counts) how
// many lifecycles of family fam its id has had: a lifecycle's id is its
// item's. Eight bytes: a long session keeps one per item, and the Emitter
// keeps none.
type itemState struct {
	typ       uint8
	completed bool
	fam       emit.Family // the family n counts (0: none yet)
	n         uint32
}

// New returns a Parser that emits to sink. The sink is used only during
// Feed, FeedError and Finish.
func New(sink driver.EventSink, opts Options) *Parser {
	p := &Parser{
		em:     emit.New(sink, opts.Streaming, Capability),
		opts:   opts,
		items:  map[string]itemState{},
		shapes: newItemShapes(),
	}
	if opts.DiscardTranscript {
		p.em.DiscardTranscript()
	}
	if opts.Bounded {
		p.em.Bounded()
	} else {
		p.em.UseCounts((*counts)(p))
	}
	return p
}

// Capability returns the parser's StreamCapability (the package variable
// Capability): it does not depend on the options or the input.
func (p *Parser) Capability() driver.StreamCapability { return Capability }

// State returns the protocol position, for diagnostics: "start", "thread",
// "turn" or "done".
func (p *Parser) State() string { return p.st.String() }

// ThreadID returns the thread id announced by thread.started, if any.
func (p *Parser) ThreadID() string { return p.threadID }

// Terminal returns the official terminal event seen so far, or nil.
func (p *Parser) Terminal() *driver.TerminalPayload { return p.terminal }

// Malformed returns the number of malformed lines and framing errors seen.
func (p *Parser) Malformed() int { return p.malformed }

// Unknown returns the number of events and items of unknown type seen.
func (p *Parser) Unknown() int { return p.unknown }

// ErrFinished is returned by Feed and FeedError after Finish.
var ErrFinished = errors.New("codex: parser already finished")

// handler returns the handler of an event type, or nil. A switch, not a
// map: it needs no hashing and the compiler orders it by length.
func handler(typ []byte) func(p *Parser, f ndjson.Frame) error {
	switch string(typ) {
	case evThreadStarted:
		return (*Parser).threadStarted
	case evTurnStarted:
		return (*Parser).turnStarted
	case evTurnCompleted:
		return (*Parser).turnCompleted
	case evTurnFailed:
		return (*Parser).turnFailedEvent
	case evItemStarted:
		return (*Parser).itemStarted
	case evItemUpdated:
		return (*Parser).itemUpdated
	case evItemCompleted:
		return (*Parser).itemCompleted
	case evError:
		return (*Parser).errorEvent
	}
	return nil
}

// Feed processes one frame of stdout, in stream order. Blank lines are
// ignored; every other frame becomes transcript items and (when streaming)
// payloads. Malformed or unknown input is recorded, never fatal: Feed
// returns only the sink's error (sticky) or ErrFinished.
func (p *Parser) Feed(f ndjson.Frame) error {
	if p.done {
		return ErrFinished
	}
	if err := p.em.Err(); err != nil {
		return err
	}
	switch f.Kind {
	case ndjson.KindBlank:
		// codex never writes blank lines; they carry nothing and stay in
		// the raw stream only.
		return nil
	case ndjson.KindBOM:
		// Tolerated, as by every parser (ndjson's package doc): kept in the
		// raw stream only.
		return nil
	case ndjson.KindLine:
	default:
		return p.malformedLine(f, "unknown frame kind "+f.Kind.String())
	}
	if p.st == stateDone {
		return p.malformedLine(f, "line after the terminal event")
	}
	if p.rep.ok {
		if string(f.Data) == string(p.rep.line) {
			return p.unknownAgain()
		}
		p.rep.ok = false
	}
	p.noted = false
	typ, ok := p.peek(f)
	if !ok {
		return p.untyped(f)
	}
	var err error
	if h := handler(typ); h != nil {
		err = h(p, f)
	} else {
		err = p.unknownEvent(f, string(typ))
	}
	if p.opts.Unpaired != nil && len(typ) > 0 {
		p.pair(typ, f.Offset, f.Line)
	}
	return err
}

// peek returns the line's "type" as f.Type does. A valid line of the
// usual shape is validated and gets its item decoded in the same walk (see
// fastEvent), which spares the item events (nearly all the bytes) three
// passes, or, when it has the shape of an item event walked lately, from
// its values alone (itemShapes); any other line is left to Type and,
// later, Decode.
func (p *Parser) peek(f ndjson.Frame) ([]byte, bool) {
	p.scratch = wireItem{prevID: p.lastID, prevCommand: p.lastCommand}
	p.fastEv = wireItemEvent{Item: &p.scratch}
	if p.shapes.n > 0 {
		if typ, ok := p.shapes.match(f.Data, &p.scratch); ok {
			p.fast = true
			return typ, true
		}
	}
	var rec *walkRecord
	if p.shapes.learning() && len(f.Data) <= maxShapeLine {
		rec = &p.rec
		rec.reset()
	}
	typ, ok, fast := walkEvent(f.Data, &p.fastEv, rec)
	if p.fast = fast; fast && rec != nil {
		p.shapes.learn(f.Data, rec, &p.scratch)
	}
	if fast {
		return typ, ok
	}
	return f.Type()
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
	if err := p.check(f); err != nil {
		if i := firstNonSpace(f.Data); i < len(f.Data) && f.Data[i] != '{' && f.Data[i] != '[' {
			return p.malformedLine(f, "not JSON")
		}
		return p.malformedLine(f, "invalid JSON: "+err.Error())
	}
	return p.malformedLine(f, "JSON value without a string \"type\"")
}

// check is jsonguard.Check of the line, which Feed's one-pass walk has
// already done when it took the line (p.fast): it validates as Check
// does, within the same depth.
func (p *Parser) check(f ndjson.Frame) error {
	if p.fast {
		return nil
	}
	return jsonguard.Check(f.Data, 0)
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return i
		}
	}
	return len(b)
}

// malformedLine keeps a line the protocol does not allow as a stdout
// transcript item (and a codex/malformed payload), and poisons the
// checkpoint.
func (p *Parser) malformedLine(f ndjson.Frame, why string) error {
	text := string(f.Data)
	if f.Kind == ndjson.KindBOM {
		text = string(f.Raw)
	}
	meta := map[string]string{"malformed": why, "line": strconv.Itoa(f.Line), "offset": strconv.FormatInt(f.Offset, 10)}
	return p.poison(driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: text, Metadata: meta},
		map[string]any{"error": why, "line": f.Line, "offset": f.Offset, "text": text})
}

func (p *Parser) poison(it driver.TranscriptItem, raw map[string]any) error {
	p.markMalformed(it.Metadata["malformed"])
	if err := p.em.Item(it); err != nil {
		return err
	}
	return p.em.CustomRaw(Provider, "malformed", raw)
}

// markMalformed records a protocol violation that does not stop parsing.
// The reason is given in parts, joined only when it is the first: a
// stream that repeats one fault on every line builds no string per line.
func (p *Parser) markMalformed(why ...string) {
	p.malformed++
	if p.firstProblem == "" {
		p.firstProblem = strings.Join(why, "")
	}
}

// decode decodes the frame into v; on failure the line is recorded as
// malformed and ok is false.
func (p *Parser) decode(f ndjson.Frame, v any) (ok bool, err error) {
	if derr := f.Decode(v); derr != nil {
		return false, p.malformedLine(f, "invalid "+typeOf(f)+" event: "+derr.Error())
	}
	return true, nil
}

func typeOf(f ndjson.Frame) string {
	t, _ := f.Type()
	return string(t)
}

// rawOf decodes a line into a map for the Raw of a custom payload. The
// line was already validated by a typed decode or by Check; it can still
// fail to decode (a number like 1e999 is valid JSON that overflows
// float64), and then the error is returned. A line equal to the previous
// one decoded here gets its map again (jsonguard.Memo).
func (p *Parser) rawOf(f ndjson.Frame) (map[string]any, error) {
	if m, ok := p.memo.Get(f.Data); ok {
		return m, nil
	}
	var m map[string]any
	if err := f.Decode(&m); err != nil {
		return nil, err
	}
	p.memo.Put(f.Data, m)
	return m, nil
}

var errNumberRange = errors.New("a number does not fit a float64")

// undecodable records a line that is valid JSON but cannot be decoded
// (a number like 1e999 overflows float64) as malformed, with its bytes kept
// verbatim: never a custom payload with a null value.
func (p *Parser) undecodable(f ndjson.Frame, err error) error {
	return p.malformedLine(f, "undecodable JSON: "+err.Error())
}

// unknownEvent keeps an event type this parser does not know as a custom
// payload codex/<type> with the whole event in Raw (no transcript item). It is counted, not malformed: codex adds event types
// over time (item.plan.delta, request_user_input, ...).
func (p *Parser) unknownEvent(f ndjson.Frame, typ string) error {
	if err := p.check(f); err != nil {
		return p.malformedLine(f, "invalid JSON: "+err.Error())
	}
	if !p.opts.Streaming {
		// No payload to build: hold the line to the rule Decode applies
		// without building the value.
		if !jsonguard.NumbersFit(f.Data) {
			return p.undecodable(f, errNumberRange)
		}
		p.unknown++
		p.keepRepeat(f, typ, nil)
		return nil
	}
	raw, err := p.rawOf(f)
	if err != nil {
		return p.undecodable(f, err)
	}
	p.unknown++
	p.keepRepeat(f, typ, raw)
	// A custom payload and a count, not a transcript item: a stream of a
	// million unknown events must not make the transcript a million items.
	return p.em.CustomRaw(Provider, typ, raw)
}

// keepRepeat remembers the line of an unknown event that unknownEvent kept
// (raw is its Raw, nil when not streaming), when it is short.
func (p *Parser) keepRepeat(f ndjson.Frame, typ string, raw map[string]any) {
	if len(f.Data) <= jsonguard.MemoMax {
		p.rep = repeat{line: append(p.rep.line[:0], f.Data...), typ: typ, raw: raw, ok: true}
	}
}

// unknownAgain is unknownEvent of a line equal to the last one it kept
// (p.rep), which it would keep the same way: the same bytes have the same
// type and pass the same checks, rawOf gives them the same map (its memo
// holds the line), and nothing the parser did since (only blank lines
// came) changes the outcome. Pairing has nothing to note: an unknown
// event only announces the session, which the first one did.
func (p *Parser) unknownAgain() error {
	p.unknown++
	if !p.opts.Streaming {
		return nil
	}
	return p.em.CustomRaw(Provider, p.rep.typ, p.rep.raw)
}

func (p *Parser) threadStarted(f ndjson.Frame) error {
	var ev wireThreadStarted
	if ok, err := p.decode(f, &ev); !ok {
		return err
	}
	id := str(ev.ThreadID)
	switch {
	case id == "":
		return p.malformedLine(f, "thread.started without a thread_id")
	case p.threadID != "":
		return p.malformedLine(f, "second thread.started")
	case p.st != stateStart:
		p.markMalformed("thread.started after " + p.st.String())
	}
	p.threadID = id
	if p.st == stateStart {
		p.st = stateThread
	}
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptInit, SessionID: id}); err != nil {
		return err
	}
	if p.em.Started() {
		// Something (a warning item) came first and run.started went out
		// without the thread id: announce it as a custom payload.
		return p.em.Custom(Provider, evThreadStarted, driver.StreamPayload{ThreadID: id, Raw: map[string]any{"thread_id": id}})
	}
	return p.em.Start("", id, "")
}

// turnStep is the name of the step that brackets the turn.
const turnStep = "turn"

func (p *Parser) turnStarted(f ndjson.Frame) error {
	var ev struct{}
	if ok, err := p.decode(f, &ev); !ok {
		return err
	}
	switch p.st {
	case stateStart:
		p.markMalformed("turn.started before thread.started")
	case stateTurn:
		// One exec process runs one turn.
		p.markMalformed("second turn.started")
	}
	p.st = stateTurn
	return p.em.StepStarted(turnStep)
}

func (p *Parser) turnCompleted(f ndjson.Frame) error {
	var ev wireTurnCompleted
	if ok, err := p.decode(f, &ev); !ok {
		return err
	}
	if p.st != stateTurn {
		p.markMalformed("turn.completed in state " + p.st.String())
	}
	it := driver.TranscriptItem{Kind: driver.TranscriptResult, Subtype: evTurnCompleted}
	if u := ev.Usage; u == nil || u.InputTokens == nil || u.OutputTokens == nil {
		p.markMalformed("turn.completed without usage")
	} else {
		p.usage = &driver.Usage{InputTokens: *u.InputTokens, OutputTokens: *u.OutputTokens}
		if u.CachedInputTokens != nil {
			p.usage.CachedInputTokens = *u.CachedInputTokens
		}
		it.Usage = p.usage
		switch p.opts.UsageTotals {
		case UsageTotalsThread:
			p.threadTotals = true
		case UsageTotalsAuto:
			p.threadTotals = u.CacheWriteInputTokens != nil
		}
		var extra map[string]any
		if u.CacheWriteInputTokens != nil {
			extra = map[string]any{"cache_write_input_tokens": *u.CacheWriteInputTokens}
		}
		if u.ReasoningOutputTokens != nil {
			if extra == nil {
				extra = map[string]any{}
			}
			extra["reasoning_output_tokens"] = *u.ReasoningOutputTokens
		}
		if extra != nil {
			it.Data = map[string]any{"usage": extra}
		}
	}
	p.setTerminal(f, evTurnCompleted)
	if err := p.em.Item(it); err != nil {
		return err
	}
	return p.em.StepFinished(turnStep)
}

func (p *Parser) turnFailedEvent(f ndjson.Frame) error {
	var ev wireTurnFailed
	if ok, err := p.decode(f, &ev); !ok {
		return err
	}
	if p.st != stateTurn {
		p.markMalformed("turn.failed in state " + p.st.String())
	}
	msg := ""
	if ev.Error != nil {
		msg = ev.Error.Message
	}
	if msg == "" {
		p.markMalformed("turn.failed without error.message")
		msg = "turn failed"
	}
	p.turnFailed = msg
	p.setTerminal(f, evTurnFailed)
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptResult, Subtype: evTurnFailed, IsError: true, Text: msg, Errors: []string{msg}}); err != nil {
		return err
	}
	return p.em.StepFinished(turnStep)
}

func (p *Parser) setTerminal(f ndjson.Frame, event string) {
	p.st = stateDone
	p.terminal = &driver.TerminalPayload{Event: event, JSON: append([]byte(nil), f.Data...)}
}

// errorEvent handles a top-level error event. It is not a terminal: codex
// sends it for retry notices ("Reconnecting... 1/5") on runs that then
// succeed, and before turn.failed on runs that fail. Its message is kept
// for the Failure of a run that ends without a terminal.
func (p *Parser) errorEvent(f ndjson.Frame) error {
	var ev wireMessage
	if ok, err := p.decode(f, &ev); !ok {
		return err
	}
	msg := ev.Message
	if msg == "" {
		p.markMalformed("error event without a message")
		msg = "error"
	}
	p.lastError = msg
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: msg, Metadata: map[string]string{"event": evError}}); err != nil {
		return err
	}
	return p.em.CustomRaw(Provider, evError, map[string]any{"message": msg})
}
