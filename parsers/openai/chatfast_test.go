package openai

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sameWithoutFast parses body as a Chat stream with the fast path and
// without it (Options.fullPath), streaming, and fails when the results
// differ in anything: payloads, items, the Response, the error.
func sameWithoutFast(t *testing.T, body string) {
	t.Helper()
	sameWithoutFastIn(t, Chat, body)
}

// sameWithoutFastR is sameWithoutFast for a Responses stream.
func sameWithoutFastR(t *testing.T, body string) {
	t.Helper()
	sameWithoutFastIn(t, Responses, body)
}

func sameWithoutFastIn(t *testing.T, format Format, body string) {
	t.Helper()
	opts := Options{Format: format, Streaming: true}
	fast, _ := run(200, "text/event-stream", body, opts, nil)
	opts.fullPath = true
	full, _ := run(200, "text/event-stream", body, opts, nil)
	if d := cmp.Diff(full, fast); d != "" {
		t.Fatalf("the fast path differs from the full path (-full +fast):\n%s\nbody: %q", d, body)
	}
}

// chatLines frames each line of data as an SSE event, so that the fuzzer
// mutates the chunks' JSON itself.
func chatLines(data []byte) string {
	var b strings.Builder
	for l := range bytes.SplitSeq(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(l)
		b.WriteString("\n\n")
	}
	return b.String()
}

// TestChatFastTakesTheCommonShape checks that fastChunk takes every chunk
// of the benchmark stream (the shapes it exists for) and holds the two
// paths to the same result on it and on the corpus's Chat cases.
func TestChatFastTakesTheCommonShape(t *testing.T) {
	stream := chatStream()
	var p Parser
	took, chunks := 0, 0
	for l := range strings.SplitSeq(stream, "\n") {
		d, ok := strings.CutPrefix(l, "data: ")
		if !ok || d == "[DONE]" {
			continue
		}
		chunks++
		if p.fastChunk([]byte(d)) {
			took++
		}
	}
	if took != chunks {
		t.Errorf("fastChunk took %d of the %d benchmark chunks", took, chunks)
	}
	sameWithoutFast(t, stream)
	n := 0
	for _, c := range corpusCases(t) {
		if strings.HasPrefix(c.name, ProviderChat+"/") {
			sameWithoutFast(t, c.body)
			n++
		}
	}
	if n == 0 {
		t.Fatal("no Chat corpus case")
	}
}

// chatFastDeclines are chunks fastChunk must leave to the full path.
var chatFastDeclines = []string{
	`{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[]}`,
	`{"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}`,
	`{"choices":[{"index":0,"index":1,"delta":{"content":"a"}}]}`,
	`{"choices":[{"delta":{"content":"a"},"delta":{"content":"b"}}]}`,
	`{"choices":[{"index":-1,"delta":{"content":"a"}}]}`,
	`{"choices":[{"index":1.5,"delta":{"content":"a"}}]}`,
	`{"choices":[{"index":0,"delta":"a"}]}`,
	`{"choices":[{"index":0,"message":{"content":"a"}}]}`,
	`{"choices":[{"index":0,"delta":{},"content_filter_results":{}}]}`,
	`{"choices":[1]}`,
	`{"choices":{}}`,
	`{"con\u0074ent":1,"choices":[]}`,
	`{"choices":[{"index":0,"delta":{"con\u0074ent":"a"}}]}`,
	`{"id":"a","id":"b","choices":[]}`,
	`{"choices":[]} x`,
	`{"choices":[],}`,
	`{"choices":[{"index":0,"delta":{"content":"a` + "\x01" + `"}}]}`,
}

func TestChatFastDeclines(t *testing.T) {
	var p Parser
	for _, d := range chatFastDeclines {
		if p.fastChunk([]byte(d)) {
			t.Errorf("fastChunk took %s", d)
		}
	}
}

// TestChatFastMemo checks the envelope memo: a chunk that repeats the
// last one's bytes up to its choices is read from there with the members
// before as they were (a duplicate of one of them still declines), and a
// chunk that does not is read whole.
func TestChatFastMemo(t *testing.T) {
	var p Parser
	env := `{"id":"a","model":"m","choices":`
	for _, c := range []struct {
		chunk string
		take  bool
	}{
		{env + `[{"index":0,"delta":{"content":"x"}}]}`, true},
		{env + `[{"index":0,"delta":{"content":"y"}}],"id":"b"}`, false},
		{env + `[{"index":0,"delta":{"content":"z"}}],"usage":{"prompt_tokens":1}}`, true},
		{env + `{}}`, false},
		{env + `[]`, false},
		{`{"id":"a","model":"n","choices":[]}`, true},
		{env + `[]}`, true},
	} {
		if got := p.fastChunk([]byte(c.chunk)); got != c.take {
			t.Fatalf("fastChunk(%s) = %v", c.chunk, got)
		}
		if c.take && (string(p.ctop.id) != `"a"` || p.ctop.model == nil) {
			t.Fatalf("fastChunk(%s): id %s model %s", c.chunk, p.ctop.id, p.ctop.model)
		}
	}
	if string(p.fmemo.prefix) != env[:len(env)-len(`"choices":`)] {
		t.Errorf("memo prefix %q", p.fmemo.prefix)
	}
	sameWithoutFast(t, chatLines([]byte(`{"id":"a","model":"m","choices":[{"index":0,"delta":{"content":"x"}}]}
{"id":"a","model":"m","choices":[{"index":0,"delta":{"content":"y"}}],"model":"b"}
{"id":"a","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1}}
[DONE]`)))
}

