// Package rpcbook is the JSON-RPC bookkeeping shared by the session
// parsers that see both sides of a connection (parsers/acp for ACP agents,
// parsers/appserver for the Codex app-server): which of the client's
// requests await a response and which method a response answers (Calls),
// the client's answers to the agent's own requests (Answer), which of the
// client's requests never got a response in the agent's output (Pairing,
// for Options.Unpaired), and how a line that is not a valid message, or a
// framing error, is kept for the audit (Malformed, FramingError, Batch).
//
// Ids are jsonrpc.ID.Key values ("n:0", "s:abc", "null"), under which two
// ids that denote the same JSON-RPC id are equal. The package knows no
// framing package (internal packages import none); the parsers hand it
// keys, methods and positions. Nothing here is safe for concurrent use.
package rpcbook

import (
	"errors"
	"fmt"
	"iter"
	"strconv"

	"github.com/agentwire/agentwire/driver"
)

// Calls are one side's requests that await the other side's response, by
// id key, with the order in which they were first sent. The zero Calls is
// ready to use.
type Calls struct {
	method map[string]string
	order  []string
}

// Sent notes a request with id key and its method. A request that reuses
// the id of one still awaiting its answer replaces its method and keeps
// its place in the order.
func (c *Calls) Sent(key, method string) {
	if c.method == nil {
		c.method = map[string]string{}
	}
	if _, dup := c.method[key]; !dup {
		c.order = append(c.order, key)
	}
	c.method[key] = method
}

// Answered pairs a response with the request of id key: it returns the
// request's method and true, and the request no longer awaits an answer;
// "" and false when no request of that id awaits one.
func (c *Calls) Answered(key string) (method string, ok bool) {
	method, ok = c.method[key]
	if ok {
		delete(c.method, key)
	}
	return method, ok
}

// Pending returns the id (IDText) of the first request of method, in the
// order sent, that still awaits its answer, or "".
func (c *Calls) Pending(method string) string {
	for _, key := range c.order {
		if m, ok := c.method[key]; ok && m == method {
			return IDText(key)
		}
	}
	return ""
}

// IDText renders an id key as the id it stands for, for messages: "n:0"
// is 0, "s:abc" is abc, "null" stays null.
func IDText(key string) string {
	if len(key) > 2 && key[1] == ':' {
		return key[2:]
	}
	return key
}

// Answer is the client's response to one of the agent's requests: the
// exact result (owned), or an error response and its message.
type Answer struct {
	Result []byte
	IsErr  bool
	ErrMsg string // the error's message, "error" when it has none
}

// NewAnswer builds an Answer: result is copied; for an error response
// message is its message.
func NewAnswer(result []byte, isErr bool, message string) Answer {
	a := Answer{IsErr: isErr}
	if result != nil {
		a.Result = append([]byte(nil), result...)
	}
	if isErr {
		a.ErrMsg = message
		if a.ErrMsg == "" {
			a.ErrMsg = "error"
		}
	}
	return a
}

// Pairing notes, for the pairing findings, the client's requests that
// must be answered in the agent's output (the parser chooses which: those
// of the session's set-up and its turns) and the responses the agent
// sent. The zero Pairing is ready to use.
type Pairing struct {
	answered map[string]bool
	requests []request
}

type request struct {
	method, key string
	line        int
}

// Track notes a client request of method with id key, on line line of the
// client's side (stdin), that must be answered.
func (p *Pairing) Track(method, key string, line int) {
	p.requests = append(p.requests, request{method, key, line})
}

// Responded notes a response of the agent to the client's request of id
// key ("" for a response without an id: nothing is noted).
func (p *Pairing) Responded(key string) {
	if key == "" {
		return
	}
	if p.answered == nil {
		p.answered = map[string]bool{}
	}
	p.answered[key] = true
}

// Unanswered calls fn with a finding for each tracked request that got no
// response, in the order tracked: "client request <method> (id <id>,
// stdin line <n>) has no response in stdout".
func (p *Pairing) Unanswered(fn func(msg string)) {
	for _, q := range p.requests {
		if !p.answered[q.key] {
			fn(fmt.Sprintf("client request %s (id %s, stdin line %d) has no response in stdout", q.method, IDText(q.key), q.line))
		}
	}
}

// Malformed is how a line that is not a valid message is kept: a stdout
// transcript item whose text is the line (data, else the raw bytes, else
// why) with Metadata malformed (why), line and offset, and the Raw of the
// parser's <provider>/malformed payload (error, line, offset, text).
func Malformed(data, raw []byte, offset int64, line int, why string) (driver.TranscriptItem, map[string]any) {
	text := string(data)
	if text == "" {
		text = string(raw)
	}
	if text == "" {
		text = why
	}
	meta := map[string]string{"malformed": why, "line": strconv.Itoa(line), "offset": strconv.FormatInt(offset, 10)}
	return driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: text, Metadata: meta},
		map[string]any{"error": why, "line": line, "offset": offset, "text": text}
}

// FramingError is how a framing error (an invalid line, a line over the
// size limit) is kept: a stdout transcript item with the error's text and
// Metadata malformed, and the payload Raw error; with its position when
// the error has one (Pos, as every recoverable framing error has): line
// and offset in both.
func FramingError(err error) (driver.TranscriptItem, map[string]any) {
	meta := map[string]string{"malformed": err.Error()}
	raw := map[string]any{"error": err.Error()}
	var pe interface{ Pos() (int64, int) }
	if errors.As(err, &pe) {
		off, line := pe.Pos()
		meta["line"] = strconv.Itoa(line)
		meta["offset"] = strconv.FormatInt(off, 10)
		raw["line"], raw["offset"] = line, off
	}
	return driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: err.Error(), Metadata: meta}, raw
}

// Batch feeds the elements of a batch one by one (neither protocol
// batches, but a batch is taken rather than refused): each element to
// feed, each invalid one to malformed with its error's text, until one
// returns an error (a sink's), which Batch returns.
func Batch[F any](elems iter.Seq2[F, error], feed func(F) error, malformed func(F, string) error) error {
	for e, err := range elems {
		if err != nil {
			if err := malformed(e, err.Error()); err != nil {
				return err
			}
			continue
		}
		if err := feed(e); err != nil {
			return err
		}
	}
	return nil
}
