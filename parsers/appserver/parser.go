package appserver

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/internal/rpcbook"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/segmentio/encoding/json"
)

// Provider is the provider name of the custom stream kinds
// ("appserver/<method or item type>").
const Provider = "appserver"

// Outcome is [driver.Outcome], the process outcome given to
// [Parser.Finish]: one type for every parser.
type Outcome = driver.Outcome

// Options configures a [Parser]. The zero value parses a non-streaming
// run of a new thread.
type Options struct {
	// Streaming emits normalized StreamPayloads through the sink's
	// EmitStream. Transcript items are emitted either way.
	Streaming bool

	// SessionData is copied into the checkpoint's SessionState.Data: the
	// guard inputs driver.ParamCWD, driver.ParamWorkspaceID and
	// driver.ParamProfileFingerprint, and anything else the driver stores.
	SessionData map[string]string

	// ThreadID, when set, is the thread this run drives (the id given to
	// thread/resume, or known otherwise); it is then this run's thread
	// from the first frame. Left empty, the thread id is taken from the
	// first thread/start, thread/resume or thread/fork response (result
	// "thread"."id") or, failing that, the first thread/started
	// notification: both are formal, top-level protocol ids.
	ThreadID string

	// LegacyTurnEnd accepts the v1 event notifications as this run's turn
	// end, for builds that predate turn/completed: codex 0.58.0 (recorded)
	// never sends turn/completed and ends a turn with
	// codex/event/task_complete (after codex/event/error when the turn
	// failed) or codex/event/turn_aborted. With it, the first of those for
	// this run's thread (params.conversationId) is the terminal (Event is
	// its method, JSON its exact line) with status completed, failed (an
	// error event came first) or interrupted. Off by default: a session
	// that never sends turn/completed then has no terminal.
	LegacyTurnEnd bool

	// Observe, when set, is told by Parse where each frame starts, before
	// the frame is fed: its byte offset in stdout and its 1-based line;
	// then (len(stdout), 0) before Finish. A caller can so place every
	// emission at the frame that caused it. Feed and Finish ignore it.
	Observe func(offset int64, line int)

	// Unpaired, when set, is told of each protocol message whose partner
	// is missing (see pairs: a turn/completed without its turn/started, a
	// tool item started and never completed in a session that reached its
	// terminal, a client request without its response): the offset, line
	// and a message (offset -1 for a client request, which is not in
	// stdout). The parser repairs such a stream, so only this says a line
	// was lost. Items and requests are reported by Finish.
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
	// it is completed: item/completed twice is not reported, and Unpaired
	// pairs an item/completed only with the item/started before it. Parse without it to judge a stream exactly.
	Bounded bool

	// DiscardStdout makes Parse keep no copy of stdout: RawStreams.Stdout
	// is "" (stderr and the terminal are kept). It is for a consumer that
	// counts and hashes stdout as it is read (wrapping the reader it gives
	// Parse), and it is outside the driver contract, which wants the exact
	// bytes there. Feed and Finish ignore it.
	DiscardStdout bool
}

// Capability is the parser's StreamCapability, whatever the options:
//   - Native: the app-server speaks a formal JSON-RPC event protocol;
//   - TokenLevel: item/agentMessage/delta streams an answer in pieces;
//   - Reasoning: reasoning items with summary and text deltas;
//   - HITL: approvals are server-to-client JSON-RPC requests, broadcast as
//     hitl.requested / hitl.resolved audit payloads;
//   - not ToolCallArgs: a tool call's item/started carries its complete
//     arguments (command, changes, MCP arguments); the only tool deltas
//     are command and patch *output* (item/commandExecution/outputDelta),
//     which are results, not arguments, and go out as custom payloads.
var Capability = driver.StreamCapability{Native: true, TokenLevel: true, Reasoning: true, HITL: true}

// state is the protocol position of a Parser.
type state uint8

