// Package ndjson benchmarks github.com/agentwire/agentwire/ndjson against
// a bytes.IndexByte newline scan, bufio.Scanner, encoding/json and
// segmentio's Decoder on Claude Code stream-json traffic.
package ndjson

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
)

// The workload: ~20,000 Claude Code stream-json lines (with
// --include-partial-messages), built deterministically from the real
// capture in testdata (ariel-frischer/claude-clean
// mocks/claude-stream-json-simple.jsonl, claude-code 2.0.25, MIT; and
// charlieyou/claude-agent-sdk-gleam basic_query.ndjson, MIT):
//   - 80 % stream_event lines (content_block_delta text/input_json/thinking,
//     block start/stop, message_start/delta/stop), synthesized in the shape
//     the CLI writes;
//   - assistant (text, tool_use) and user (tool_result) lines copied from
//     the capture; one user line in twelve gets a 4 to 48 KiB tool result;
//   - system/init and result lines from the capture.
const workloadLines = 20000

var (
	workloadOnce sync.Once
	workload     []byte
	workloadN    int
)

func loadWorkload() ([]byte, int) {
	workloadOnce.Do(func() { workload, workloadN = buildWorkload(workloadLines) })
	return workload, workloadN
}

func buildWorkload(n int) ([]byte, int) {
	var captured [][]byte
	for _, name := range []string{"testdata/claude-clean-simple-subagents.jsonl", "testdata/gleam-basic-query.ndjson"} {
		b, err := os.ReadFile(name)
		if err != nil {
			panic(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				captured = append(captured, l)
			}
		}
	}
	byType := map[string][][]byte{}
	for _, l := range captured {
		var v struct{ Type string }
		if err := stdjson.Unmarshal(l, &v); err != nil {
			panic(err)
		}
		byType[v.Type] = append(byType[v.Type], l)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the quick brown fox jumps over lazy dog func main return error nil if for range package import " +
		"café naïve 日本語 “quotes” tab\\tnewline\\n \\\"escaped\\\" \\u00e9 path/to/file.go:12 {json} [array]")
	text := func(min, max int) string {
		var sb strings.Builder
		size := min + rng.IntN(max-min+1)
		for sb.Len() < size {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
		}
		return sb.String()
	}
	session := "6170607e-7232-407c-82c3-7fc983d60064"
	uuid := func() string {
		return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<16), rng.IntN(1<<16), rng.Uint64()&(1<<48-1))
	}
	streamEvent := func() string {
		var ev string
		switch r := rng.IntN(100); {
		case r < 70:
			ev = fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":"%s"}}`, rng.IntN(3), text(3, 60))
		case r < 80:
			ev = fmt.Sprintf(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\": \"%s"}}`, text(2, 20))
		case r < 88:
			ev = fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"%s"}}`, text(10, 120))
		case r < 92:
			ev = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
		case r < 96:
			ev = fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, rng.IntN(3))
		case r < 98:
			ev = `{"type":"message_start","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01Rws28Xg2tBY3A5fNdrk6Mf","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":2456,"cache_read_input_tokens":12850,"output_tokens":1}}}`
		default:
			ev = fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":%d}}`, rng.IntN(2000))
		}
		return fmt.Sprintf(`{"type":"stream_event","event":%s,"session_id":"%s","parent_tool_use_id":null,"uuid":"%s"}`, ev, session, uuid())
	}
	bigResult := func(line []byte) []byte {
		var v map[string]stdjson.RawMessage
		if stdjson.Unmarshal(line, &v) != nil {
			return line
		}
		body := text(4<<10, 48<<10)
		v["tool_use_result"] = stdjson.RawMessage(`{"stdout":"` + body + `","stderr":"","interrupted":false,"isImage":false}`)
		out, err := stdjson.Marshal(v)
		if err != nil {
			panic(err)
		}
		return out
	}
	var buf bytes.Buffer
	pick := func(t string) []byte { ls := byType[t]; return ls[rng.IntN(len(ls))] }
	buf.Write(pick("system"))
	buf.WriteByte('\n')
	for i := 1; i < n-1; i++ {
		switch r := rng.IntN(100); {
		case r < 80:
			buf.WriteString(streamEvent())
		case r < 88:
			buf.Write(pick("assistant"))
		case r < 98:
			l := pick("user")
			if rng.IntN(12) == 0 {
				l = bigResult(l)
			}
			buf.Write(l)
		case r < 99:
			buf.Write(pick("system"))
		default:
			buf.Write(pick("result"))
		}
		buf.WriteByte('\n')
	}
	buf.Write(pick("result"))
	buf.WriteByte('\n')
	return buf.Bytes(), n
}

