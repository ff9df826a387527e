package geminicli

import (
	"io"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/internal/parsertest"
)

// The shared harness (internal/parsertest).
type result = parsertest.Result

var (
	chunkings = parsertest.Chunkings
	kinds     = parsertest.Kinds
	itemKinds = parsertest.ItemKinds
	lines     = parsertest.Lines
)

// run parses stdout with Parse through a RecordingSink and returns the
// result and the validators' findings.
func run(stdout string, opts Options, out Outcome, mk func(string) io.Reader) (result, adaptertest.Violations) {
	if mk == nil {
		mk = func(s string) io.Reader { return strings.NewReader(s) }
	}
	sink := &adaptertest.RecordingSink{}
	resp, err := Parse(mk(stdout), strings.NewReader(""), sink, opts, out)
	v := sink.Check(opts.Streaming, Capability, resp, err, Codec)
	r := result{Capability: Capability, Payloads: sink.Payloads, Items: sink.Items(), Response: resp}
	if err != nil {
		r.Err = err.Error()
	}
	return r, v
}

// mustRun is run that fails the test on any violation.
func mustRun(t *testing.T, stdout string, opts Options, out Outcome) result {
	t.Helper()
	r, v := run(stdout, opts, out, nil)
	if len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	return r
}

// Lines as Gemini CLI 0.61.0 writes them (corpus/gemini-cli).
const (
	lInit    = `{"type":"init","timestamp":"2026-12-02T01:09:20.408Z","session_id":"s-1","model":"gemini-2.5-flash"}`
	lUser    = `{"type":"message","timestamp":"2026-12-02T01:09:20.421Z","role":"user","content":"Run it."}`
	lDelta1  = `{"type":"message","timestamp":"2026-12-02T01:09:20.913Z","role":"assistant","content":"I'll run ","delta":true}`
	lDelta2  = `{"type":"message","timestamp":"2026-12-02T01:09:20.933Z","role":"assistant","content":"it.","delta":true}`
	lToolUse = `{"type":"tool_use","timestamp":"2026-12-02T01:09:21.787Z","tool_name":"run_shell_command","tool_id":"t-1","parameters":{"command":"echo hi"}}`
	lToolOK  = `{"type":"tool_result","timestamp":"2026-12-02T01:09:25.646Z","tool_id":"t-1","status":"success","output":"hi"}`
	lToolErr = `{"type":"tool_result","timestamp":"2026-12-02T01:08:21.452Z","tool_id":"t-1","status":"error","output":"File not found.","error":{"type":"file_not_found","message":"File not found: /w/missing.txt"}}`
	lDelta3  = `{"type":"message","timestamp":"2026-12-02T01:09:26.501Z","role":"assistant","content":"It printed hi.","delta":true}`
	lWarn    = `{"type":"error","timestamp":"2026-12-02T01:04:25.324Z","severity":"error","message":"The model response was blocked due to safety settings."}`
	lResult  = `{"type":"result","timestamp":"2026-12-02T01:09:26.641Z","status":"success","stats":{"total_tokens":530,"input_tokens":460,"output_tokens":42,"cached":60,"input":400,"duration_ms":6263,"tool_calls":1,"models":{"gemini-2.5-flash":{"total_tokens":530,"input_tokens":460,"output_tokens":42,"cached":60,"input":400}}}}`
	lResErr  = `{"type":"result","timestamp":"2026-12-02T01:04:25.329Z","status":"error","stats":{"total_tokens":110,"input_tokens":100,"output_tokens":10,"cached":0,"input":100,"duration_ms":815,"tool_calls":0,"models":{}}}`
	lAPIErr  = `{"type":"result","timestamp":"2026-12-02T01:04:21.745Z","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":500}}]"},"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":0,"tool_calls":0,"models":{}}}`
)
