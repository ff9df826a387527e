package rpcbook

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestCalls(t *testing.T) {
	var c Calls
	c.Sent("n:0", "initialize")
	c.Sent("n:1", "session/new")
	c.Sent("s:p", "session/prompt")
	c.Sent("n:3", "session/prompt")
	if m, ok := c.Answered("n:1"); !ok || m != "session/new" {
		t.Fatalf("Answered(n:1) = %q, %v", m, ok)
	}
	if m, ok := c.Answered("n:1"); ok || m != "" {
		t.Fatalf("second Answered(n:1) = %q, %v: a response pairs once", m, ok)
	}
	if m, ok := c.Answered("n:9"); ok || m != "" {
		t.Fatalf("Answered of an unknown id = %q, %v", m, ok)
	}
	if got := c.Pending("session/prompt"); got != "p" {
		t.Fatalf("Pending = %q, want the first unanswered prompt, p", got)
	}
	c.Answered("s:p")
	if got := c.Pending("session/prompt"); got != "3" {
		t.Fatalf("Pending = %q, want 3", got)
	}
	// A reused id takes the new method in its first place.
	c.Sent("n:0", "session/prompt")
	if got := c.Pending("session/prompt"); got != "0" {
		t.Fatalf("Pending after reuse = %q, want 0", got)
	}
	c.Answered("n:0")
	c.Answered("n:3")
	if got := c.Pending("session/prompt"); got != "" {
		t.Fatalf("Pending with every prompt answered = %q", got)
	}
}

func TestIDText(t *testing.T) {
	for key, want := range map[string]string{"n:0": "0", "s:abc": "abc", "s:": "s:", "null": "null", "": ""} {
		if got := IDText(key); got != want {
			t.Errorf("IDText(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestNewAnswer(t *testing.T) {
	res := []byte(`{"outcome":"selected"}`)
	a := NewAnswer(res, false, "")
	res[0] = 'X'
	if string(a.Result) != `{"outcome":"selected"}` || a.IsErr || a.ErrMsg != "" {
		t.Fatalf("%+v: the result is not an owned copy", a)
	}
	if a := NewAnswer(nil, true, ""); !a.IsErr || a.ErrMsg != "error" || a.Result != nil {
		t.Fatalf("error answer without a message: %+v", a)
	}
	if a := NewAnswer(nil, true, "denied"); a.ErrMsg != "denied" {
		t.Fatalf("%+v", a)
	}
}

func TestPairing(t *testing.T) {
	var p Pairing
	p.Track("initialize", "n:0", 1)
	p.Track("session/prompt", "s:x", 3)
	p.Responded("")
	p.Responded("n:0")
	var got []string
	p.Unanswered(func(msg string) { got = append(got, msg) })
	want := []string{"client request session/prompt (id x, stdin line 3) has no response in stdout"}
	if !slices.Equal(got, want) {
		t.Fatalf("Unanswered: %q, want %q", got, want)
	}
}

type posErr struct{ off, line int }

func (e *posErr) Error() string                 { return fmt.Sprintf("bad line %d", e.line) }
func (e *posErr) Pos() (offset int64, line int) { return int64(e.off), e.line }

func TestMalformed(t *testing.T) {
	it, raw := Malformed([]byte("{oops"), []byte("{oops\n"), 10, 2, "invalid JSON")
	if it.Text != "{oops" || it.Metadata["malformed"] != "invalid JSON" || it.Metadata["line"] != "2" || it.Metadata["offset"] != "10" {
		t.Fatalf("item %+v", it)
	}
	if raw["error"] != "invalid JSON" || raw["line"] != 2 || raw["offset"] != int64(10) || raw["text"] != "{oops" {
		t.Fatalf("raw %v", raw)
	}
	if it, _ := Malformed(nil, []byte("\x00\n"), 0, 1, "why"); it.Text != "\x00\n" {
		t.Fatalf("without data the text is the raw bytes: %q", it.Text)
	}
	if it, raw := Malformed(nil, nil, 0, 0, "empty frame"); it.Text != "empty frame" || raw["text"] != "empty frame" {
		t.Fatalf("without bytes the text is why: %q", it.Text)
	}

	err := fmt.Errorf("framing: %w", &posErr{off: 40, line: 5})
	it, raw = FramingError(err)
	if it.Text != err.Error() || it.Metadata["line"] != "5" || it.Metadata["offset"] != "40" || raw["line"] != 5 || raw["offset"] != int64(40) {
		t.Fatalf("positioned framing error: %+v %v", it, raw)
	}
	it, raw = FramingError(errors.New("read failed"))
	if _, ok := it.Metadata["line"]; ok || raw["error"] != "read failed" || len(raw) != 1 {
		t.Fatalf("framing error without a position: %+v %v", it, raw)
	}
}

func TestBatch(t *testing.T) {
	elems := func(yield func(int, error) bool) {
		for i, bad := range []bool{false, true, false, false} {
			var err error
			if bad {
				err = errors.New("not a message")
			}
			if !yield(i, err) {
				return
			}
		}
	}
	var fed, bad []int
	stop := errors.New("sink")
	feed := func(i int) error {
		fed = append(fed, i)
		if i == 2 {
			return stop
		}
		return nil
	}
	malformed := func(i int, why string) error {
		bad = append(bad, i)
		if why != "not a message" {
			t.Errorf("why %q", why)
		}
		return nil
	}
	if err := Batch(elems, feed, malformed); err != stop {
		t.Fatalf("Batch = %v, want the feed's error", err)
	}
	if !slices.Equal(fed, []int{0, 2}) || !slices.Equal(bad, []int{1}) {
		t.Fatalf("fed %v, malformed %v: element 3 must not be fed after the error", fed, bad)
	}
}
