package acp

import (
	"errors"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/internal/rpcbook"
	"github.com/agentwire/agentwire/jsonrpc"
)

// Provider is the provider name of the custom stream kinds
// ("acp/<update kind or method>") and of Response.Provider.
const Provider = "acp"

// Outcome is [driver.Outcome], the process outcome given to
// [Parser.Finish]: one type for every parser.
type Outcome = driver.Outcome

// Options configures a [Parser]. The zero value parses a non-streaming
// run of a new session.
type Options struct {
	// Streaming emits normalized StreamPayloads through the sink's
	// EmitStream. Transcript items are emitted either way.
	Streaming bool

	// SessionData is copied into the checkpoint's SessionState.Data: the
	// guard inputs driver.ParamCWD, driver.ParamWorkspaceID and
	// driver.ParamProfileFingerprint, and anything else the driver stores.
	SessionData map[string]string

	// SessionID, when set, is the session this run drives (the id given
	// to session/load or session/resume); it is then this run's session
	// from the start. Without it the session is the sessionId of the
	// session/new response, or the sessionId param of the client's
	// session/load (FeedClient).
	SessionID string

	// Load says that the run loads SessionID with session/load: the
	// session/update notifications before the load response replay the
	// session's history and are kept in the audit only (see the package
	// doc). With the client side fed, the session/load request says so by
	// itself.
	Load bool

	// Observe, when set, is called by Parse with the byte offset and line
	// of each stdout frame before it is fed, and with (len(stdout), 0)
	// before Finish.
	Observe func(offset int64, line int)

	// Unpaired, when set, is told of every protocol message whose partner
	// is missing (see pairs.go): the wire findings of the parser's pass.
	Unpaired func(offset int64, line int, msg string)

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
	// own Bounded). The parser keeps a finished tool
	// call for its late updates until 1024 more have finished; an update
	// after that is taken for a new call. Parse without it to judge a stream exactly.
	Bounded bool

	// DiscardStdout makes Parse keep no copy of stdout: RawStreams.Stdout
	// is "" (stderr and the terminal are kept). It is for a consumer that
	// counts and hashes stdout as it is read (wrapping the reader it gives
	// Parse), and it is outside the driver contract, which wants the exact
	// bytes there. Feed and Finish ignore it.
	DiscardStdout bool
}

// Capability is the parser's stream capability: ACP is a formal event
// protocol (Native) with text chunks (TokenLevel), thought chunks
// (Reasoning) and permission requests (HITL); a tool call's input comes
// whole (rawInput), never as deltas (no ToolCallArgs); every turn ends
// with a stopReason (Finish).
var Capability = driver.StreamCapability{Native: true, TokenLevel: true, Reasoning: true, HITL: true, Finish: true}

type state uint8

const (
	stateStart state = iota
	stateInitialized
	stateSession
	stateTurn
	stateDone
)

func (s state) String() string {
	return [...]string{"start", "initialized", "session", "turn", "done"}[s]
}

