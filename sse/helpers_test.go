package sse

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentwire/agentwire/internal/chunk"
)

// tb is the part of testing.TB that *rapid.T also has.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

// got is one result of Next (or of a Decoder emit), with owned bytes.
type got struct {
	Kind       Kind
	Event      string
	Data       string
	ID         string
	Retry      time.Duration
	HasRetry   bool
	Raw        string
	Offset     int64
	Line       int
	Incomplete bool
	Err        string
}

func (g got) String() string {
	if g.Err != "" {
		return "error: " + g.Err
	}
	return fmt.Sprintf("%v %q data=%q id=%q retry=%v/%v raw=%q @%d:%d inc=%v",
		g.Kind, g.Event, g.Data, g.ID, g.Retry, g.HasRetry, g.Raw, g.Offset, g.Line, g.Incomplete)
}

func fromFrame(f *Frame, err error) got {
	if err != nil {
		if f != nil {
			panic("a frame with an error: " + err.Error())
		}
		return got{Err: err.Error()}
	}
	return got{f.Kind, f.Event, string(f.Data), f.ID, f.Retry, f.HasRetry, string(f.Raw), f.Offset, f.Line, f.Incomplete, ""}
}

// poison overwrites a borrowed frame's bytes and the frame itself, so that
// a reader that still depends on either after handing them out produces
// wrong results.
func poison(f *Frame) {
	if f == nil {
		return
	}
	for i := range f.Raw {
		f.Raw[i] = 0xA5
	}
	for i := range f.Data {
		f.Data[i] = 0x5A
	}
	*f = Frame{Kind: 0xA5, Event: "\xA5", Data: []byte{0x5A}, ID: "\xA5", Retry: -1, HasRetry: true, Raw: []byte{0xA5}, Offset: -1, Line: -1, Incomplete: true}
}

// readAll decodes input with a Reader fed in reads of the given sizes (nil:
// one read), poisoning every frame before the next call. It stops at io.EOF
// or a fatal error.
func readAll(t tb, input []byte, opts Options, sizes []int) []got {
	t.Helper()
	r := NewReader(chunk.Sizes(input, sizes...), opts)
	var out []got
	for i := 0; ; i++ {
		f, err := r.Next()
		if err == io.EOF {
			return out
		}
		out = append(out, fromFrame(f, err))
		if err != nil && !IsRecoverable(err) {
			return out
		}
		poison(f)
		if i > 10*len(input)+10 {
			t.Fatalf("too many frames for %d bytes of input", len(input))
		}
	}
}

// decodeAll decodes input with a Decoder written in pieces of the given
// sizes (nil: one Write), then Close.
func decodeAll(t tb, input []byte, opts Options, sizes []int) []got {
	t.Helper()
	var out []got
	d := NewDecoder(opts, func(f *Frame, err error) error {
		out = append(out, fromFrame(f, err))
		poison(f)
		return nil
	})
	rest := input
	for i := 0; len(rest) > 0; i++ {
		n := len(rest)
		if len(sizes) > 0 {
			n = max(1, min(sizes[i%len(sizes)], n))
		}
		// Write a copy, then destroy it: the Decoder must not retain p.
		p := append([]byte(nil), rest[:n]...)
		if m, err := d.Write(p); m != n || err != nil {
			t.Fatalf("Write = %d, %v; want %d, nil", m, err, n)
		}
		for i := range p {
			p[i] = 0xEE
		}
		rest = rest[n:]
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return out
}

// mergeSkipped joins consecutive KindSkipped frames, whose number depends on
// the read sizes, and keeps the first one's position.
func mergeSkipped(in []got) []got {
	var out []got
	for _, g := range in {
		if n := len(out); n > 0 && g.Err == "" && g.Kind == KindSkipped && out[n-1].Err == "" && out[n-1].Kind == KindSkipped && !out[n-1].Incomplete {
			out[n-1].Raw += g.Raw
			out[n-1].Incomplete = g.Incomplete
			out[n-1].ID = g.ID
			continue
		}
		out = append(out, g)
	}
	return out
}

func concatRaw(gs []got) string {
	var b strings.Builder
	for _, g := range gs {
		b.WriteString(g.Raw)
	}
	return b.String()
}

// refEvent is an event of the reference parser.
type refEvent struct {
	Event, Data, ID string
	Incomplete      bool
}

// refParse is a deliberately naive transcription of WHATWG "Parsing an event
// stream" over the whole input, with our end-of-input rule (flush the
// unterminated event as incomplete unless discard) and no size limit.
func refParse(input []byte, discard bool) []refEvent {
	s := string(input)
	s = strings.TrimPrefix(s, "\uFEFF")
	var lines []string
	terminated := false
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			lines = append(lines, s)
			terminated = false
			break
		}
		lines = append(lines, s[:i])
		terminated = true
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	_ = terminated
	var out []refEvent
	var data []string
	var event, id string
	for _, line := range lines {
		if line == "" {
			if data != nil {
				out = append(out, refEvent{event, strings.Join(data, "\n"), id, false})
			}
			data, event = nil, ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch name {
		case "data":
			data = append(data, value)
		case "event":
			event = value
		case "id":
			if !strings.Contains(value, "\x00") {
				id = value
			}
		}
	}
	if data != nil && !discard {
		out = append(out, refEvent{event, strings.Join(data, "\n"), id, true})
	}
	return out
}

// events keeps the event frames of gs as refEvents.
func events(gs []got) []refEvent {
	var out []refEvent
	for _, g := range gs {
		if g.Err == "" && g.Kind == KindEvent {
			out = append(out, refEvent{g.Event, g.Data, g.ID, g.Incomplete})
		}
	}
	return out
}

func errorsOf(gs []got) []string {
	var out []string
	for _, g := range gs {
		if g.Err != "" {
			out = append(out, g.Err)
		}
	}
	return out
}

// errReader returns its data, then err.
type errReader struct {
	data []byte
	err  error
}

func (e *errReader) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		return 0, e.err
	}
	n := copy(p, e.data)
	e.data = e.data[n:]
	return n, nil
}

var errBoom = errors.New("boom")
