package jsonguard

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// benchLines are real Claude stream-json lines (testdata/peek-bench.jsonl:
// ariel-frischer/claude-clean mocks/claude-stream-json-simple.jsonl,
// claude-code 2.0.25, MIT) plus a synthetic stream_event line, the shapes
// PeekString sees most. PEEK_BENCH_FILE overrides the file.
func benchLines(b *testing.B) [][]byte {
	name := "testdata/peek-bench.jsonl"
	if env := os.Getenv("PEEK_BENCH_FILE"); env != "" {
		name = env
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Skip(err)
	}
	return bytes.Split(bytes.TrimSpace(data), []byte("\n"))
}

func BenchmarkPeekString(b *testing.B) {
	lines := benchLines(b)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, l := range lines {
			if _, ok := PeekString(l, "type", nil); !ok {
				b.Fatal("no type")
			}
		}
	}
}

func BenchmarkCheckDepth(b *testing.B) {
	lines := benchLines(b)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, l := range lines {
			if CheckDepth(l, 0) != nil {
				b.Fatal("too deep")
			}
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	lines := benchLines(b)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, l := range lines {
			if Check(l, 0) != nil {
				b.Fatal("invalid")
			}
		}
	}
}

// apiEvents are the data of model-API stream events as the providers
// write them: an OpenAI Chat Completions chunk (compact, a short delta in
// a long envelope), a Responses output_text.delta, and a Gemini
// GenerateContentResponse (the server's `": "` spacing, usageMetadata on
// every event). Check runs over every event of those streams.
var apiEvents = [][]byte{
	[]byte(`{"id":"chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1-nano-2025-04-14","service_tier":"default","system_fingerprint":"fp_de604bd877","choices":[{"index":0,"delta":{"content":" quick"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Qup1BsQ3"}`),
	[]byte(`{"type":"response.output_text.delta","sequence_number":1234,"item_id":"msg_0cc96ac817fdc57e006933373b41c08198a4bd2da2a1b4a7c1","output_index":1,"content_index":0,"delta":" \"quoted\"","logprobs":[],"obfuscation":"LHvs3Ds"}`),
	[]byte(`{"candidates": [{"content": {"parts": [{"text": "The first 50 prime numbers add up to 5117; I checked it with a short program, \"quoted\" and caf\u00e9 \u003cok\u003e. "}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 1250,"totalTokenCount": 1490,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 1250}],"thoughtsTokenCount": 240},"modelVersion": "gemini-2.5-flash","responseId": "ZiS5ae3fFoSAkdUPnfrxqQU"}`),
}

func BenchmarkCheckAPI(b *testing.B) {
	for _, ev := range apiEvents {
		typ, _ := PeekString(ev, "object", nil)
		if t, ok := PeekString(ev, "type", nil); ok {
			typ = t
		}
		if len(typ) == 0 {
			typ = []byte("gemini")
		}
		b.Run(string(typ), func(b *testing.B) {
			b.SetBytes(int64(len(ev)))
			for b.Loop() {
				if Check(ev, 0) != nil {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkCheckMembers is BenchmarkCheckAPI through CheckMembers with a
// callback that counts the members: what the model-API parsers pay.
func BenchmarkCheckMembers(b *testing.B) {
	for _, ev := range apiEvents {
		typ, _ := PeekString(ev, "object", nil)
		if t, ok := PeekString(ev, "type", nil); ok {
			typ = t
		}
		if len(typ) == 0 {
			typ = []byte("gemini")
		}
		b.Run(string(typ), func(b *testing.B) {
			b.SetBytes(int64(len(ev)))
			n := 0
			for b.Loop() {
				if CheckMembers(ev, 0, func(_, _ []byte) { n++ }) != nil {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkCheckACP is what the JSON-RPC framing (jsonrpc's classify)
// pays per frame of a recorded ACP session: CheckIndex of 4 levels (at
// most 1024 nested entries) over every stdout line of every scenario of
// each agent's corpus captures (corpus/acp/<cli>@<version>/*/stdout), as
// one op.
func BenchmarkCheckACP(b *testing.B) {
	agents, _ := filepath.Glob("../../corpus/acp/*@*")
	if len(agents) == 0 {
		b.Skip("no ACP captures in corpus/acp")
	}
	for _, dir := range agents {
		paths, _ := filepath.Glob(filepath.Join(dir, "*", "stdout"))
		var lines [][]byte
		size := 0
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			for _, l := range bytes.Split(data, []byte("\n")) {
				if len(bytes.TrimSpace(l)) > 0 {
					lines = append(lines, l)
					size += len(l)
				}
			}
		}
		b.Run(filepath.Base(dir), func(b *testing.B) {
			b.SetBytes(int64(size))
			x := Index{Max: 1024}
			for b.Loop() {
				for _, l := range lines {
					if err := CheckIndex(l, 0, MaxLevels, &x); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