// Parser is the ACP session state machine. It is not safe for concurrent
// use; a Frame given to a Feed method is not retained.
type Parser struct {
	opts Options
	em   *emit.Emitter
	done bool
	st   state
	u    update // reused by every session/update

	sessionID  string
	sessionEsc bool // sessionID has a backslash (inScope)
	client     bool // FeedClient was called

	// initialize.
	initSeen        bool
	loadSession     bool
	resumeCap       bool
	agentName       string
	agentVersion    string
	protocolVersion string
	model, mode     string

	// The client side: request id key -> method, the sessionId param of
	// session/load and session/resume requests, and the order of the
	// requests.
	calls         rpcbook.Calls // the client's requests awaiting the agent's responses
	clientSession map[string]string
	cancelSent    int

	// Replay of a loaded session's history. loaded: the load response
	// was seen; promptSent: the client's session/prompt was fed.
	replay     bool
	replayed   int
	loaded     bool
	promptSent bool

	// Streamed messages.
	cur     *message
	msgSeq  int
	output  string
	scratch []byte // a chunk's text decoded, when it has escapes (appendText)

	tools     map[string]*toolState
	toolOrder []string
	// doneTools holds, bounded (Options.Bounded), the last
	// maxDone calls finished, kept (done) for their late updates; next is
	// the slot the next one takes, and an older one is forgotten.
	doneTools []*toolState
	nextDone  int

	// Turns.
	prompts    int
	stopReason string
	terminal   *driver.TerminalPayload
	promptErr  *rpcError
	rpcError   string
	usage      *driver.Usage
	turnUse    turnUsage
	sources    []string
	ctxUsed    string
	ctxSize    string
	cost       string

	// Counts for Metadata.
	malformed  int
	problem    string
	unknown    int
	extensions int
	otherScope int
	otherSeen  map[string]bool
	counts     map[string]*int // payloads per custom event: one lookup a payload

	pending []pendingCustom

	// Agent-to-client requests.
	reqs     map[string]*Request
	reqOrder []string
	newReqs  []Request
	answers  map[string]rpcbook.Answer // the client's answers by agent request id key

	pairs pairs
	raw   rawCopies // the owned copies of frame bytes payloads keep
}

type pendingCustom struct {
	event string
	pl    driver.StreamPayload
}

// rpcError is an error response the parser keeps.
type rpcError struct {
	code, message string
	data          any
}