const (
	stateStart  state = iota // nothing of this run's thread yet
	stateThread              // thread known, no turn
	stateTurn                // a turn of this run in progress
	stateDone                // this run's turn/completed seen
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

// Parser is the app-server session state machine for one run. Feed it
// the server's messages in wire order (and, optionally, the client's with
// FeedClient), then call Finish once. It is not safe for concurrent use.
type Parser struct {
	em   *emit.Emitter
	opts Options
	st   state

	threadID string // this run's thread, from a formal RPC result or notification
	turnID   string // the current turn of this run
	turns    map[string]bool
	pending  []driver.StreamPayload // custom payloads waiting for run.started

	calls         rpcbook.Calls             // the client's requests awaiting the server's responses
	clientAnswers map[string]rpcbook.Answer // client responses by server request id key
	approvals     map[string]*Approval      // server requests by id key
	approvalOrder []string
	newApprovals  []Approval

	items     map[string]*itemState
	itemOrder []string // ids of the items made since closeItems last ran (the only ones that can be open), in order

	terminal    *driver.TerminalPayload
	turnStatus  string
	turnError   string
	lastError   string
	rpcError    string
	output      string
	finalOutput bool // output is from a final_answer agent message

	usage        *driver.Usage // this run's turns, summed
	turnUsage    *turnUsage
	threadTok    *wireTokens // the last thread total seen (threadTokBuf)
	threadTokBuf wireTokens
	sawV2Usage   bool // a thread/tokenUsage/updated was seen: token_count is ignored
	malformed    int
	problem      string
	unknown      int
	otherScope   int
	otherSeen    map[string]bool
	done         bool
	legacyErr    string       // the last codex/event/error message of the turn (LegacyTurnEnd)
	lastItem     string       // the last id string decoded, reused while it repeats
	pr           params       // the params of the notification being handled
	it           wireItem     // the item of the item notification being handled
	usageDec     usageBuf     // the tokenUsage of the notification being handled (fastUsage)
	pairs        pairs        // for Options.Unpaired
	customs      []customMemo // customFrame's, by method
	// lastMethod and lastRaw are the method and Raw of customFrame's
	// last payload.
	lastMethod string
	lastRaw    map[string]any
	// repeat is set while the last frame fed is a notification that
	// notification gave to customFrame (in scope, no handler), whose
	// bytes repeatData holds, and repeatUnknown when it counted it as
	// unknown: see repeatCustom.
	repeat, repeatUnknown bool
	repeatData            []byte
}

// customMemo is what customFrame remembers of a method: its string,
// whether it is known, and the Raw of its last params, by the params
// bytes.
type customMemo struct {
	method string
	known  bool // known[method]
	raw    jsonguard.Memo
}

// maxCustomMethods bounds Parser.customs: methods named by the input
// must not grow it without end (past it, the last entry turns over).
const maxCustomMethods = 16

// itemState is what the parser remembers of an item between its events.
type itemState struct {
	typ       string
	started   bool
	done      bool // completed, or closed at a turn's end
	completed bool // an item/completed came (pairs)
	deltas    bool
	toolOpen  bool
}

// turnUsage tracks one turn's token usage from thread/tokenUsage/updated.
type turnUsage struct {
	base, last wireTokens // thread total before the turn, at the last update
	legacy     bool       // from codex/event/token_count
}

// New returns a Parser that emits to sink. The sink is used only during
// Feed, FeedClient, FeedError and Finish.
func New(sink driver.EventSink, opts Options) *Parser {
	p := &Parser{
		em:            emit.New(sink, opts.Streaming, Capability),
		opts:          opts,
		turns:         map[string]bool{},
		clientAnswers: map[string]rpcbook.Answer{},
		approvals:     map[string]*Approval{},
		items:         map[string]*itemState{},
		otherSeen:     map[string]bool{},
	}
	if opts.ThreadID != "" {
		p.threadID = opts.ThreadID
		p.st = stateThread
	}
	if opts.DiscardTranscript {
		p.em.DiscardTranscript()
	}
	if opts.Bounded {
		p.em.Bounded()
	}
	return p
}

// Capability returns the package variable Capability.
func (p *Parser) Capability() driver.StreamCapability { return Capability }

// State returns the protocol position: "start", "thread", "turn" or "done".
func (p *Parser) State() string { return p.st.String() }

// ThreadID returns this run's thread id, once known.
func (p *Parser) ThreadID() string { return p.threadID }

// TurnID returns the current turn id of this run, once known.
func (p *Parser) TurnID() string { return p.turnID }

// Terminal returns this run's turn/completed, once seen.
func (p *Parser) Terminal() *driver.TerminalPayload { return p.terminal }

// Malformed returns the number of malformed lines and framing errors.
func (p *Parser) Malformed() int { return p.malformed }

// Unknown returns the number of unmapped methods and item types seen.
func (p *Parser) Unknown() int { return p.unknown }

// ErrFinished is returned by the Feed methods after Finish.
var ErrFinished = errors.New("appserver: parser already finished")

// handler names the handler of a notification method: handle calls it
// directly, so that the frame passed by pointer does not escape (through
// a function value it would, an allocation per frame).
type handler uint8

const (
	hNone handler = iota
	hThreadStarted
	hTurnStarted
	hTurnCompleted
	hItemStarted
	hItemCompleted
	hAgentDelta
	hReasoningDelta
	hTokenUsage
	hError
	hServerResolved
	hWarning
)

// notificationHandler returns the handler of a notification method, hNone
// for none: a switch, which costs less than hashing the name, and than
// remembering the last method (a turn's methods alternate).
func notificationHandler(method []byte) handler {
	switch string(method) {
	case mThreadStarted:
		return hThreadStarted
	case mTurnStarted:
		return hTurnStarted
	case mTurnCompleted:
		return hTurnCompleted
	case mItemStarted:
		return hItemStarted
	case mItemCompleted:
		return hItemCompleted
	case mAgentDelta:
		return hAgentDelta
	case mReasoningDelta, mReasoningText:
		return hReasoningDelta
	case mTokenUsage:
		return hTokenUsage
	case mError:
		return hError
	case mServerResolved:
		return hServerResolved
	case mConfigWarning, mDeprecation:
		return hWarning
	}
	return hNone
}

// handle runs the handler h (not hNone) on a notification.
func (p *Parser) handle(h handler, f *jsonrpc.Frame, pr *params) error {
	switch h {
	case hThreadStarted:
		return p.threadStarted(f, pr)
	case hTurnStarted:
		return p.turnStarted(f, pr)
	case hTurnCompleted:
		return p.turnCompleted(f, pr)
	case hItemStarted:
		return p.itemStarted(f, pr)
	case hItemCompleted:
		return p.itemCompleted(f, pr)
	case hAgentDelta:
		return p.agentDelta(f, pr)
	case hReasoningDelta:
		return p.reasoningDelta(f, pr)
	case hTokenUsage:
		return p.tokenUsage(f, pr)
	case hError:
		return p.errorNotification(f, pr)
	case hServerResolved:
		return p.serverResolved(f, pr)
	}
	return p.warning(f, pr)
}

// known lists the methods that are mapped to custom payloads by design
// (audit value, nothing to normalize); they do not count as unknown.
var known = map[string]bool{
	mReasoningPart: true, "thread/status/changed": true, "account/rateLimits/updated": true,
	"remoteControl/status/changed": true, "turn/diff/updated": true, "turn/plan/updated": true,
	"item/plan/delta": true, "item/commandExecution/outputDelta": true, "item/fileChange/outputDelta": true,
	"item/commandExecution/terminalInteraction": true, "item/fileChange/patchUpdated": true,
	"item/mcpToolCall/progress": true, "model/rerouted": true, "thread/name/updated": true,
	"thread/archived": true, "thread/unarchived": true, "thread/closed": true, "thread/compacted": true,
	"mcpServer/startupStatus/updated": true, "skills/changed": true, "account/updated": true,
	"item/autoApprovalReview/started": true, "item/autoApprovalReview/completed": true,
	"hook/started": true, "hook/completed": true,
}

// legacyPrefix marks the v1 event notifications (codex/event/<type>) that
// builds before v2 sent beside the v2 ones; they duplicate v2 content and
// are kept as custom payloads.
var legacyPrefix = []byte("codex/event/")

// Feed processes one server-to-client frame (the app-server's stdout), in
// wire order. Blank lines are ignored; invalid frames are malformed
// protocol (they poison the checkpoint); every message is mapped to
// transcript items and payloads. Feed returns only the sink's error
// (sticky) or ErrFinished.
func (p *Parser) Feed(f jsonrpc.Frame) error {
	rep := p.repeat
	p.repeat = false
	if p.done {
		return ErrFinished
	}
	if err := p.em.Err(); err != nil {
		return err
	}
	switch f.Class {
	case jsonrpc.None:
		switch {
		case f.Kind == 0:
			return p.malformedFrame(&f, "empty frame")
		}
		// A blank line, or a leading byte order mark: tolerated, as by
		// every parser (ndjson's package doc), kept in the raw stream only.
		return nil
	case jsonrpc.Notification:
		if rep && string(f.Data) == string(p.repeatData) {
			return p.repeatCustom(&f)
		}
		return p.notification(&f)
	case jsonrpc.Request:
		return p.serverRequest(&f)
	case jsonrpc.Response, jsonrpc.ErrorResponse:
		if p.opts.Unpaired != nil {
			p.pairResponse(&f)
		}
		return p.response(&f)
	case jsonrpc.Batch:
		// The app-server never batches; take the elements one by one.
		return rpcbook.Batch(f.Batch(), p.Feed, func(e jsonrpc.Frame, why string) error { return p.malformedFrame(&e, why) })
	}
	return p.malformedFrame(&f, "not a JSON-RPC message")
}

// FeedError records a framing problem of the server's output (a
// *jsonrpc.MessageError: an invalid line, or a line over the size limit
// whose bytes were skipped) as malformed protocol: it poisons the
// checkpoint and parsing goes on. It returns only the sink's error.
func (p *Parser) FeedError(err error) error {
	p.repeat = false
	if p.done {
		return ErrFinished
	}
	if err == nil {
		return p.em.Err()
	}
	return p.poison(rpcbook.FramingError(err))
}

// malformedFrame keeps a frame that is not a valid server message as a
// stdout transcript item and an appserver/malformed payload.
func (p *Parser) malformedFrame(f *jsonrpc.Frame, why string) error {
	return p.poison(rpcbook.Malformed(f.Data, f.Raw, f.Offset, f.Line, why))
}

func (p *Parser) poison(it driver.TranscriptItem, raw map[string]any) error {
	p.malformed++
	if p.problem == "" {
		p.problem = it.Metadata["malformed"]
	}
	if err := p.em.Item(it); err != nil {
		return err
	}
	return p.custom("malformed", "", "", raw)
}

// maxHeld bounds the custom payloads held back for run.started: a stream
// that sends more before thread/start's response (a real session sends a
// handful of notices) starts the run without the ids it does not know yet,
// so that a flood of notifications never piles up in memory.
const maxHeld = 256

// custom emits a custom payload (the ids and Raw; the payload is built
// here, not copied from the caller's), holding it back until run.started
// has been emitted with this run's coordinates (at most maxHeld of them).
func (p *Parser) custom(event, threadID, turnID string, raw map[string]any) error {
	if !p.opts.Streaming {
		return p.em.Err()
	}
	if !p.em.Started() {
		if len(p.pending) < maxHeld {
			p.pending = append(p.pending, driver.StreamPayload{Kind: driver.CustomKind(Provider, event), ThreadID: threadID, TurnID: turnID, Raw: raw})
			return p.em.Err()
		}
		if err := p.start(); err != nil {
			return err
		}
	}
	return p.em.Custom(Provider, event, driver.StreamPayload{ThreadID: threadID, TurnID: turnID, Raw: raw})
}

// start emits run.started with the thread and turn ids, then the custom
// payloads held back.
func (p *Parser) start() error {
	if p.em.Started() {
		return p.em.Err()
	}
	if err := p.em.Start("", p.threadID, p.turnID); err != nil {
		return err
	}
	return p.flush()
}

func (p *Parser) flush() error {
	for _, pl := range p.pending {
		ev := string(pl.Kind[len(Provider)+1:])
		if err := p.em.Custom(Provider, ev, pl); err != nil {
			return err
		}
	}
	p.pending = nil
	return p.em.Err()
}

// rawValue returns an owned copy of a JSON value for a payload's Raw.
func rawValue(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}

// decodeParams decodes the params of a message; a failure is malformed
// protocol.
func (p *Parser) decodeParams(f *jsonrpc.Frame, pr *params) (bool, error) {
	if err := f.DecodeParams(pr); err != nil {
		return false, p.malformedFrame(f, err.Error())
	}
	return true, nil
}

func (p *Parser) notification(f *jsonrpc.Frame) error {
	method := f.Method
	h := notificationHandler(method)
	// One params value per Parser, reset per notification: the handlers
	// take its address, which would otherwise cost an allocation each.
	p.pr = params{}
	pr := &p.pr
	if !pr.parse(p, f) {
		return p.malformedFrame(f, "params of "+string(method)+" have a member of the wrong type")
	}
	if p.opts.Unpaired != nil {
		p.pairNotification(f, pr)
	}
	if !p.inScope(pr, method) {
		return p.otherScopeNotification(f, pr)
	}
	if h != hNone {
		return p.handle(h, f, pr)
	}
	legacy := bytes.HasPrefix(method, legacyPrefix)
	if legacy {
		if string(method) == legacyTokenCountMethod {
			return p.legacyTokenCount(f, pr)
		}
		if p.opts.LegacyTurnEnd {
			return p.legacyEvent(f, pr)
		}
	}
	c := p.customOf(method)
	unknown := !legacy && !c.known
	if unknown {
		p.unknown++
	}
	if err := p.customWith(c, f, pr); err != nil {
		return err
	}
	if len(f.Data) <= jsonguard.MemoMax {
		p.repeat, p.repeatUnknown = true, unknown
		p.repeatData = append(p.repeatData[:0], f.Data...)
	}
	return nil
}

// repeatCustom handles a notification whose bytes are those of the frame
// fed just before it, which notification gave to customFrame, as
// notification would, without reading it again (a flood of one
// account/rateLimits/updated, or of an unknown method). Handling a custom
// notification changes nothing its own handling reads (the method's
// handler and knownness, the params, inScope's thread, turns and state),
// so the same bytes right after it take the same path: the pairs' count,
// the unknown count, and the custom payload with the same method, ids
// (p.pr still holds the params read of those bytes) and Raw (customFrame's
// last).
func (p *Parser) repeatCustom(f *jsonrpc.Frame) error {
	if p.opts.Unpaired != nil {
		p.pairNotification(f, &p.pr)
	}
	if p.repeatUnknown {
		p.unknown++
	}
	if err := p.custom(p.lastMethod, p.pr.ThreadID, p.pr.TurnID, p.lastRaw); err != nil {
		return err
	}
	p.repeat = true
	return nil
}

// customFrame emits a notification that has no canonical mapping as the
// custom kind appserver/<method> with its params. Raw depends on the
// method and the params bytes only, so a message whose params are those
// of the last message of its method given here (account/rateLimits/updated
// twice a turn, other members such as emittedAtMs aside, or a flood of
// one) gets the same read-only Raw and method string (customMemo,
// jsonguard.Memo), not a new map and copies.
func (p *Parser) customFrame(f *jsonrpc.Frame, pr *params) error {
	return p.customWith(p.customOf(f.Method), f, pr)
}

// customWith is customFrame with the memo of f's method.
func (p *Parser) customWith(c *customMemo, f *jsonrpc.Frame, pr *params) error {
	raw, ok := c.raw.Get(f.Params)
	if !ok {
		raw = map[string]any{"method": c.method, "params": rawValue(f.Params)}
		c.raw.Put(f.Params, raw)
	}
	p.lastMethod, p.lastRaw = c.method, raw
	return p.custom(c.method, pr.ThreadID, pr.TurnID, raw)
}

// customOf returns customFrame's memo of method, a new one for a method
// not seen yet.
func (p *Parser) customOf(method []byte) *customMemo {
	for i := range p.customs {
		if string(method) == p.customs[i].method {
			return &p.customs[i]
		}
	}
	if len(p.customs) == maxCustomMethods {
		p.customs = p.customs[:maxCustomMethods-1]
	}
	m := string(method)
	p.customs = append(p.customs, customMemo{method: m, known: known[m]})
	return &p.customs[len(p.customs)-1]
}

// inScope reports whether a notification belongs to this run: its
// threadId (when it has one and this run's thread is known) is this run's
// thread, and its turnId (when it has one and a turn of this run is known)
// is one of this run's turns. Notifications without ids (configWarning,
// account updates) are session-wide and in scope.
func (p *Parser) inScope(pr *params, method []byte) bool {
	th := pr.ThreadID
	if th == "" && pr.Thread != nil && string(method) == mThreadStarted {
		th = pr.Thread.ID
	}
	if th != "" && p.threadID != "" && th != p.threadID {
		return false
	}
	tu := pr.TurnID
	if tu == "" && pr.Turn != nil && (string(method) == mTurnStarted || string(method) == mTurnCompleted) {
		tu = pr.Turn.ID
	}
	// The current turn (p.turnID, in p.turns since beginTurn) is compared
	// first: it is the turn of nearly every notification.
	if tu != "" && p.turnID != "" && tu != p.turnID && !p.turns[tu] {
		// A turn/started of a new turn on this thread starts it.
		return string(method) == mTurnStarted && th == p.threadID && p.st != stateTurn
	}
	return true
}

// otherScopeNotification keeps a notification about another thread or turn
// in the audit trail only: a custom payload appserver/<method> with scope
// "other", and one system item per other thread/turn.
func (p *Parser) otherScopeNotification(f *jsonrpc.Frame, pr *params) error {
	p.otherScope++
	th, tu := pr.ThreadID, pr.TurnID
	if th == "" && pr.Thread != nil {
		th = pr.Thread.ID
	}
	if tu == "" && pr.Turn != nil {
		tu = pr.Turn.ID
	}
	key := th + "\x00" + tu
	if !p.otherSeen[key] {
		p.otherSeen[key] = true
		meta := map[string]string{"scope": "other", "method": string(f.Method), "thread_id": th, "turn_id": tu}
		if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: "notification for another thread or turn: " + string(f.Method), Metadata: meta}); err != nil {
			return err
		}
	}
	raw := map[string]any{"scope": "other", "method": string(f.Method), "params": rawValue(f.Params)}
	return p.custom(string(f.Method), "", "", raw)
}

