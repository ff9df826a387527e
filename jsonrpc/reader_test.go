package jsonrpc

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"encoding/json"

	"github.com/google/go-cmp/cmp"
)

const sample = "{\"id\":0,\"result\":{\"userAgent\":\"codex\"}}\n" +
	"{\"method\":\"thread/started\",\"params\":{\"thread\":{\"id\":\"t1\"}}}\r\n" +
	"\n" +
	"[SandboxDebug] not json\n" +
	"{\"id\":0,\"method\":\"item/commandExecution/requestApproval\",\"params\":{\"threadId\":\"t1\"}}\n" +
	"{\"method\":\"item/agentMessage/delta\",\"params\":{\"delta\":\"a\"}}{\"method\":\"x\"}\n" +
	"{\"id\":\"s\",\"error\":{\"code\":-32601,\"message\":\"no\"}}\n" +
	"[{\"method\":\"a\"}]\n" +
	"{\"method\":\"turn/completed\",\"params\":{\"turn\":{\"status\":\"completed\"}}}"

func TestReaderSample(t *testing.T) {
	got, tee, err := readAll([]byte(sample), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tee != sample {
		t.Fatalf("tee differs")
	}
	classes := []Class{Response, Notification, None, Invalid, Request, Invalid, ErrorResponse, Batch, Notification}
	if len(got) != len(classes) {
		t.Fatalf("%d frames: %+v", len(got), got)
	}
	var raw strings.Builder
	for i, it := range got {
		if it.Class != classes[i] {
			t.Errorf("frame %d class %v want %v", i, it.Class, classes[i])
		}
		raw.WriteString(it.Raw)
	}
	if raw.String() != sample {
		t.Errorf("raw spans do not tile the input")
	}
	if !got[8].Unterminated || got[8].Method != "turn/completed" {
		t.Errorf("last frame %+v", got[8])
	}
	if got[3].Err == "" || got[3].Line != 4 || !strings.Contains(got[5].Err, "after top-level value") {
		t.Errorf("invalid frames not reported: %+v %+v", got[3], got[5])
	}
}

// TestChunkingInvariance: the pull and push faces over any split of the
// input give the same frames, errors and tee.
func TestChunkingInvariance(t *testing.T) {
	inputs := []string{sample, "", "\n", "{\"method\":\"a\"}", strings.Repeat("{\"method\":\"x\",\"params\":{\"d\":\"yy\"}}\n", 50) + "{bad", "\xEF\xBB\xBF{\"id\":1,\"result\":1}\n"}
	splits := [][]int{nil, {1}, {2}, {3, 1, 7}, {0, 5}, {64}, {13, 1, 1, 40}}
	for _, in := range inputs {
		want, wantTee, err := readAll([]byte(in), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if wantTee != in {
			t.Fatal("tee")
		}
		for _, sp := range splits {
			got, tee, err := readAll([]byte(in), sp, Options{})
			if err != nil || tee != in {
				t.Fatalf("reader %v: %v", sp, err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("reader split %v (-want +got):\n%s", sp, d)
			}
			got, tee, err = pushAll([]byte(in), sp, Options{})
			if err != nil || tee != in {
				t.Fatalf("decoder %v: %v", sp, err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("decoder split %v (-want +got):\n%s", sp, d)
			}
		}
	}
}

func TestLineTooLong(t *testing.T) {
	in := "{\"method\":\"a\"}\n{\"method\":\"" + strings.Repeat("x", 100) + "\"}\n{\"id\":1,\"result\":2}\n"
	got, tee, err := readAll([]byte(in), []int{7}, Options{MaxLineSize: 50})
	if err != nil || tee != in {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Class != Notification || got[2].Class != Response {
		t.Fatalf("%+v", got)
	}
	if got[1].ErrOffset != 15 || got[1].ErrLen != 114 || !strings.Contains(got[1].Err, "line too long (114 bytes skipped)") {
		t.Fatalf("too-long report %+v", got[1])
	}
	r := NewReader(strings.NewReader(in), Options{MaxLineSize: 50})
	r.Next()
	_, err = r.Next()
	if !errors.Is(err, ErrLineTooLong) || !IsRecoverable(err) {
		t.Fatalf("err %v", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestFatalErrors(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("{\"method\":\"a\"}\n{\"meth"), errReader{boom}), Options{})
	if f, err := r.Next(); err != nil || f.Class != Notification {
		t.Fatal(f, err)
	}
	if _, err := r.Next(); err != boom {
		t.Fatalf("err %v", err)
	}
	if _, err := r.Next(); err != boom {
		t.Fatalf("not sticky: %v", err)
	}
	n := 0
	for range NewReader(io.MultiReader(strings.NewReader("{\"method\":\"a\"}\n"), errReader{boom}), Options{}).All() {
		n++
	}
	if n != 2 {
		t.Fatalf("All yielded %d", n)
	}
	var tee failWriter
	d := NewDecoder(Options{Tee: tee}, func(Frame, error) error { return nil })
	if _, err := d.Write([]byte("x")); err == nil {
		t.Fatal("tee error lost")
	}
	stop := errors.New("stop")
	d = NewDecoder(Options{}, func(Frame, error) error { return stop })
	if _, err := d.Write([]byte("{}\n{}\n")); err != stop {
		t.Fatal(err)
	}
	if err := d.Close(); err != stop {
		t.Fatal(err)
	}
	d.Reset(Options{}, func(Frame, error) error { return nil })
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("tee full") }

func TestReaderAllocs(t *testing.T) {
	line := []byte("{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":\"t\",\"turnId\":\"u\",\"itemId\":\"i\",\"delta\":\"hello\"}}\n")
	in := bytes.Repeat(line, 2000)
	src := bytes.NewReader(in)
	r := NewReader(src, Options{})
	r.Next()
	allocs := testing.AllocsPerRun(1000, func() {
		f, err := r.Next()
		if err != nil || f.Class != Notification {
			src.Reset(in)
			r.Reset(src, Options{})
		}
	})
	if allocs != 0 {
		t.Fatalf("Next allocates %v per frame", allocs)
	}
}

func TestEncoder(t *testing.T) {
	var buf bytes.Buffer
	e := NewEncoder(&buf)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.Request(IntID(0), "initialize", map[string]any{"clientInfo": map[string]string{"name": "a<b>\n"}}))
	must(e.Notify("initialized", nil))
	must(e.Respond(StringIDOf("x"), []byte("{ \"decision\" :\n \"accept\" }")))
	must(e.RespondError(NullIDValue(), -32601, "no \"such\"", struct {
		Raw json.RawMessage `json:"raw"`
	}{json.RawMessage("{\n}")}))
	e.Version = true
	id, _ := ParseID([]byte("18446744073709551616"))
	must(e.Respond(id, nil))
	want := "{\"id\":0,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"a<b>\\n\"}}}\n" +
		"{\"method\":\"initialized\"}\n" +
		"{\"id\":\"x\",\"result\":{\"decision\":\"accept\"}}\n" +
		"{\"id\":null,\"error\":{\"code\":-32601,\"message\":\"no \\\"such\\\"\",\"data\":{\"raw\":{}}}}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":18446744073709551616,\"result\":null}\n"
	if d := cmp.Diff(want, buf.String()); d != "" {
		t.Fatalf("(-want +got)\n%s", d)
	}
	// Every line classifies back to what was encoded.
	got, _, _ := readAll(buf.Bytes(), nil, Options{})
	classes := []Class{Request, Notification, Response, ErrorResponse, Response}
	for i, it := range got {
		if it.Class != classes[i] || it.Err != "" {
			t.Errorf("line %d: %+v", i, it)
		}
	}
	if _, err := AppendResponse(nil, false, IntID(1), []byte("{bad")); err == nil {
		t.Error("invalid raw JSON accepted")
	}
}

// TestNextFrameIsNext: NextFrame hands out the frames and errors Next
// returns (nil where Next gives the zero Frame), over valid, invalid,
// blank and too-long lines and the end of the input.
func TestNextFrameIsNext(t *testing.T) {
	in := sample + "\n" + strings.Repeat("x", 80) + "\n{\"id\":1,\"result\":{}}\n"
	opts := Options{MaxLineSize: 64}
	byValue, byPointer := NewReader(strings.NewReader(in), opts), NewReader(strings.NewReader(in), opts)
	for i := 0; ; i++ {
		want, werr := byValue.Next()
		got, gerr := byPointer.NextFrame()
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("frame %d: error %v, Next's %v", i, gerr, werr)
		}
		if got == nil {
			if !cmp.Equal(want, Frame{}, cmp.AllowUnexported(Frame{}, ID{})) {
				t.Fatalf("frame %d: nil, Next gave %+v", i, want)
			}
		} else if !cmp.Equal(*got, want, cmp.AllowUnexported(Frame{}, ID{})) {
			t.Fatalf("frame %d: %+v, Next gave %+v", i, *got, want)
		}
		if errors.Is(werr, io.EOF) {
			if i < 10 {
				t.Fatalf("EOF after %d frames", i)
			}
			return
		}
	}
}
