package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// eventOpts compares events field by field. An empty slice and a nil one
// are equal: the two paths reuse their storage differently, and the
// parser only ranges over the slices. The decoded texts' storage is not
// compared, the parts' texts are.
var eventOpts = cmp.Options{
	cmp.AllowUnexported(event{}, candidate{}, part{}, functionCall{}, apiError{}, member{}),
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreFields(event{}, "texts", "usageMemo", "tail", "shapes", "replayed", "usageCounted"),
}

// sameAsSlow feeds the event data lines to fastEvent and to the slow path
// (each side with its own event, storage reused from line to line as in
// the parser; a line fastEvent declines goes to the slow path on its side
// too) and fails when fastEvent takes a line the slow path rejects or
// walks differently. It returns how many lines fastEvent took.
func sameAsSlow(t *testing.T, lines [][]byte) int {
	t.Helper()
	var fast, slow Parser
	took := 0
	for _, d := range lines {
		ok := fastEvent(d, &fast.ev)
		err := slow.slowEvent(d)
		if !ok {
			_ = fast.slowEvent(d)
			continue
		}
		took++
		if fast.ev.usageCounted && !bytes.Contains(fast.ev.usageRaw, countName) {
			t.Fatalf("fastEvent says the usage names a count, it does not: %s", fast.ev.usageRaw)
		}
		if err != nil {
			t.Fatalf("fastEvent took data the slow path rejects (%v):\n%q", err, d)
		}
		decodeTexts(&slow.ev)
		if diff := cmp.Diff(slow.ev, fast.ev, eventOpts); diff != "" {
			t.Fatalf("fastEvent differs from the slow path (-slow +fast):\n%s\ndata: %q", diff, d)
		}
	}
	return took
}

// decodeTexts decodes the text literals of the slow path's event as the
// parser does (jsonguard.AppendString), to compare with fastEvent's one-pass
// decoding.
func decodeTexts(ev *event) {
	for i := range ev.candidates {
		for j := range ev.candidates[i].parts {
			if pt := &ev.candidates[i].parts[j]; pt.kind == partText && !pt.decoded {
				pt.text, pt.decoded = jsonguard.AppendString(nil, pt.text), true
			}
		}
	}
}

// dataLines splits a body into lines, an SSE data field's value for a
// "data:" line.
func dataLines(body []byte) [][]byte {
	var out [][]byte
	for l := range bytes.SplitSeq(body, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if v, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			l = bytes.TrimPrefix(v, []byte(" "))
		}
		out = append(out, l)
	}
	return out
}

// TestFastEventTakesTheCommonShape holds fastEvent to the slow path on the
// corpus and the benchmark stream, and checks that it takes every event of
// the benchmark stream (the shapes it exists for).
func TestFastEventTakesTheCommonShape(t *testing.T) {
	stream, events := benchStream(3)
	if got := sameAsSlow(t, dataLines([]byte(stream))); got != events {
		t.Errorf("fastEvent took %d of the %d benchmark events", got, events)
	}
	files, _ := filepath.Glob(filepath.Join(corpusRoot, "*", "*", "stdout"))
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	took := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		took += sameAsSlow(t, dataLines(b))
	}
	if took == 0 {
		t.Error("fastEvent took no corpus event")
	}
}

// fastDeclines are events fastEvent must leave to the slow path (each
// would be walked with a problem, an extra or a last-wins duplicate).
var fastDeclines = []string{
	`{"candidates":[{"content":{"parts":[{"text":"a"}]},"index":0}],"candidates":[]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a","text":"b"}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":null}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a","functionCall":{"name":"f"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"thought":1,"text":"a"}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a"}]},"index":-1}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a"}]},"index":1.5}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a"}]},"index":01}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a"}]},"safetyRatings":[]}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":null}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"executableCode":"x"}]}}]}`,
	`{"candidates":[1]}`,
	`{"usageMetadata":{"a":[[[[1]]]]}}`,
	`{"usageMetadata":{"a":01}}`,
	`{"modelVersion":null}`,
	`{"error":{"code":1}}`,
	`{"candidates":[]} x`,
	`{"candidates":[],}`,
}