// adoptThread makes id this run's thread if none is known yet.
func (p *Parser) adoptThread(id string) error {
	if id == "" || p.threadID != "" {
		return p.em.Err()
	}
	p.threadID = id
	if p.st == stateStart {
		p.st = stateThread
	}
	return p.em.Err()
}

// beginTurn makes id this run's current turn. An id seen before starts a
// new turn only after the previous one ended (codex 0.58.0 numbers every
// turn "0").
func (p *Parser) beginTurn(id string) error {
	if id == "" || (p.turns[id] && p.st != stateDone) {
		return p.em.Err()
	}
	p.turns[id] = true
	p.turnID = id
	p.st = stateTurn
	p.turnStatus, p.turnError = "", ""
	p.terminal = nil
	p.legacyErr = ""
	p.turnUsage = nil
	return p.start()
}

func (p *Parser) threadStarted(f *jsonrpc.Frame, pr *params) error {
	if pr.Thread == nil || pr.Thread.ID == "" {
		return p.malformedFrame(f, "thread/started without thread.id")
	}
	return p.adoptThread(pr.Thread.ID)
}

func (p *Parser) turnStarted(f *jsonrpc.Frame, pr *params) error {
	if pr.Turn == nil || pr.Turn.ID == "" {
		return p.malformedFrame(f, "turn/started without turn.id")
	}
	if err := p.adoptThread(pr.ThreadID); err != nil {
		return err
	}
	if err := p.beginTurn(pr.Turn.ID); err != nil {
		return err
	}
	return p.em.StepStarted("turn")
}

