package conn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/sourcegraph/jsonrpc2"
)

// fake is an in-process server: it reads the client's lines from in and
// writes to out whatever the test scripts.
type fake struct {
	in  *jsonrpc.Reader
	out *io.PipeWriter
	// client side
	cr *io.PipeReader
	cw *io.PipeWriter
}

func newFake() *fake {
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	return &fake{in: jsonrpc.NewReader(sr, jsonrpc.Options{}), out: sw, cr: cr, cw: cw}
}

// next returns the next client message (owned).
func (f *fake) next(t *testing.T) jsonrpc.Frame {
	for {
		m, err := f.in.Next()
		if err != nil {
			t.Errorf("server read: %v", err)
			return jsonrpc.Frame{}
		}
		if m.Class != jsonrpc.None {
			return m.Clone()
		}
	}
}

func (f *fake) write(t *testing.T, s string) {
	if _, err := io.WriteString(f.out, s); err != nil {
		t.Errorf("server write: %v", err)
	}
}

// settle waits for the goroutine count to come back to base.
func settle(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines left: %d > %d\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestOrderedNotificationsAndCall(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFake()
	var seen []string
	var invalid []error
	var raw strings.Builder
	c := Dial(context.Background(), f.cr, f.cw, Options{
		Read: jsonrpc.Options{Tee: &raw},
		Observe: func(fr jsonrpc.Frame, err error) {
			if err != nil {
				invalid = append(invalid, err)
				return
			}
			if fr.Class == jsonrpc.Notification {
				var p struct{ N int }
				fr.DecodeParams(&p)
				seen = append(seen, fmt.Sprint(p.N))
			}
		},
	})
	const n = 10000
	var want strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		req := f.next(t)
		if string(req.Method) != "initialize" || strings.Contains(string(req.Raw), "jsonrpc") {
			t.Errorf("request %s", req.Raw)
		}
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "{\"method\":\"item/agentMessage/delta\",\"params\":{\"n\":%d}}\n", i)
			if i == n/2 {
				b.WriteString("[SandboxDebug] not json\n")
			}
			if b.Len() > 4096 {
				f.write(t, b.String())
				b.Reset()
			}
		}
		// Two messages in one write, the response last.
		fmt.Fprintf(&b, "{\"method\":\"last\",\"params\":{\"n\":%d}}\n{\"id\":%s,\"result\":{\"userAgent\":\"x\"}}\n", n, req.ID)
		f.write(t, b.String())
	}()
	for i := range n + 1 {
		fmt.Fprint(&want, i)
	}
	var res struct{ UserAgent string }
	if err := c.Call(context.Background(), "initialize", map[string]any{"clientInfo": map[string]string{"name": "t"}}, &res); err != nil {
		t.Fatal(err)
	}
	<-done
	if res.UserAgent != "x" {
		t.Fatalf("result %+v", res)
	}
	if strings.Join(seen, "") != want.String() {
		t.Fatalf("notifications out of order or lost: %d seen", len(seen))
	}
	if len(invalid) != 1 || !errors.Is(invalid[0], jsonrpc.ErrSyntax) {
		t.Fatalf("invalid lines: %v", invalid)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw.String(), "[SandboxDebug] not json\n") || !strings.HasSuffix(raw.String(), "\"result\":{\"userAgent\":\"x\"}}\n") {
		t.Fatal("tee incomplete")
	}
	f.out.Close()
	settle(t, base)
}

