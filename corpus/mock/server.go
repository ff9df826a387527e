// Package mock implements scripted model servers for recording the real
// agent CLIs: the OpenAI Responses API streaming endpoint (used by Codex),
// the Anthropic Messages API streaming endpoint (used by Claude Code), the
// Gemini API's streamGenerateContent (used by Gemini CLI) and the OpenAI
// Chat Completions endpoint (what most other CLIs and providers speak).
//
// A Server listens on 127.0.0.1 on an ephemeral port, answers each model
// request with the next scripted Reply, writes SSE with the project's sse
// writer, and records every request it receives. It also answers the
// auxiliary endpoints the CLIs probe (model lists, token counting) so that
// they do not consume scripted replies.
package mock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// API selects the wire protocol a Server speaks on its model endpoint.
type API int

const (
	// Responses is the OpenAI Responses API (POST /v1/responses).
	Responses API = iota + 1
	// Messages is the Anthropic Messages API (POST /v1/messages).
	Messages
	// Gemini is the Gemini API (POST
	// /v1beta/models/{model}:streamGenerateContent).
	Gemini
	// Chat is the OpenAI Chat Completions API (POST /v1/chat/completions).
	Chat
)

func (a API) String() string {
	switch a {
	case Responses:
		return "responses"
	case Messages:
		return "messages"
	case Gemini:
		return "gemini"
	case Chat:
		return "chat"
	}
	return fmt.Sprintf("API(%d)", int(a))
}

// Model is the model name the mock reports when a request names none.
const Model = "mock-model"

// A Request is one HTTP request the Server received.
type Request struct {
	Seq    int    `json:"seq"` // 1-based, in arrival order
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// Headers holds the request header names, sorted (values are not kept:
	// they hold credentials).
	Headers []string `json:"headers"`
	// Body is the request body as received.
	Body json.RawMessage `json:"body,omitempty"`
	// Reply is the index of the scripted reply used, -1 for the default
	// reply given when the script is exhausted, -2 for an auxiliary
	// endpoint, -3 for a side request (see Server.Side).
	Reply int `json:"reply"`
}

// Options configure a Server. The zero value is not useful: API is required.
type Options struct {
	API API
	// Replies are consumed one per model request.
	Replies []Reply
	// Side, when non-nil, classifies model requests that are not part of
	// the scripted conversation (e.g. Claude Code's title generation); such
	// requests get SideReply and consume nothing.
	Side      func(body []byte) bool
	SideReply Reply
	// OnRequest, when non-nil, is called (from the handler goroutine) when
	// a model request starts being answered, with the reply index.
	OnRequest func(seq, reply int)
	// OnWritten, when non-nil, is called when the events of a model
	// request's reply have been written and flushed (before a stall begins
	// or the connection is aborted), with the request seq and reply index.
	OnWritten func(seq, reply int)
	// MaxStall bounds a stalled reply (default 2 minutes).
	MaxStall time.Duration
}

// Server is a scripted model server. Its methods are safe for concurrent use.
type Server struct {
	opt  Options
	ln   net.Listener
	srv  *http.Server
	done chan struct{}

	mu       sync.Mutex
	next     int
	nmodel   int // model requests answered from the script or by default
	nside    int // side requests
	requests []Request
	closed   bool
}

// New returns a Server that is not listening yet; use Start, or use it as an
// http.Handler (e.g. with httptest).
func New(opt Options) (*Server, error) {
	if opt.API != Responses && opt.API != Messages && opt.API != Gemini && opt.API != Chat {
		return nil, fmt.Errorf("mock: unknown API %v", opt.API)
	}
	for i := range opt.Replies {
		if err := opt.Replies[i].Validate(); err != nil {
			return nil, fmt.Errorf("mock: reply %d: %w", i, err)
		}
	}
	if opt.MaxStall == 0 {
		opt.MaxStall = 2 * time.Minute
	}
	return &Server{opt: opt, done: make(chan struct{})}, nil
}

// Start listens on 127.0.0.1 on an ephemeral port and serves in a goroutine.
func (s *Server) Start() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("mock: %w", err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return nil
}

// URL is the base URL of a started server, without the /v1 suffix.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server, releasing stalled replies, and waits for handlers.
func (s *Server) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
	s.mu.Unlock()
	if s.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	return err
}

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Consumed returns how many scripted replies have been used.
func (s *Server) Consumed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	names := make([]string, 0, len(r.Header))
	for k := range r.Header {
		names = append(names, strings.ToLower(k))
	}
	sort.Strings(names)
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Headers: names}
	if json.Valid(body) {
		req.Body = json.RawMessage(body)
	} else if len(body) > 0 {
		b, _ := json.Marshal(string(body))
		req.Body = b
	}

	path := strings.TrimSuffix(r.URL.Path, "/")
	model := s.isModel(r.Method, path)
	idx := -2
	var reply Reply
	var tag string // distinguishes the ids of this reply's events
	s.mu.Lock()
	if model {
		switch {
		case s.opt.Side != nil && s.opt.Side(body):
			idx, reply = -3, s.opt.SideReply
			s.nside++
			tag = fmt.Sprintf("side%02d", s.nside)
		case s.next < len(s.opt.Replies):
			idx, reply = s.next, s.opt.Replies[s.next]
			s.next++
		default:
			idx, reply = -1, defaultReply
		}
		if idx != -3 {
			s.nmodel++
			tag = fmt.Sprintf("%04d", s.nmodel)
		}
	}
	req.Seq = len(s.requests) + 1
	req.Reply = idx
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	if !model {
		s.auxiliary(w, r, path)
		return
	}
	if s.opt.OnRequest != nil {
		s.opt.OnRequest(req.Seq, idx)
	}
	modelName := modelOf(body)
	if s.opt.API == Gemini {
		modelName = geminiModelOf(path)
	}
	s.serveReply(w, r, tag, modelName, &reply, sync.OnceFunc(func() {
		if s.opt.OnWritten != nil {
			s.opt.OnWritten(req.Seq, idx)
		}
	}))
}

