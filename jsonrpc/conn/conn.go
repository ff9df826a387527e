package conn

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/sourcegraph/jsonrpc2"
)

// Options configures a Conn.
type Options struct {
	// Read configures inbound framing; Read.Tee receives the raw stdout.
	Read jsonrpc.Options
	// OutTee receives every outbound line (the raw stdin).
	OutTee io.Writer
	// Version adds "jsonrpc":"2.0" to outbound messages (the Codex
	// app-server does not need it).
	Version bool
	// Observe is called on the read goroutine for every inbound frame in
	// wire order (notifications, server requests, responses, invalid lines
	// with their *jsonrpc.MessageError), before it is dispatched: feed a
	// parser from here. The frame is valid until Observe returns.
	Observe func(jsonrpc.Frame, error)
	// Handle answers a server-to-client request (an approval). It runs on
	// the read goroutine, so nothing else is read until it returns, which
	// keeps wire order; it must not Call the peer (the response could not
	// be read). Its result is sent back with the request's exact id; an
	// error is sent as an error response (code -32603, or the code of a
	// *jsonrpc2.Error). A nil Handle answers -32601 "method not found".
	// The frame is valid until Handle returns; ctx is the Dial context.
	Handle func(ctx context.Context, req jsonrpc.Frame) (result any, err error)
}

// Conn is a client connection to a JSON-RPC server over a pair of pipes.
type Conn struct {
	rpc    *jsonrpc2.Conn
	stream *Stream
	ctx    context.Context
	opts   Options
	wg     sync.WaitGroup
	stop   chan struct{}
	once   sync.Once
}

// Dial starts a Conn reading from r (the server's stdout) and writing to w
// (its stdin). It starts two goroutines: jsonrpc2's reader, and a watcher
// that closes the Conn when ctx is done. Close waits for both.
func Dial(ctx context.Context, r io.ReadCloser, w io.WriteCloser, opts Options) *Conn {
	c := &Conn{ctx: ctx, opts: opts, stop: make(chan struct{})}
	c.stream = NewStream(r, w, StreamOptions{Read: opts.Read, OutTee: opts.OutTee, Version: opts.Version, Observe: opts.Observe, Intercept: c.intercept})
	c.rpc = jsonrpc2.NewConn(ctx, c.stream, jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
		// Unreachable: every request and notification is intercepted.
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not found"}
	}), jsonrpc2.SetLogger(discard{}))
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		select {
		case <-ctx.Done():
			c.rpc.Close()
		case <-c.stop:
		case <-c.rpc.DisconnectNotify():
		}
	}()
	return c
}

type discard struct{}

func (discard) Printf(string, ...any) {}

// intercept answers requests and consumes notifications, on the read
// goroutine.
func (c *Conn) intercept(f jsonrpc.Frame) bool {
	if f.Class != jsonrpc.Request {
		return true // notifications were delivered to Observe
	}
	if c.opts.Handle == nil {
		c.stream.ReplyError(f.ID, jsonrpc2.CodeMethodNotFound, "method not found: "+string(f.Method), nil)
		return true
	}
	res, err := c.opts.Handle(c.ctx, f)
	if err != nil {
		var je *jsonrpc2.Error
		if errors.As(err, &je) {
			var data any
			if je.Data != nil {
				data = *je.Data
			}
			c.stream.ReplyError(f.ID, je.Code, je.Message, data)
		} else {
			c.stream.ReplyError(f.ID, jsonrpc2.CodeInternalError, err.Error(), nil)
		}
		return true
	}
	c.stream.Reply(f.ID, res)
	return true
}

// Call sends a request and waits for its response, decoding the result
// into result (if not nil). It returns ctx.Err() when ctx ends first, a
// *jsonrpc2.Error for an error response, jsonrpc2.ErrClosed when the
// connection is closed.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	return c.rpc.Call(ctx, method, params, result)
}

// Notify sends a notification (such as "initialized").
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	return c.rpc.Notify(ctx, method, params)
}

// Done is closed when the connection is closed: by Close, by the Dial
// context, or at the end of the server's output.
func (c *Conn) Done() <-chan struct{} { return c.rpc.DisconnectNotify() }

// Close closes the pipes and the jsonrpc2 connection and waits for every
// goroutine the Conn started. It is safe to call more than once and from
// any goroutine except Observe and Handle.
func (c *Conn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.stop)
		err = c.rpc.Close()
		if errors.Is(err, jsonrpc2.ErrClosed) {
			err = nil
		}
		c.stream.Close()
	})
	<-c.rpc.DisconnectNotify()
	// jsonrpc2's read goroutine ends right after ReadObject fails, which
	// closing the pipes provokes.
	<-c.stream.readDone
	c.wg.Wait()
	return err
}