// FuzzChatFast holds the Chat fast path to the full path (jsonguard's
// validating pass and the walk): a stream of chunks, one per line of the
// input, gives the same result either way.
func FuzzChatFast(f *testing.F) {
	for _, c := range corpusCases(f) {
		if strings.HasPrefix(c.name, ProviderChat+"/") && len(c.body) <= 4<<10 {
			f.Add([]byte(c.body))
		}
	}
	var lines []string
	for l := range strings.SplitSeq(chatStream(), "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok && len(lines) < 40 {
			lines = append(lines, d)
		}
	}
	f.Add([]byte(strings.Join(lines, "\n")))
	f.Add([]byte(strings.Join(chatFastDeclines, "\n")))
	f.Add([]byte(`{"id":"x","choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a"}}]},"index":0}]}` + "\n" +
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}` + "\n[DONE]"))
	f.Add([]byte(`{"choices":[{"index":1,"delta":{"reasoning":"r","reasoning_content":"R","refusal":"no","annotations":[{"type":"url_citation"}]}},{"index":0,"delta":{"content":"caf\u00e9 \ud800"}}],"error":null,"x_groq":{"usage":{"prompt_tokens":1}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			return
		}
		sameWithoutFast(t, string(data))
		sameWithoutFast(t, chatLines(data))
	})
}

// TestChatSpanCoversTheReading checks that chatSpan numbers every span of
// a reading (each []byte of chatTop and of a choice, its delta's
// included) once, so that a chunk the shape matches gets them all.
func TestChatSpanCoversTheReading(t *testing.T) {
	var top chatTop
	choices := make([]fastChoice, 2)
	for j := range chatSpans(len(choices)) {
		v := chatSpan(&top, choices, j)
		if *v != nil {
			t.Fatalf("span %d is span %d again", j, (*v)[0])
		}
		*v = []byte{byte(j)}
	}
	var spans func(v reflect.Value) int
	spans = func(v reflect.Value) int {
		switch {
		case v.Kind() == reflect.Struct:
			n := 0
			for i := range v.NumField() {
				n += spans(v.Field(i))
			}
			return n
		case v.Type() == reflect.TypeFor[[]byte]():
			if v.IsNil() {
				t.Errorf("a span of %s is not numbered", v.Type())
			}
			return 1
		}
		return 0
	}
	if n := spans(reflect.ValueOf(top)) + spans(reflect.ValueOf(choices[0])) + spans(reflect.ValueOf(choices[1])); n != chatSpans(len(choices)) {
		t.Errorf("the reading has %d spans, chatSpan numbers %d", n, chatSpans(len(choices)))
	}
}

// TestChatFastShape checks the shape memo: a chunk that differs from the
// one learnt only in string values is read from the shape, with its own
// spans; one that differs elsewhere is read whole; the two paths agree on
// streams that go in and out of the shape, with escapes and invalid
// strings in the places that vary.
func TestChatFastShape(t *testing.T) {
	var p Parser
	c := func(content string) []byte {
		return []byte(`{"id":"x","choices":[{"index":0,"delta":{"content":"` + content + `"},"finish_reason":null}],"usage":null}`)
	}
	if !p.fastChunk(c("a")) || !p.fshape.s.Match(c("b")) {
		t.Fatal("the first chunk was not learnt")
	}
	for _, content := range []string{"bb", `\"`, `\ud800`, ""} {
		if !p.fastChunk(c(content)) || p.fshape.misses != 0 || string(p.fast[0].delta.content) != `"`+content+`"` ||
			string(p.ctop.id) != `"x"` || string(p.fast[0].finish) != "null" || string(p.ctop.usage) != "null" {
			t.Fatalf("chunk %s: misses %d, read %+v %+v", c(content), p.fshape.misses, p.ctop, p.fast)
		}
	}
	if p.fastChunk(c("\x01")) || p.fastChunk(c(`\q`)) {
		t.Fatal("took an invalid string")
	}
	if !p.fastChunk([]byte(`{"id":"x","choices":[{"index":1,"delta":{"content":"a"},"finish_reason":null}],"usage":null}`)) || p.fshape.misses == 0 || p.fast[0].index != 1 {
		t.Fatalf("another index: misses %d, read %+v", p.fshape.misses, p.fast)
	}
	sameWithoutFast(t, chatLines([]byte(strings.Join([]string{
		string(c("a")), string(c("b")), string(c(`\"`)), string(c("\x01")), string(c(`\ud83d\ude00`)),
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":""}}]},"finish_reason":null}],"usage":null}`,
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a"}}]},"finish_reason":null}],"usage":null}`,
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\":1}"}}]},"finish_reason":null}],"usage":null}`,
		string(c("c")), string(c("d")), string(c("e")),
		`{"id":"x","choices":[{"index":0,"delta":{"content":"f"},"finish_reason":"stop"}],"usage":null}`,
		`{"id":"x","choices":[{"index":0,"delta":{"content":"f"},"finish_reason":"length"}],"usage":null}`,
		"[DONE]",
	}, "\n"))))
}
