package sse

import (
	"bufio"
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWriterFormat(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	steps := []func() error{
		func() error {
			return w.WriteEvent(Event{Event: "message_start", ID: "1", Retry: 1500 * time.Millisecond, Data: []byte(`{"a":1}`)})
		},
		func() error { return w.WriteEvent(Event{Data: []byte("l1\nl2\r\nl3\rl4\n")}) },
		func() error { return w.WriteEvent(Event{}) },
		func() error { return w.WriteEvent(Event{Data: []byte(" lead")}) },
		func() error { return w.WriteComment("ping") },
		func() error { return w.WriteComment("") },
		func() error { return w.WriteComment("a\nb") },
	}
	for i, s := range steps {
		if err := s(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := "event: message_start\nid: 1\nretry: 1500\ndata: {\"a\":1}\n\n" +
		"data: l1\ndata: l2\ndata: l3\ndata: l4\ndata:\n\n" +
		"data:\n\n" +
		"data:  lead\n\n" +
		": ping\n\n:\n\n: a\n: b\n\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Fatalf("stream (-want +got):\n%s", d)
	}
	gs := events(readAll(t, b.Bytes(), Options{}, []int{1}))
	wantEv := []refEvent{{Event: "message_start", Data: `{"a":1}`, ID: "1"}, {Data: "l1\nl2\nl3\nl4\n", ID: "1"}, {ID: "1"}, {Data: " lead", ID: "1"}}
	if d := cmp.Diff(wantEv, gs); d != "" {
		t.Fatalf("decoded (-want +got):\n%s", d)
	}
}

// TestWriterCRLF: with CRLF every line, the blank line included, ends with
// CRLF, and the reader decodes the same events.
func TestWriterCRLF(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	w.CRLF = true
	if err := w.WriteEvent(Event{Event: "e", ID: "7", Data: []byte("l1\nl2")}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteComment("ping"); err != nil {
		t.Fatal(err)
	}
	want := "event: e\r\nid: 7\r\ndata: l1\r\ndata: l2\r\n\r\n: ping\r\n\r\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Fatalf("stream (-want +got):\n%s", d)
	}
	gs := events(readAll(t, b.Bytes(), Options{}, []int{1}))
	if d := cmp.Diff([]refEvent{{Event: "e", Data: "l1\nl2", ID: "7"}}, gs); d != "" {
		t.Fatalf("decoded (-want +got):\n%s", d)
	}
}

func TestWriterInvalidField(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, e := range []Event{{Event: "a\nb"}, {Event: "a\r"}, {ID: "1\n"}, {ID: "x\x00y"}} {
		if err := w.WriteEvent(e); !errors.Is(err, ErrInvalidField) {
			t.Errorf("%+v: %v", e, err)
		}
	}
	if b.Len() != 0 {
		t.Fatalf("wrote %q for invalid events", b.String())
	}
	if err := w.WriteEvent(Event{Data: []byte("ok")}); err != nil {
		t.Fatalf("invalid field made the writer sticky: %v", err)
	}
}

// countingWriter counts Write calls and flushes.
type countingWriter struct {
	bytes.Buffer
	writes, flushes int
}

func (c *countingWriter) Write(p []byte) (int, error) { c.writes++; return c.Buffer.Write(p) }
func (c *countingWriter) Flush()                      { c.flushes++ }

func TestWriterFlush(t *testing.T) {
	var c countingWriter
	w := NewWriter(&c)
	w.WriteEvent(Event{Data: []byte("a\nb\nc")})
	w.WriteComment("x")
	if c.writes != 2 || c.flushes != 2 {
		t.Fatalf("writes %d flushes %d, want one Write and one Flush per call", c.writes, c.flushes)
	}
	w.AutoFlush = false
	w.WriteEvent(Event{Data: []byte("d")})
	if c.flushes != 2 {
		t.Fatalf("flushed with AutoFlush off")
	}
	w.Flush()
	if c.flushes != 3 {
		t.Fatalf("Flush did not flush")
	}

	var b bytes.Buffer
	bw := bufio.NewWriter(&b)
	if err := NewWriter(bw).WriteEvent(Event{Data: []byte("z")}); err != nil || b.String() != "data: z\n\n" {
		t.Fatalf("bufio.Writer not flushed: %q %v", b.String(), err)
	}
}

func TestWriterStickyError(t *testing.T) {
	w := NewWriter(failWriter{})
	if err := w.WriteEvent(Event{Data: []byte("a")}); err != errBoom {
		t.Fatalf("got %v", err)
	}
	if err := w.WriteComment("a"); err != errBoom {
		t.Fatalf("not sticky: %v", err)
	}
	if err := w.Flush(); err != errBoom {
		t.Fatalf("flush not sticky: %v", err)
	}
}

// TestWriterHTTP streams through a real HTTP server and reads the events as
// they arrive, proving each event is flushed.
func TestWriterHTTP(t *testing.T) {
	next := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		rw.Header().Set("Content-Type", "text/event-stream")
		w := NewWriter(rw)
		for i := range 3 {
			if err := w.WriteEvent(Event{Event: "tick", Data: []byte(strings.Repeat("x", i))}); err != nil {
				t.Error(err)
				return
			}
			<-next // the client must see the event before the next is written
		}
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(resp.Body, Options{})
	defer r.Close()
	for i := range 3 {
		f, err := r.Next()
		if err != nil || f.Event != "tick" || string(f.Data) != strings.Repeat("x", i) {
			t.Fatalf("event %d: %+v %v", i, f, err)
		}
		next <- struct{}{}
	}
}