// chunkReader returns at most size bytes per Read, like a pipe or a TLS
// record stream.
type chunkReader struct {
	data []byte
	size int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.size)], c.data)
	c.data = c.data[n:]
	return n, nil
}

const readSize = 16 << 10

// Event is a typed union of Claude Code stream-json lines, the decode
// target of every JSON benchmark.
type Event struct {
	Type            string             `json:"type"`
	Subtype         string             `json:"subtype"`
	SessionID       string             `json:"session_id"`
	UUID            string             `json:"uuid"`
	ParentToolUseID *string            `json:"parent_tool_use_id"`
	Model           string             `json:"model"`
	Tools           []string           `json:"tools"`
	Message         *Message           `json:"message"`
	Event           *StreamEvent       `json:"event"`
	Result          string             `json:"result"`
	IsError         bool               `json:"is_error"`
	NumTurns        int                `json:"num_turns"`
	DurationMS      int64              `json:"duration_ms"`
	TotalCostUSD    float64            `json:"total_cost_usd"`
	Usage           *Usage             `json:"usage"`
	ToolUseResult   stdjson.RawMessage `json:"tool_use_result"`
}

type Message struct {
	ID         string    `json:"id"`
	Type       string    `json:"type"`
	Role       string    `json:"role"`
	Model      string    `json:"model"`
	Content    []Content `json:"content"`
	StopReason *string   `json:"stop_reason"`
	Usage      *Usage    `json:"usage"`
}

type Content struct {
	Type      string             `json:"type"`
	Text      string             `json:"text"`
	Thinking  string             `json:"thinking"`
	ID        string             `json:"id"`
	Name      string             `json:"name"`
	Input     stdjson.RawMessage `json:"input"`
	ToolUseID string             `json:"tool_use_id"`
	Content   stdjson.RawMessage `json:"content"`
	IsError   bool               `json:"is_error"`
}

type StreamEvent struct {
	Type         string   `json:"type"`
	Index        int      `json:"index"`
	Delta        *Delta   `json:"delta"`
	ContentBlock *Content `json:"content_block"`
	Message      *Message `json:"message"`
	Usage        *Usage   `json:"usage"`
}

type Delta struct {
	Type        string  `json:"type"`
	Text        string  `json:"text"`
	PartialJSON string  `json:"partial_json"`
	Thinking    string  `json:"thinking"`
	StopReason  *string `json:"stop_reason"`
}

type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// digest folds the decoded fields into a comparable summary, so that the
// agreement test can show every decoder read the same values.
type digest struct {
	Lines, Messages, Deltas, ToolResults int
	TextBytes, RawBytes                  int
	Tokens                               int64
}

func (d *digest) add(e *Event) {
	d.Lines++
	if e.Message != nil {
		d.Messages++
		for _, c := range e.Message.Content {
			d.TextBytes += len(c.Text) + len(c.Thinking)
			d.RawBytes += len(c.Input) + len(c.Content)
		}
		if e.Message.Usage != nil {
			d.Tokens += e.Message.Usage.OutputTokens
		}
	}
	if e.Event != nil && e.Event.Delta != nil {
		d.Deltas++
		d.TextBytes += len(e.Event.Delta.Text) + len(e.Event.Delta.Thinking) + len(e.Event.Delta.PartialJSON)
	}
	if e.Usage != nil {
		d.Tokens += e.Usage.OutputTokens
	}
	if len(e.ToolUseResult) > 0 {
		d.ToolResults++
		d.RawBytes += len(e.ToolUseResult)
	}
}