// New returns a Parser emitting into sink.
func New(sink driver.EventSink, opts Options) *Parser {
	p := &Parser{
		opts:          opts,
		em:            emit.New(sink, opts.Streaming, Capability),
		clientSession: map[string]string{},
		tools:         map[string]*toolState{},
		otherSeen:     map[string]bool{},
		counts:        map[string]*int{},
		reqs:          map[string]*Request{},
		answers:       map[string]rpcbook.Answer{},
	}
	if opts.SessionID != "" {
		p.adoptSession(opts.SessionID)
		p.replay = opts.Load
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

// State returns the protocol position: "start", "initialized", "session",
// "turn" or "done".
func (p *Parser) State() string { return p.st.String() }

// SessionID returns this run's session id, once known.
func (p *Parser) SessionID() string { return p.sessionID }

// LoadSession reports whether the agent advertised the loadSession
// capability in its initialize response.
func (p *Parser) LoadSession() bool { return p.loadSession }

// Terminal returns the last session/prompt response, once seen.
func (p *Parser) Terminal() *driver.TerminalPayload { return p.terminal }

// Malformed returns the number of malformed lines and framing errors.
func (p *Parser) Malformed() int { return p.malformed }

// Unknown returns the number of unknown update kinds and methods seen.
func (p *Parser) Unknown() int { return p.unknown }

// ErrFinished is returned by the Feed methods after Finish.
var ErrFinished = errors.New("acp: parser already finished")

// Feed processes one agent-to-client frame (the agent's stdout), in wire
// order. Blank lines are ignored; invalid frames are malformed protocol
// (they poison the checkpoint); every message is mapped to transcript
// items and payloads. Feed returns only the sink's error (sticky) or
// ErrFinished.
func (p *Parser) Feed(f jsonrpc.Frame) error {
	if p.done {
		return ErrFinished
	}
	if err := p.em.Err(); err != nil {
		return err
	}
	switch f.Class {
	case jsonrpc.None:
		if f.Kind == 0 {
			return p.malformedFrame(&f, "empty frame")
		}
		// A blank line or a leading byte order mark: tolerated, kept in
		// the raw stream only.
		return nil
	case jsonrpc.Notification:
		if string(f.Method) == mSessionUpdate {
			return p.sessionUpdate(&f)
		}
		return p.notification(&f)
	case jsonrpc.Request:
		return p.agentRequest(&f)
	case jsonrpc.Response, jsonrpc.ErrorResponse:
		return p.response(&f)
	case jsonrpc.Batch:
		// ACP does not batch; take the elements one by one.
		return rpcbook.Batch(f.Batch(), p.Feed, func(f jsonrpc.Frame, why string) error { return p.malformedFrame(&f, why) })
	}
	return p.malformedFrame(&f, "not a JSON-RPC message")
}

// FeedError records a framing problem of the agent's output (a
// *jsonrpc.MessageError: an invalid line, or a line over the size limit
// whose bytes were skipped) as malformed protocol: it poisons the
// checkpoint and parsing goes on. It returns only the sink's error.
func (p *Parser) FeedError(err error) error {
	if p.done {
		return ErrFinished
	}
	if err == nil {
		return p.em.Err()
	}
	return p.poison(rpcbook.FramingError(err))
}

// malformedFrame keeps a frame that is not a valid agent message as a
// stdout transcript item and an acp/malformed payload, with its position.
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
	return p.custom(uMalformedUpdates, driver.StreamPayload{Raw: raw})
}

// custom emits a custom payload acp/<event>, holding it back until
// run.started has been emitted with the session id; Raw["count"] is the
// how-manieth payload of that event this is.
func (p *Parser) custom(event string, pl driver.StreamPayload) error {
	if !p.opts.Streaming {
		return p.em.Err()
	}
	c := p.counts[event]
	if c == nil {
		c = new(int)
		p.counts[event] = c
	}
	*c++
	n := *c
	if pl.Raw == nil {
		pl.Raw = map[string]any{}
	}
	pl.Raw["count"] = n
	if !p.em.Started() {
		p.pending = append(p.pending, pendingCustom{event, pl})
		return p.em.Err()
	}
	if err := p.flush(); err != nil {
		return err
	}
	return p.em.Custom(Provider, event, pl)
}

// start emits run.started with the session id, then the custom payloads
// held back. Every emission that is not a custom payload calls it first,
// so that the held-back payloads keep their place.
func (p *Parser) start() error {
	if !p.em.Started() {
		if err := p.em.Start("", p.sessionID, ""); err != nil {
			return err
		}
	}
	return p.flush()
}

// flush emits the custom payloads held back.
func (p *Parser) flush() error {
	for _, c := range p.pending {
		if err := p.em.Custom(Provider, c.event, c.pl); err != nil {
			return err
		}
	}
	p.pending = nil
	return p.em.Err()
}

// adoptSession makes id this run's session if none is known yet.
func (p *Parser) adoptSession(id string) {
	if id == "" || p.sessionID != "" {
		return
	}
	p.sessionID = id
	p.sessionEsc = strings.IndexByte(id, '\\') >= 0
}

// inScope reports whether a sessionId token names this run's session
// (or no session is known yet, or the message has none).
func (p *Parser) inScope(tok []byte) bool {
	if tok == nil || p.sessionID == "" {
		return true
	}
	// A token of the session id's very bytes names it unless it has
	// escapes, which it cannot when the id has no backslash: the common
	// case costs one comparison and no scan for a backslash.
	if !p.sessionEsc && len(tok) == len(p.sessionID)+2 && tok[0] == '"' && string(tok[1:len(tok)-1]) == p.sessionID {
		return true
	}
	if in, ok := unquoted(tok); ok {
		return string(in) == p.sessionID
	}
	s, _ := jsonrpc.String(tok)
	return s == p.sessionID
}

// otherScope keeps a message about another session in the audit trail
// only: a custom payload with scope "other", and one system item per
// other session.
func (p *Parser) otherScopeMessage(event, session string, raw map[string]any) error {
	p.otherScope++
	if !p.otherSeen[session] {
		p.otherSeen[session] = true
		meta := map[string]string{"scope": "other", "session_id": session, "method": event}
		if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: "message for another session: " + session, Metadata: meta}); err != nil {
			return err
		}
	}
	raw["scope"] = "other"
	raw["session_id"] = session
	return p.custom(event, driver.StreamPayload{Raw: raw})
}