func TestServerRequests(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFake()
	var handled []string
	var out strings.Builder
	c := Dial(context.Background(), f.cr, f.cw, Options{
		OutTee: &out,
		Handle: func(ctx context.Context, req jsonrpc.Frame) (any, error) {
			handled = append(handled, req.ID.String())
			switch string(req.Method) {
			case "item/commandExecution/requestApproval":
				return map[string]string{"decision": "accept"}, nil
			case "fail":
				return nil, &jsonrpc2.Error{Code: 7, Message: "no"}
			}
			return nil, errors.New("boom")
		},
	})
	ids := []string{"0", `"str"`, "18446744073709551616", "-1", "null", "1.5"}
	go func() {
		var b strings.Builder
		for _, id := range ids {
			fmt.Fprintf(&b, "{\"id\":%s,\"method\":\"item/commandExecution/requestApproval\",\"params\":{\"itemId\":\"i\"}}\n", id)
		}
		b.WriteString("{\"id\":9,\"method\":\"fail\"}\n{\"id\":10,\"method\":\"other\"}\n")
		f.write(t, b.String())
	}()
	for _, id := range ids {
		m := f.next(t)
		if m.Class != jsonrpc.Response || string(m.ID.Raw()) != id || string(m.Result) != `{"decision":"accept"}` {
			t.Fatalf("reply %s for id %s", m.Raw, id)
		}
	}
	m := f.next(t)
	if e, _ := m.DecodeError(); m.Class != jsonrpc.ErrorResponse || string(m.ID.Raw()) != "9" || string(e.Code) != "7" {
		t.Fatalf("error reply %s", m.Raw)
	}
	m = f.next(t)
	if e, _ := m.DecodeError(); string(m.ID.Raw()) != "10" || string(e.Code) != "-32603" || e.Message != "boom" {
		t.Fatalf("error reply %s", m.Raw)
	}
	if strings.Join(handled, ",") != "0,\"str\",18446744073709551616,-1,null,1.5,9,10" {
		t.Errorf("handled %v", handled)
	}
	c.Close()
	if strings.Count(out.String(), "\n") != 8 {
		t.Errorf("out tee %q", out.String())
	}
	f.out.Close()
	settle(t, base)
}

func TestNoHandler(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFake()
	c := Dial(context.Background(), f.cr, f.cw, Options{Version: true})
	go f.write(t, "{\"id\":0,\"method\":\"x\"}\n")
	m := f.next(t)
	if e, _ := m.DecodeError(); string(e.Code) != "-32601" || !strings.HasPrefix(string(m.Raw), `{"jsonrpc":"2.0","id":0,`) {
		t.Fatalf("%s", m.Raw)
	}
	c.Close()
	f.out.Close()
	settle(t, base)
}

func TestCancelMidCall(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFake()
	ctx, cancel := context.WithCancel(context.Background())
	c := Dial(ctx, f.cr, f.cw, Options{})
	callCtx, callCancel := context.WithCancel(context.Background())
	go func() {
		f.next(t) // the request; never answered
		callCancel()
	}()
	if err := c.Call(callCtx, "turn/start", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("call err %v", err)
	}
	// Cancelling the Dial context closes the connection.
	cancel()
	select {
	case <-c.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("cancel did not close")
	}
	if err := c.Call(context.Background(), "x", nil, nil); !errors.Is(err, jsonrpc2.ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
	c.Close()
	f.out.Close()
	settle(t, base)
}

func TestEOFAndBatch(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFake()
	var got []string
	c := Dial(context.Background(), f.cr, f.cw, Options{
		Observe: func(fr jsonrpc.Frame, err error) { got = append(got, fr.Class.String()) },
		Handle:  func(context.Context, jsonrpc.Frame) (any, error) { return "ok", nil },
	})
	done := make(chan error, 1)
	go func() {
		req := f.next(t)
		f.write(t, fmt.Sprintf("[{\"method\":\"a\"},{\"id\":%s,\"result\":5},{\"id\":3,\"method\":\"b\"}]\n", req.ID))
		f.next(t) // reply to id 3
		f.out.Close()
		done <- nil
	}()
	var n int
	if err := c.Call(context.Background(), "m", nil, &n); err != nil || n != 5 {
		t.Fatalf("%v %d", err, n)
	}
	<-done
	<-c.Done()
	c.Close()
	if strings.Join(got, ",") != "batch,notification,response,request" {
		t.Errorf("observed %v", got)
	}
	settle(t, base)
}
