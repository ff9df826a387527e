package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/agentwire/agentwire/internal/chunk"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/google/go-cmp/cmp"
)

// fuzzCase builds a case from fuzz inputs: flags bit 0 partial messages,
// bit 1 control protocol, bit 2 streaming, bit 3 a non-zero exit, bit 4
// cancelled; stdin answers nothing.
func fuzzCase(stream []byte, flags byte) tcase {
	return tcase{name: "fuzz", stdout: stream,
		opts: Options{PartialMessages: flags&1 != 0, ControlProtocol: flags&2 != 0, Streaming: flags&4 != 0,
			SessionData: map[string]string{driver.ParamCWD: "/w"}},
		out: Outcome{ExitCode: int(flags>>3) & 1, Cancelled: flags&16 != 0}}
}

// FuzzParser feeds whole multi-line streams. Oracles: no panic; zero
// validator violations (lifecycle grammar, transcript mirror, response
// rules); the same result under a random chunking as whole; and no valid
// checkpoint unless earned: a clean outcome, a root success result whose
// session_id is the resume id, and no malformed line.
func FuzzParser(f *testing.F) {
	for _, c := range allCases(f) {
		if s := slim(c.stdout); len(s) <= 16<<10 {
			f.Add(s, seedFlags(c), uint64(1))
		}
	}
	for _, s := range syntheticSeeds() {
		f.Add(s, byte(7), uint64(2))
	}
	f.Fuzz(func(t *testing.T, stream []byte, flags byte, seed uint64) {
		c := fuzzCase(stream, flags)
		whole := replay(t, c, chunkers[0])
		check(t, c, whole)
		rnd := replay(t, c, chunk.Random(seed))
		if a, b := whole.comparable(), rnd.comparable(); !reflect.DeepEqual(a, b) {
			t.Fatalf("random chunking differs (-whole +random):\n%s", cmp.Diff(a, b, cmpOpts))
		}
		earned(t, c, whole)
	})
}

// earned checks a Valid checkpoint against the stream itself.
func earned(t testing.TB, c tcase, r run) {
	t.Helper()
	cp := r.Response.Checkpoint
	if cp == nil || !cp.Valid {
		return
	}
	if !c.out.Clean() || r.Response.Failure != nil || r.err != nil {
		t.Fatalf("valid checkpoint with outcome %+v, failure %v, err %v", c.out, r.Response.Failure, r.err)
	}
	term := r.Response.RawStreams.Terminal
	if term == nil {
		t.Fatal("valid checkpoint without a terminal")
	}
	var res struct {
		Type      string `json:"type"`
		Subtype   string `json:"subtype"`
		IsError   *bool  `json:"is_error"`
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(term.JSON, &res); err != nil || res.Type != "result" || res.Subtype != "success" ||
		res.IsError == nil || *res.IsError || res.SessionID == "" || res.SessionID != cp.State.ResumeID {
		t.Fatalf("valid checkpoint %q from terminal %s", cp.State.ResumeID, term.JSON)
	}
	if !bytes.Contains(c.stdout, term.JSON) {
		t.Fatal("terminal JSON is not bytes of the stream")
	}
	for _, it := range r.Items {
		if it.Kind == driver.TranscriptStdout || it.Subtype == "malformed" {
			t.Fatalf("valid checkpoint despite a malformed line: %+v", it)
		}
	}
}

// TestWriteFuzzSeeds writes the seed corpus in Go's format under
// testdata/fuzz/FuzzParser (with -update), so plain go test replays it.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzParser")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "seed-*"))
	for _, f := range old {
		os.Remove(f)
	}
	for _, c := range allCases(t) {
		in := slim(c.stdout)
		if len(in) > 16<<10 {
			continue
		}
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nbyte(%s)\nuint64(1)\n", strconv.Quote(string(in)), strconv.QuoteRune(rune(seedFlags(c))))
		name := "seed-" + strings.NewReplacer("/", "_", "@", "_").Replace(c.name)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// syntheticSeeds are streams for paths the recordings do not reach:
// interleaved subagents with partial messages, control requests and
// cancellations, a retried attempt, unknown types and blocks.
func syntheticSeeds() [][]byte {
	return [][]byte{
		stream(initL(),
			asstL("", "r1", toolB("T1", "Task", `{"prompt":"a"}`)),
			evL("T1", `{"type":"message_start","message":{"id":"sm"}}`),
			evL("T1", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"s1","name":"Grep","input":{}}}`),
			evL("T1", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"p\\":1}"}}`),
			asstL("T1", "sm", toolB("s1", "Grep", `{"p":1}`)),
			evL("T1", `{"type":"content_block_stop","index":0}`),
			userResultL("T1", "s1", "r", true),
			userResultL("", "T1", "done", false),
			okL("done")),
		stream(initL(), canUseL("r1", "Bash", `{"command":"ls"}`), `{"type":"control_cancel_request","request_id":"r1"}`,
			canUseL("q", "AskUserQuestion", `{"questions":[{"question":"Q?","options":[{"label":"a"}]}]}`),
			`{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{}}}`, okL("x")),
		stream(initL(),
			evL("", `{"type":"message_start","message":{"id":"a1"}}`),
			evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x"}}`),
			evL("", `{"type":"message_start","message":{"id":"a2"}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"y"}}`),
			evL("", `{"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{}}}`),
			evL("", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			asstL("", "a2", `{"type":"redacted_thinking","data":"d"}`),
			`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected"},"session_id":"`+sid+`"}`,
			`{"type":"hologram","session_id":"`+sid+`"}`,
			resultL("error_max_turns", true, "")),
	}
}

func seedFlags(c tcase) byte {
	var flags byte = 4
	if c.opts.PartialMessages {
		flags |= 1
	}
	if c.opts.ControlProtocol {
		flags |= 2
	}
	return flags
}

// slim shrinks a recorded stream into a fuzz seed: the init line and the
// initialize answer (several KB of tool and command lists each) keep only
// their small members, so that mutations land on the protocol structure.
func slim(in []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(in, []byte("\n")) {
		var m map[string]json.RawMessage
		if json.Unmarshal(line, &m) != nil {
			out.Write(line)
			continue
		}
		big := false
		for k, v := range m {
			if len(v) > 512 && (k == "tools" || k == "slash_commands" || k == "skills" || k == "agents" || k == "response" || k == "plugins" || k == "terminal_slash_commands" || k == "mcp_servers") {
				delete(m, k)
				big = true
			}
		}
		if !big {
			out.Write(line)
			continue
		}
		b, _ := json.Marshal(m)
		out.Write(b)
		if bytes.HasSuffix(line, []byte("\n")) {
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}