// vendor reports whether a method is an extension: "_"-prefixed (the
// ACP convention) or outside the protocol's namespaces (Qwen Code's
// craft/drainMidTurnQueue and qwen/notify/*).
func vendor(method string) bool {
	if strings.HasPrefix(method, "_") {
		return true
	}
	ns, _, ok := strings.Cut(method, "/")
	if !ok {
		return false
	}
	switch ns {
	case "session", "fs", "terminal", "elicitation", "$":
		return false
	}
	return true
}

// notification maps an agent notification other than session/update:
// extension notifications (qwen/notify/*, _vendor/...) and unknown
// methods become acp/<method> with their params, never an error.
func (p *Parser) notification(f *jsonrpc.Frame) error {
	method := string(f.Method)
	switch {
	case method == mElicitationDone || method == mCancelRequest:
	case vendor(method):
		p.extensions++
	default:
		p.unknown++
	}
	raw := map[string]any{"method": method, "params": p.raw.copy(f.Params)}
	return p.custom(method, driver.StreamPayload{ThreadID: p.sessionID, Raw: raw})
}

// response handles an agent response to a client request.
func (p *Parser) response(f *jsonrpc.Frame) error {
	key := f.ID.Key()
	method, _ := p.calls.Answered(key)
	if p.opts.Unpaired != nil {
		p.pairResponse(f)
	}
	if f.Class == jsonrpc.ErrorResponse {
		return p.errorResponse(f, method)
	}
	if len(f.Result) == 0 || f.Result[0] != '{' {
		// session/load answers null; other results need not be objects.
		if method == mSessionLoad || method == mSessionResume || (method == "" && p.replay) {
			return p.sessionLoaded(f, method, key)
		}
		return p.em.Err()
	}
	if method == "" {
		method = p.shapeOf(f.Result)
	}
	switch method {
	case mInitialize:
		return p.initialized(f)
	case mSessionNew:
		return p.sessionCreated(f)
	case mSessionLoad, mSessionResume:
		return p.sessionLoaded(f, method, key)
	case mSessionPrompt:
		return p.promptDone(f)
	}
	return p.em.Err()
}

// shapeOf names the request a result answers, without the client side:
// an InitializeResponse has protocolVersion, a NewSessionResponse a
// sessionId, a PromptResponse a stopReason; an object result while a
// loaded session replays is the load response.
func (p *Parser) shapeOf(result []byte) string {
	m := ""
	jsonrpc.Members(result, func(name, _ []byte) bool {
		switch string(name) {
		case "protocolVersion":
			m = mInitialize
		case "sessionId":
			m = mSessionNew
		case "stopReason":
			m = mSessionPrompt
		default:
			return true
		}
		return false
	})
	if m == "" && p.replay {
		m = mSessionLoad
	}
	return m
}

func (p *Parser) initialized(f *jsonrpc.Frame) error {
	var r wireInit
	if err := f.DecodeResult(&r); err != nil {
		return p.malformedFrame(f, "initialize response: "+err.Error())
	}
	p.initSeen = true
	if r.AgentCaps != nil {
		p.loadSession = r.AgentCaps.LoadSession
		p.resumeCap = r.AgentCaps.SessionCaps != nil && len(r.AgentCaps.SessionCaps.Resume) > 0 && string(r.AgentCaps.SessionCaps.Resume) != "null"
	}
	if r.AgentInfo != nil {
		p.agentName = nonEmpty(r.AgentInfo.Name, r.AgentInfo.Title)
		p.agentVersion = r.AgentInfo.Version
	}
	p.protocolVersion = string(r.ProtocolVersion)
	if p.st < stateInitialized {
		p.st = stateInitialized
	}
	raw := map[string]any{"method": mInitialize, "result": p.raw.copy(f.Result)}
	return p.custom(mInitialize, driver.StreamPayload{Raw: raw})
}

func (p *Parser) sessionCreated(f *jsonrpc.Frame) error {
	var r wireSession
	if err := f.DecodeResult(&r); err != nil || r.SessionID == "" {
		return p.malformedFrame(f, "session/new response without a sessionId")
	}
	p.sessionReady(r)
	if p.sessionID != r.SessionID {
		// Another session of the same connection: audit only.
		return p.otherScopeMessage(mSessionNew, r.SessionID, map[string]any{"method": mSessionNew, "result": p.raw.copy(f.Result)})
	}
	return p.announce(mSessionNew, r)
}

