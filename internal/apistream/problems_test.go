package apistream

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

type posErr struct{}

func (posErr) Error() string                 { return "event too large" }
func (posErr) Pos() (offset int64, line int) { return 120, 7 }

func TestProblems(t *testing.T) {
	var p Problems
	m := map[string]string{}
	p.Metadata(m)
	if len(m) != 0 {
		t.Fatalf("clean stream metadata %v", m)
	}
	p.Mark("first")
	p.Mark("second")
	p.Unknown++
	p.Metadata(m)
	if want := map[string]string{MetaMalformed: "2", MetaProblem: "first", MetaUnknown: "1"}; !reflect.DeepEqual(m, want) {
		t.Errorf("metadata %v, want %v", m, want)
	}
}

func TestFramingError(t *testing.T) {
	it, raw := FramingError(fmt.Errorf("sse: %w", posErr{}))
	if it.Text != "sse: event too large" || it.Metadata["line"] != "7" || it.Metadata["offset"] != "120" || raw["line"] != 7 || raw["offset"] != int64(120) {
		t.Errorf("item %+v raw %v", it, raw)
	}
	it, raw = FramingError(errors.New("plain"))
	if _, ok := it.Metadata["line"]; ok || raw["error"] != "plain" {
		t.Errorf("item %+v raw %v", it, raw)
	}
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]Body{
		"": BodyUnknown, " \r\n": BodyUnknown, "\xef\xbb\xbf {": BodyJSON, "[{": BodyJSON, "data: {}": BodySSE,
		"event:x": BodySSE, ": keep-alive": BodySSE, "retry:5": BodySSE, "datum:": BodyUnknown, "<html>": BodyUnknown, "id": BodyUnknown,
	} {
		if got := Sniff([]byte(in)); got != want {
			t.Errorf("Sniff(%q) = %d, want %d", in, got, want)
		}
	}
	if !StatusOK(0) || !StatusOK(204) || StatusOK(199) || StatusOK(400) {
		t.Error("StatusOK")
	}
	if got := string(TrimJSON([]byte(" \t{\"a\":1}\r\n"))); got != `{"a":1}` {
		t.Errorf("TrimJSON = %q", got)
	}
}

func TestTerminal(t *testing.T) {
	raw := []byte("event: message_stop\ndata: {\"type\":\"message_stop\"} \n\n")
	if tp := Terminal("message_stop", []byte(` {"type":"message_stop"} `), raw); tp == nil || string(tp.JSON) != `{"type":"message_stop"}` {
		t.Errorf("Terminal = %+v", tp)
	}
	// Joined from two data lines: not bytes of the body.
	if tp := Terminal("x", []byte("{\"a\":\n1}"), []byte("data: {\"a\":\ndata: 1}\n\n")); tp != nil {
		t.Errorf("split data gave %+v", tp)
	}
	if tp := Terminal("x", []byte(" "), raw); tp != nil {
		t.Errorf("empty data gave %+v", tp)
	}
}
