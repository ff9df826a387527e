package openai

import (
	"bytes"
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