// sessionReady takes a session response's session id (when none is
// known), model and mode.
func (p *Parser) sessionReady(r wireSession) {
	p.adoptSession(r.SessionID)
	if r.SessionID != "" && r.SessionID != p.sessionID {
		return
	}
	if r.Models != nil && r.Models.Current != "" {
		p.model = r.Models.Current
	}
	if r.Modes != nil && r.Modes.Current != "" {
		p.mode = r.Modes.Current
	}
	if p.st < stateSession {
		p.st = stateSession
	}
}

// announce emits run.started and the init item of this run's session.
func (p *Parser) announce(method string, r wireSession) error {
	if err := p.start(); err != nil {
		return err
	}
	meta := map[string]string{"method": method}
	if p.agentName != "" {
		meta["agent_name"] = p.agentName
	}
	if p.agentVersion != "" {
		meta["agent_version"] = p.agentVersion
	}
	if p.initSeen {
		meta["load_session"] = strconv.FormatBool(p.loadSession)
	}
	if p.mode != "" {
		meta["mode"] = p.mode
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptInit, SessionID: p.sessionID, Model: p.model, Metadata: meta})
}

// sessionLoaded handles the response to session/load or session/resume:
// the replay of the history (if any) is over, except when the client side
// is fed as it happens (a live driver) and has not sent session/prompt
// yet: then the replay lasts until it does. Gemini CLI 0.61.0 streams a
// loaded session's history after its load response (its loadSession does
// not await streamHistory), so those updates are history, not output, as
// long as the client has not prompted; a driver waits for them to stop
// before it prompts (drivers/acp).
func (p *Parser) sessionLoaded(f *jsonrpc.Frame, method, key string) error {
	if method == "" {
		method = mSessionLoad
	}
	p.loaded = true
	if !p.client || p.promptSent || method != mSessionLoad {
		p.replay = false
	}
	p.adoptSession(p.clientSession[key])
	var r wireSession
	if len(f.Result) > 0 && f.Result[0] == '{' {
		if err := f.DecodeResult(&r); err != nil {
			return p.malformedFrame(f, method+" response: "+err.Error())
		}
	}
	r.SessionID = ""
	p.sessionReady(r)
	return p.announce(method, r)
}

// errorResponse handles an error response: on session/prompt it ends the
// turn (the terminal, a typed failure); on another request it is a
// failure item, and the run's failure when no turn ended.
func (p *Parser) errorResponse(f *jsonrpc.Frame, method string) error {
	e, err := f.DecodeError()
	if err != nil {
		return p.malformedFrame(f, err.Error())
	}
	code := string(e.Code)
	if method == "" && !p.client && p.sessionID != "" && !p.replay {
		// Without the client side, an error after the session is set up
		// is taken as the prompt's (see the package doc).
		method = mSessionPrompt
	}
	if method == mSessionLoad || method == mSessionResume {
		p.replay = false
	}
	msg := nonEmpty(e.Message, "error response")
	meta := map[string]string{"code": code, "request_id": f.ID.String()}
	if method != "" {
		meta["method"] = method
	}
	if method == mSessionPrompt {
		if err := p.endTurn(f); err != nil {
			return err
		}
		p.promptErr = &rpcError{code: code, message: msg, data: anyOf(e.Data)}
		p.turnUse = turnUsage{}
	} else if p.rpcError == "" {
		p.rpcError = nonEmpty(method, "request") + ": " + msg
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptFailure, Text: msg, Metadata: meta})
}