// defaultReply answers model requests beyond the script, so that a CLI that
// asks more than expected still terminates.
var defaultReply = Reply{Items: []Item{{Type: "text", Deltas: []string{"(mock: no scripted reply left)"}}}}

func (s *Server) isModel(method, path string) bool {
	if method != http.MethodPost {
		return false
	}
	switch s.opt.API {
	case Responses:
		return path == "/v1/responses" || path == "/responses"
	case Messages:
		return path == "/v1/messages" || path == "/messages"
	case Gemini:
		return isGeminiModel(path)
	case Chat:
		return path == "/v1/chat/completions" || path == "/chat/completions"
	}
	return false
}

func (s *Server) auxiliary(w http.ResponseWriter, r *http.Request, path string) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasSuffix(path, ":countTokens"):
		_, _ = io.WriteString(w, `{"totalTokens":42}`)
	case strings.HasSuffix(path, "/messages/count_tokens"):
		_, _ = io.WriteString(w, `{"input_tokens":42}`)
	case strings.HasSuffix(path, "/models") && r.Method == http.MethodGet:
		// Both the OpenAI list shape ("data") and Codex's own ("models").
		_, _ = io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"type":"not_found_error","message":"mock: no such endpoint"}}`)
	}
}

func modelOf(body []byte) string {
	var v struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(body, &v) == nil && v.Model != "" {
		return v.Model
	}
	return Model
}

// errAbort aborts the connection without a terminating chunk.
var errAbort = http.ErrAbortHandler

// serveReply writes reply; tag numbers the ids of its events (the model
// request's ordinal, so that side requests do not shift them).
func (s *Server) serveReply(w http.ResponseWriter, r *http.Request, tag string, model string, reply *Reply, written func()) {
	defer written()
	for k, v := range reply.Headers {
		w.Header().Set(k, v)
	}
	if reply.Status >= 400 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		body := reply.Body
		if len(body) == 0 {
			body = s.defaultErrorBody(reply.Status)
		}
		_, _ = w.Write(body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	if s.opt.API == Messages {
		w.Header().Set("request-id", "req_mock_"+tag)
	} else {
		w.Header().Set("x-request-id", "req_mock_"+tag)
	}
	w.WriteHeader(http.StatusOK)
	ew := newEventWriter(w)
	st := &stream{w: ew, reply: reply, ctx: r.Context(), done: s.done}
	var err error
	switch s.opt.API {
	case Responses:
		err = writeResponses(st, tag, model)
	case Messages:
		err = writeMessages(st, tag, model)
	case Gemini:
		err = writeGemini(st, tag, model)
	case Chat:
		err = writeChat(st, tag, model)
	}
	switch {
	case errors.Is(err, errDisconnect):
		written()
		panic(errAbort)
	case errors.Is(err, errStall):
		written()
		t := time.NewTimer(s.opt.MaxStall)
		defer t.Stop()
		select {
		case <-r.Context().Done():
		case <-s.done:
		case <-t.C:
		}
		panic(errAbort)
	}
}

func (s *Server) defaultErrorBody(status int) []byte {
	if s.opt.API == Gemini {
		return geminiErrorBody(status)
	}
	typ := "api_error"
	switch status {
	case 400:
		typ = "invalid_request_error"
	case 401:
		typ = "authentication_error"
	case 429:
		typ = "rate_limit_error"
	case 529:
		typ = "overloaded_error"
	}
	if s.opt.API == Messages {
		return fmt.Appendf(nil, `{"type":"error","error":{"type":%q,"message":"mock: HTTP %d"}}`, typ, status)
	}
	return fmt.Appendf(nil, `{"error":{"message":"mock: HTTP %d","type":%q,"param":null,"code":%q}}`, status, typ, typ)
}

var (
	errDisconnect = errors.New("mock: disconnect")
	errStall      = errors.New("mock: stall")
)

// stream writes the events of one reply, applying delay and disconnect.
type stream struct {
	w     *eventWriter
	reply *Reply
	ctx   context.Context
	done  chan struct{}
	n     int // events written
}

// event writes one SSE event whose data is v marshalled as JSON (or, for
// a rawData, exactly its bytes).
func (st *stream) event(name string, v any) error {
	if st.reply.DisconnectAfter > 0 && st.n >= st.reply.DisconnectAfter {
		return errDisconnect
	}
	if d := st.reply.DelayMS; d > 0 {
		t := time.NewTimer(time.Duration(d) * time.Millisecond)
		select {
		case <-t.C:
		case <-st.ctx.Done():
			t.Stop()
			return st.ctx.Err()
		case <-st.done:
			t.Stop()
			return errDisconnect
		}
	}
	if r, ok := v.(rawData); ok {
		st.n++
		return st.w.event(name, r)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	st.n++
	return st.w.event(name, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// end is called after the items: it reports a disconnect or stall requested
// by the script at the end of the items.
func (st *stream) end() error {
	if st.reply.DisconnectAfter > 0 && st.n >= st.reply.DisconnectAfter {
		return errDisconnect
	}
	if st.reply.Stall {
		return errStall
	}
	return nil
}