func TestFastEventDeclines(t *testing.T) {
	for _, d := range fastDeclines {
		var ev event
		if fastEvent([]byte(d), &ev) {
			t.Errorf("fastEvent took %s", d)
		}
	}
}

// FuzzFastEvent holds fastEvent to the slow path (jsonguard's validating
// pass and the member walk) on any run of lines: when it takes a line, the
// slow path accepts it and walks the same event.
func FuzzFastEvent(f *testing.F) {
	stream, _ := benchStream(1)
	f.Add([]byte(stream))
	files, _ := filepath.Glob(filepath.Join(corpusRoot, "*", "*", "stdout"))
	for _, s := range files {
		b, _ := os.ReadFile(s)
		f.Add(b)
	}
	f.Add([]byte(strings.Join(fastDeclines, "\n")))
	f.Add([]byte(strings.Join(tailLines, "\n")))
	f.Add([]byte(strings.Join(shapeLines, "\n")))
	f.Add([]byte(`{"candidates": [{"content": {"parts": [{"text": "caf\u00e9 \"q\"","thought": true,"thoughtSignature": "c2ln"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 1e2,"x": [-0.5, true, false, null, {}]},"modelVersion": "m","responseId": "r","createTime": "t"}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"1","name":"f","args":{"a":[1,{"b":"c"}]}},"thoughtSignature":"s"},{"codeExecutionResult":{"outcome":"OUTCOME_OK"}}]},"index":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsSlow(t, dataLines(data))
	})
}

// tailLines are events whose members after the candidates repeat but for
// the usage counts, the ids and the spacing, in and out of one shape.
var tailLines = []string{
	`{"candidates": [{"content": {"parts": [{"text": "a"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 13},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "b"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 140},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "c"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": -1.5e3},"modelVersion": "m2","responseId": "\u0072"}`,
	`{"candidates": [{"content": {"parts": [{"text": "d"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 01},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "e"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 15},"modelVersion": "m","responseId": "r` + "\x01" + `"}`,
	`{"candidates": [{"content": {"parts": [{"text": "f"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 16},"modelVersion": "m","responseId": "r"} `,
	`{"candidates": [{"content": {"parts": [{"text": "g"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 17},"modelVersion": "m","responseId": "r","modelVersion": "n"}`,
	`{"candidates": [{"content": {"parts": [{"text": "h"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 18},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "i"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 19},"modelVersion": "m","responseId": "r","createTime": "t"}`,
	`{"candidates": [{"content": {"parts": [{"text": "j"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 20},"modelVersion": "m","responseId": "r","createTime": "u"}`,
	`{"modelVersion": "m","candidates": [{"content": {"parts": [{"text": "k"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 21},"responseId": "r","createTime": "u"}`,
	`{"candidates": [{"content": {"parts": [{"text": "l"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 22},"modelVersion": "m","responseId": "r","createTime": "u"}`,
	`{"candidates": [{"content": {"parts": [{"text": "m"}],"role": "model"},"index": 0}]}`,
	`{"candidates": [{"content": {"parts": [{"text": "n"}],"role": "model"},"index": 0}]}`,
}

// TestFastEventTail checks the shape of the members after the candidates
// (fastRead's): an event that repeats them but for their values is read
// from the shape (the usage and ids its own), one that does not is read
// whole, and the fast and slow paths agree on events in and out of the
// shape.
func TestFastEventTail(t *testing.T) {
	var ev event
	read := func(d string) bool {
		ev.reset()
		return fastRead([]byte(d), &ev, nil)
	}
	for n, want := range []struct {
		take   bool
		misses int
		usage  string
	}{
		{true, 1, `{"promptTokenCount": 12,"totalTokenCount": 13}`},
		{true, 0, `{"promptTokenCount": 12,"totalTokenCount": 140}`},
		{true, 0, `{"promptTokenCount": 12,"totalTokenCount": -1.5e3}`},
		{false, 1, ""},
		{false, 2, ""},
	} {
		if got := read(tailLines[n]); got != want.take || ev.tail.misses != want.misses || want.take && string(ev.usageRaw) != want.usage {
			t.Fatalf("event %d: took %v, misses %d, usage %s", n, got, ev.tail.misses, ev.usageRaw)
		}
	}
	if read(tailLines[2]); string(ev.modelVersion) != `"m2"` || string(ev.responseID) != `"\u0072"` || ev.createTime != nil || !ev.hasUsage {
		t.Fatalf("read %+v", ev)
	}
	var lines [][]byte
	for _, l := range tailLines {
		lines = append(lines, []byte(l))
	}
	if took := sameAsSlow(t, lines); took != len(tailLines)-3 {
		t.Errorf("fastEvent took %d of %d", took, len(tailLines))
	}
}

// shapeLines are events that repeat the one before but for their string
// values and numbers, in and out of the shapes fastEvent learns: texts with
// escapes, invalid UTF-8 and control bytes, indexes fastCandidate takes
// and ones it does not, a second candidate, code execution values, and
// the events a shape does not replay (a signature, a finish reason, a
// function call).
var shapeLines = []string{
	`{"candidates": [{"content": {"parts": [{"text": "a"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 13},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "b \"q\" caf\u00e9 \ud83d\ude00 \ud800"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 14},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "` + "c \xff\xfe d" + `"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 15},"modelVersion": "m2","responseId": "\u0072"}`,
	`{"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 16},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "e` + "\x01" + `"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 17},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "f\x"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 18},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "g"}],"role": "model"},"index": 7}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 19},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "h"}],"role": "model"},"index": 1.5}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 20},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "i"}],"role": "model"},"index": -1}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 21},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "j"}],"role": "model"},"index": 1234567890}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 22},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "k"}],"role": "model"},"index": 2e0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 23},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "l"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 2.5e1},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "m","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 24},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "n","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 25},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "o"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 26},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "p"},{"text": "q"}],"role": "model"},"index": 0},{"content": {"parts": [{"text": "r"}],"role": "model"},"index": 1}],"modelVersion": "m"}`,
	`{"candidates": [{"content": {"parts": [{"text": "s"},{"text": "t"}],"role": "model"},"index": 0},{"content": {"parts": [{"text": "u"}],"role": "model"},"index": 2}],"modelVersion": "m"}`,
	`{"candidates": [{"content": {"parts": [{"executableCode": {"language": "PYTHON","code": "print(1)"}}],"role": "model"},"index": 0}],"responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"executableCode": {"language": "PYTHON","code": "print(22)\n"}}],"role": "model"},"index": 0}],"responseId": "r2"}`,
	`{"candidates": [{"content": {"parts": [{"codeExecutionResult": {"outcome": "OUTCOME_OK","output": "1"}}],"role": "model"},"index": 0}],"responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"codeExecutionResult": {"outcome": "OUTCOME_FAILED","output": "-5"}}],"role": "model"},"index": 0}],"responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "v","thoughtSignature": "c2ln"}],"role": "model"},"index": 0}],"modelVersion": "m"}`,
	`{"candidates": [{"content": {"parts": [{"text": "w","thoughtSignature": "c2lo"}],"role": "model"},"index": 0}],"modelVersion": "m"}`,
	`{"candidates": [{"content": {"parts": [{"text": "x"}],"role": "model"},"finishReason": "STOP","index": 0}],"modelVersion": "m"}`,
	`{"candidates": [{"content": {"parts": [{"text": "y"}],"role": "model"},"finishReason": "MAX_TOKENS","index": 0}],"modelVersion": "m"}`,
	`{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f","args": {"a": 1}}}],"role": "model"},"index": 0}]}`,
	`{"candidates": [{"content": {"parts": [{"functionCall": {"name": "g","args": {"a": 2}}}],"role": "model"},"index": 0}]}`,
	`{"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 27},"modelVersion": "m"}`,
	`{"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 28},"modelVersion": "m"}`,
	`{"candidates": [{"content": {"parts": [{"text": "z"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 29},"modelVersion": "m","responseId": "r"}`,
	`{"candidates": [{"content": {"parts": [{"text": "A"}],"role": "model"},"index": 0}],"usageMetadata": {"trafficType": "ON_DEMAND"},"modelVersion": "m"}`,
	`{"candidates": [{"content": {"parts": [{"text": "B"}],"role": "model"},"index": 0}],"usageMetadata": {"trafficType": "TokenCount"},"modelVersion": "m"}`,
	`{"candidates": [{"content": {"parts": [{"text": "C"}],"role": "model"},"index": 0}],"usageMetadata": {"trafficType": "ON_DEMAND"},"modelVersion": "m"}`,
}

// TestFastEventShapes checks the shapes of whole events: fastEvent agrees
// with the slow path on events in and out of its shapes, replays the
// events that repeat a learnt one (all but the first of each kind in the
// benchmark stream, the function calls and the last aside), and learns
// no event whose reading holds a decoded string.
func TestFastEventShapes(t *testing.T) {
	var lines [][]byte
	for _, l := range shapeLines {
		lines = append(lines, []byte(l))
	}
	sameAsSlow(t, lines)
	// The same lines, each after the one before it, to replay every one
	// from a shape learnt from its predecessor.
	for k := 1; k < len(lines); k++ {
		sameAsSlow(t, [][]byte{lines[k-1], lines[k-1], lines[k]})
	}

	var ev event
	replayed := func(d string) bool {
		if !fastEvent([]byte(d), &ev) {
			t.Fatalf("declined %s", d)
		}
		return ev.shapes.misses == 0
	}
	for _, d := range []string{shapeLines[21], shapeLines[23], shapeLines[25]} {
		replayed(d)
		if replayed(d) {
			t.Errorf("replayed an event with a decoded string: %s", d)
		}
	}
	// Per round of the benchmark stream: two thought summaries, twenty
	// answer texts, a function call (with a signature), a code execution
	// and its result. Each kind but the call is learnt, in a shape of its
	// own, at its first event (the result at its second: in the first
	// round it is the third event in a row that no shape matched) and
	// replayed from then on.
	stream, events := benchStream(4)
	ev = event{}
	got := 0
	for _, d := range dataLines([]byte(stream)) {
		if len(d) > 0 && replayed(string(d)) {
			got++
		}
	}
	if want := events - 4 - 1 - 4 - 1; got != want { // the first of each kind, the second result, the calls, the last (a finish)
		t.Errorf("replayed %d of %d events, want %d", got, events, want)
	}
}

func TestNamesCount(t *testing.T) {
	for in, want := range map[string]bool{
		`{"promptTokenCount": 1}`:                            true,
		`{"trafficType": "ON_DEMAND","totalTokenCount" : 2}`: true,
		"{\"candidatesTokenCount\"\r\n:3}":                   true,
		`{"trafficType": "ON_DEMAND"}`:                       false,
		`{"x": "aTokenCount","y": 1}`:                        false,
		`{"x": ["TokenCount"],"y": {"z": "TokenCount"}}`:     false,
		`{"x": "TokenCount\"", "y": 1}`:                      false,
		`{"x": "TokenCount", "yTokenCount": 1}`:              true,
		`{}`:                                                 false,
	} {
		if got := namesCount([]byte(in)); got != want {
			t.Errorf("namesCount(%s) = %v", in, got)
		}
	}
}