// promptDone handles a session/prompt response: the turn's terminal.
func (p *Parser) promptDone(f *jsonrpc.Frame) error {
	var r struct {
		StopReason *string    `json:"stopReason"`
		Usage      *wireUsage `json:"usage"`
		Meta       *struct {
			Quota *wireQuota `json:"quota"`
			Usage *wireUsage `json:"usage"`
		} `json:"_meta"`
	}
	if err := f.DecodeResult(&r); err != nil || r.StopReason == nil {
		return p.malformedFrame(f, "session/prompt response without a valid stopReason")
	}
	if p.opts.Unpaired != nil && p.sessionID == "" {
		p.opts.Unpaired(f.Offset, f.Line, "session/prompt response without a session (no session/new or session/load response)")
	}
	if err := p.endTurn(f); err != nil {
		return err
	}
	p.promptErr = nil
	p.stopReason = *r.StopReason
	if _, ok := stopReasons[p.stopReason]; !ok {
		p.unknown++
	}
	switch {
	case r.Usage != nil:
		u := r.Usage.usage()
		p.addUsage(&u, "result.usage")
	case r.Meta != nil && r.Meta.Usage != nil:
		u := r.Meta.Usage.usage()
		p.addUsage(&u, "result._meta.usage")
	case r.Meta != nil && r.Meta.Quota != nil && r.Meta.Quota.TokenCount != nil:
		tc := r.Meta.Quota.TokenCount
		p.addUsage(&driver.Usage{InputTokens: tc.InputTokens, OutputTokens: tc.OutputTokens}, "result._meta.quota")
	case p.turnUse.meta != nil:
		p.addUsage(p.turnUse.meta, "update._meta.usage")
	}
	p.turnUse = turnUsage{}
	return p.em.Err()
}

// endTurn closes the turn's open message and tool calls and takes f as
// the terminal.
func (p *Parser) endTurn(f *jsonrpc.Frame) error {
	if err := p.start(); err != nil {
		return err
	}
	if err := p.closeMessage(); err != nil {
		return err
	}
	if err := p.closeTools("incomplete"); err != nil {
		return err
	}
	p.prompts++
	p.replay = false
	p.terminal = &driver.TerminalPayload{Event: TerminalEvent, JSON: p.raw.copy(f.Data)}
	p.st = stateDone
	if p.opts.Unpaired != nil {
		p.pairs.terminal = p.pairs.seq
	}
	return p.em.Err()
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// FeedClient processes one client-to-agent frame (what the client wrote
// to the agent's stdin), so that responses pair with the requests they
// answer and permission answers with the agent's requests. Client and
// agent ids are separate spaces. Feed the client's frames before or after
// the agent frames they relate to; a capture replay feeds the whole stdin
// first. It returns only sink errors.
func (p *Parser) FeedClient(f jsonrpc.Frame) error {
	if p.done {
		return ErrFinished
	}
	p.client = true
	switch f.Class {
	case jsonrpc.Request:
		key := f.ID.Key()
		method := string(f.Method)
		if p.opts.Unpaired != nil {
			p.pairClient(&f)
		}
		p.calls.Sent(key, method)
		if method == mSessionLoad || method == mSessionResume || method == mSessionPrompt {
			if s, ok := jsonguard.PeekString(f.Params, "sessionId", nil); ok {
				p.clientSession[key] = string(s)
			}
		}
		if method == mSessionLoad && p.prompts == 0 && p.st < stateTurn {
			// The history replays before the load response.
			p.replay = true
		}
		if method == mSessionPrompt {
			p.promptSent = true
			if p.loaded {
				p.replay = false // the history streamed after the load response is over
			}
		}
	case jsonrpc.Notification:
		if string(f.Method) == mSessionCancel {
			p.cancelSent++
		}
	case jsonrpc.Response, jsonrpc.ErrorResponse:
		var msg string
		if f.Class == jsonrpc.ErrorResponse {
			e, _ := f.DecodeError()
			msg = e.Message
		}
		a := rpcbook.NewAnswer(f.Result, f.Class == jsonrpc.ErrorResponse, msg)
		key := f.ID.Key()
		p.answers[key] = a
		if r := p.reqs[key]; r != nil && !r.resolved {
			return p.resolve(r, a)
		}
	}
	return p.em.Err()
}