// response handles a server response to a client request: the thread and
// turn ids come from here.
func (p *Parser) response(f *jsonrpc.Frame) error {
	method, _ := p.calls.Answered(f.ID.Key())
	if f.Class == jsonrpc.ErrorResponse {
		e, err := f.DecodeError()
		if err != nil {
			return p.malformedFrame(f, err.Error())
		}
		msg := e.Message
		if method != "" {
			msg = method + ": " + msg
		}
		if p.rpcError == "" {
			p.rpcError = msg
		}
		meta := map[string]string{"code": string(e.Code), "request_id": f.ID.String()}
		if method != "" {
			meta["method"] = method
		}
		return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptFailure, Text: nonEmpty(msg, "error response"), Metadata: meta})
	}
	var r rpcResult
	if err := f.DecodeResult(&r); err != nil {
		// Results of other methods need not be objects.
		if len(f.Result) > 0 && f.Result[0] == '{' {
			return p.malformedFrame(f, err.Error())
		}
		return nil
	}
	switch {
	case r.Thread != nil && (method == "" || method == mThreadStart || method == mThreadResume || method == mThreadFork):
		if r.Thread.ID == "" {
			return p.malformedFrame(f, "thread response without thread.id")
		}
		if p.threadID == "" {
			if err := p.adoptThread(r.Thread.ID); err != nil {
				return err
			}
			return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptInit, SessionID: r.Thread.ID, Model: r.Model, Metadata: map[string]string{"method": nonEmpty(method, "thread")}})
		}
	case r.Turn != nil && (method == "" || method == mTurnStart):
		if r.Turn.ID == "" {
			return p.malformedFrame(f, "turn/start response without turn.id")
		}
		return p.beginTurn(r.Turn.ID)
	}
	return p.em.Err()
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// FeedClient processes one client-to-server frame (the app-server's
// stdin), so that responses pair with the requests they answer (the
// method of each request id) and approval answers with the server's
// requests. Client and server ids are separate spaces: the client's
// initialize and the server's first approval both use id 0. Feed the
// client's frames before or after the server frames they relate to; a
// capture replay feeds the whole stdin first. It returns only sink errors.
func (p *Parser) FeedClient(f jsonrpc.Frame) error {
	p.repeat = false
	if p.done {
		return ErrFinished
	}
	switch f.Class {
	case jsonrpc.Request:
		if p.opts.Unpaired != nil {
			p.pairClient(&f)
		}
		p.calls.Sent(f.ID.Key(), string(f.Method))
	case jsonrpc.Response, jsonrpc.ErrorResponse:
		var msg string
		if f.Class == jsonrpc.ErrorResponse {
			e, _ := f.DecodeError()
			msg = e.Message
		}
		a := rpcbook.NewAnswer(f.Result, f.Class == jsonrpc.ErrorResponse, msg)
		key := f.ID.Key()
		p.clientAnswers[key] = a
		if ap := p.approvals[key]; ap != nil && !ap.resolved {
			return p.resolve(ap, a)
		}
	}
	return p.em.Err()
}
