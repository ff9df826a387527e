package record

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/corpus/mock"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"session_id":"2225c5ba-fc8e-47ff-99cd-9b25ff5d6692"}`, `{"session_id":"<UUID>"}`},
		{`"timestamp":"2026-11-30T03:06:47.454Z"`, `"timestamp":"<TIME>"`},
		{`rollout-2026-11-30T03-21-31-x.jsonl`, `rollout-<TIME>-x.jsonl`},
		{`sessions/2026/11/30/`, `sessions/<DATE>/`},
		{`"duration_ms":408,"ttft_ms":387,"emittedAtMs":1796008752719`, `"duration_ms":0,"ttft_ms":0,"emittedAtMs":0`},
		{`"createdAt":1796008755,"input_tokens":120`, `"createdAt":0,"input_tokens":120`},
		{`Wall time: 0.0123 seconds`, `Wall time: 0 seconds`},
		{`"duration":{"secs":0,"nanos":48211}`, `"duration":{"secs":0,"nanos":0}`},
		{`Chunk ID: e9ac78`, `Chunk ID: <ID>`},
		{`http://127.0.0.1:41234/v1`, `http://127.0.0.1:<PORT>/v1`},
		{`/tmp/cc-socks/8860.sock`, `/tmp/cc-socks/<PID>.sock`},
		{`"text":"That printed 8000 lines."`, `"text":"That printed 8000 lines."`},
	} {
		if got := string(Normalize([]byte(tc.in))); got != tc.want {
			t.Errorf("Normalize(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestVerify(t *testing.T) {
	want, got := t.TempDir(), t.TempDir()
	writeFiles(t, want, map[string]string{
		"codex/codex@1/text/stdout":      "{\"thread_id\":\"01a22a6f-2525-7f52-8c56-da20a9c4a6f7\"}\n{\"text\":\"hi\"}\n",
		"codex/codex@1/text/meta.json":   "{\n  \"exit_code\": 0,\n  \"recorded\": \"x\",\n  \"duration_ms\": 5\n}\n",
		"codex/codex@1/other/stdout":     "not re-recorded, not selected\n",
		"codex/codex@1/text/golden.json": "not a recording: ignored\n",
	})
	writeFiles(t, got, map[string]string{
		"codex/codex@1/text/stdout":    "{\"thread_id\":\"01a22a70-34fd-7340-85e6-9ab9a625b702\"}\n{\"text\":\"hi\"}\n",
		"codex/codex@1/text/meta.json": "{\n  \"exit_code\": 0,\n  \"recorded\": \"y\",\n  \"duration_ms\": 7\n}\n",
	})
	d, err := Verify(want, got, nil)
	if err != nil || d != "" {
		t.Fatalf("same recording after normalisation: drift %q, err %v", d, err)
	}
	writeFiles(t, got, map[string]string{
		"codex/codex@1/text/stdout": "{\"thread_id\":\"01a22a70-34fd-7340-85e6-9ab9a625b702\"}\n{\"text\":\"bye\"}\n",
		"codex/codex@1/text/stderr": "new\n",
	})
	d, err = Verify(want, got, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`-{"text":"hi"}`, `+{"text":"bye"}`, "new file codex/codex@1/text/stderr"} {
		if !strings.Contains(d, w) {
			t.Errorf("drift lacks %q:\n%s", w, d)
		}
	}
	if strings.Contains(d, "other") {
		t.Errorf("drift mentions a case that was not selected:\n%s", d)
	}
}

func TestDropOutputDeltas(t *testing.T) {
	a := "{\"method\":\"item/started\"}\n" +
		"{\"method\":\"item/commandExecution/outputDelta\",\"params\":{\"itemId\":\"c1\",\"delta\":\"ab\"}}\n" +
		"{\"method\":\"codex/event/exec_command_output_delta\",\"params\":{\"msg\":{\"call_id\":\"c1\",\"stream\":\"stdout\",\"chunk\":\"YWI=\"}}}\n" +
		"{\"method\":\"item/commandExecution/outputDelta\",\"params\":{\"itemId\":\"c1\",\"delta\":\"c\\n\"}}\n" +
		"{\"method\":\"codex/event/exec_command_output_delta\",\"params\":{\"msg\":{\"call_id\":\"c1\",\"stream\":\"stdout\",\"chunk\":\"Ywo=\"}}}\n" +
		"{\"method\":\"item/completed\"}\n"
	b := "{\"method\":\"item/started\"}\n" +
		"{\"method\":\"item/commandExecution/outputDelta\",\"params\":{\"itemId\":\"c1\",\"delta\":\"abc\\n\"}}\n" +
		"{\"method\":\"codex/event/exec_command_output_delta\",\"params\":{\"msg\":{\"call_id\":\"c1\",\"stream\":\"stdout\",\"chunk\":\"YWJjCg==\"}}}\n" +
		"{\"method\":\"item/completed\"}\n"
	none := "{\"method\":\"item/started\"}\n{\"method\":\"item/completed\"}\n"
	ma, mb := string(dropOutputDeltas([]byte(a))), string(dropOutputDeltas([]byte(b)))
	if ma != none || mb != none {
		t.Errorf("output deltas not dropped:\n%s\n%s", ma, mb)
	}
	if got := string(dropOutputDeltas([]byte(none))); got != none {
		t.Errorf("capture without deltas changed: %s", got)
	}
}

func TestClearRecordingKeepsGoldens(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"stdout": "x", "meta.json": "{}", "golden.json": "keep",
		"run-1/stdout": "x", "run-1/golden.json": "keep", "run-2/stderr": "x",
	})
	if err := clearRecording(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"stdout": false, "meta.json": false, "golden.json": true,
		"run-1/stdout": false, "run-1/golden.json": true, "run-2": false} {
		_, err := os.Stat(filepath.Join(dir, name))
		if (err == nil) != want {
			t.Errorf("%s present = %v, want %v", name, err == nil, want)
		}
	}
}

func TestVerifyClaudeTasks(t *testing.T) {
	want, got := t.TempDir(), t.TempDir()
	writeFiles(t, want, map[string]string{
		"claude/claude-code@1/big/stdout": `{"cwd":"/var/tmp/agentwire-record/claude/x"}` + "\n" +
			`{"type":"system","subtype":"task_started","task_id":"bb6z8i3pa"}` + "\n" +
			`{"type":"user","content":"saved to tool-results/bb6z8i3pa.txt"}` + "\n",
	})
	writeFiles(t, got, map[string]string{
		"claude/claude-code@1/big/stdout": `{"cwd":"/var/tmp/agentwire-record/claude/x"}` + "\n" +
			`{"type":"user","content":"saved to tool-results/bfl0qn3k6.txt"}` + "\n",
	})
	d, err := Verify(want, got, nil)
	if err != nil || d != "" {
		t.Fatalf("drift %q, err %v", d, err)
	}
}

// TestWriteRunScratch records under another scratch root than
// DefaultScratch: every file is written as if recorded under the default.
func TestWriteRunScratch(t *testing.T) {
	dir := t.TempDir()
	const other = "/var/tmp" // a prefix of DefaultScratch: rewritten once
	ro := runOut{res: &runResult{
		Stdout: []byte(`{"cwd":"/var/tmp/claude/x/work","slug":"-var-tmp-claude-x-work"}` + "\n"),
		Stderr: []byte("log /var/tmp/claude/x/tmp\n"), Stdin: []byte(`{"cwd":"/var/tmp/claude/x/work"}` + "\n"), StdinUsed: true},
		requests: []mock.Request{{Seq: 1, Body: []byte(`{"messages":[{"role":"user","content":"in /var/tmp/claude/x/work"}]}`)}}}
	if err := writeRun(dir, mock.Messages, other, "", ro); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{
		"stdout":         `{"cwd":"/var/tmp/agentwire-record/claude/x/work","slug":"-var-tmp-agentwire-record-claude-x-work"}` + "\n",
		"stderr":         "log /var/tmp/agentwire-record/claude/x/tmp\n",
		"stdin":          `{"cwd":"/var/tmp/agentwire-record/claude/x/work"}` + "\n",
		"requests.jsonl": `{"seq":1,"method":"","path":"","reply":0,"keys":["messages"],"conversation":[{"content":"in /var/tmp/agentwire-record/claude/x/work","role":"user"}],"bytes":85}` + "\n",
	} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != want {
			t.Errorf("%s = %s, want %s", f, b, want)
		}
	}
}

func TestCanonicalModelUsageAndTruncation(t *testing.T) {
	a := `{"type":"result","modelUsage":{"haiku":{"inputTokens":0,"outputTokens":0},"sonnet":{"inputTokens":100,"outputTokens":10}},"total_cost_usd":0.5}` + "\n"
	b := `{"total_cost_usd":0.5,"modelUsage":{"sonnet":{"inputTokens":100,"outputTokens":10}},"type":"result"}` + "\n"
	if ca, cb := canonicalModelUsage([]byte(a)), canonicalModelUsage([]byte(b)); string(ca) != string(cb) {
		t.Errorf("not canonical:\n%s%s", ca, cb)
	}
	c := `{"type":"result","modelUsage":{"sonnet":{"inputTokens":200,"outputTokens":10}},"total_cost_usd":0.5}` + "\n"
	if string(canonicalModelUsage([]byte(a))) == string(canonicalModelUsage([]byte(c))) {
		t.Error("a real usage difference was normalised away")
	}
	x, y := dropUnterminated([]byte("l1\nabc")), dropUnterminated([]byte("l1\nabcdef"))
	if string(x) != string(y) || !strings.HasPrefix(string(x), "l1\n") {
		t.Errorf("truncated tails differ: %q %q", x, y)
	}
	if string(dropUnterminated([]byte("l1\n"))) != "l1\n" {
		t.Error("complete stdout changed")
	}
}

func TestVerifySignalledPrefix(t *testing.T) {
	want, got := t.TempDir(), t.TempDir()
	writeFiles(t, want, map[string]string{"claude/c@1/cancel/stdout": "a\nb\nresult\n", "claude/c@1/cancel/meta.json": "{}\n"})
	writeFiles(t, got, map[string]string{"claude/c@1/cancel/stdout": "a\nb\n", "claude/c@1/cancel/meta.json": "{}\n"})
	if d, _ := Verify(want, got, nil); d == "" {
		t.Error("a missing line without a signal was not reported")
	}
	sig := "{\n  \"sent_signal\": \"SIGINT\"\n}\n"
	writeFiles(t, want, map[string]string{"claude/c@1/cancel/meta.json": sig})
	writeFiles(t, got, map[string]string{"claude/c@1/cancel/meta.json": sig})
	if d, _ := Verify(want, got, nil); d != "" {
		t.Errorf("after a signal a prefix must pass:\n%s", d)
	}
	writeFiles(t, got, map[string]string{"claude/c@1/cancel/stdout": "a\nX\n"})
	if d, _ := Verify(want, got, nil); d == "" {
		t.Error("a changed line after a signal was not reported")
	}
}

func TestVerifyRaces(t *testing.T) {
	want, got := t.TempDir(), t.TempDir()
	writeFiles(t, want, map[string]string{
		"claude/c@1/big/stdout": "init\n{\"text\":\"abc",
		"claude/c@1/p/stdout":   `{"type":"stream_event","event":{"type":"message_start","message":{"id":"m","content":[],"stop_reason":null}}}` + "\n",
	})
	writeFiles(t, got, map[string]string{
		"claude/c@1/big/stdout": "init\n{\"text\":\"abcdef\"}\n{\"type\":\"result\"}\n",
		"claude/c@1/p/stdout":   `{"type":"stream_event","event":{"type":"message_start","message":{"id":"m","content":[{"type":"text","text":""}],"stop_reason":null}}}` + "\n",
	})
	if d, err := Verify(want, got, nil); err != nil || d != "" {
		t.Errorf("drift %q, err %v", d, err)
	}
}

func TestAssistantStopReasonRace(t *testing.T) {
	a := `{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"x \"stop_reason\":null"}],"stop_reason":"end_turn","stop_sequence":null}}` + "\n"
	b := `{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"x \"stop_reason\":null"}],"stop_reason":null,"stop_sequence":null}}` + "\n"
	na, nb := assistantStopReason.ReplaceAllString(a, `${1}"<stop_reason>"`), assistantStopReason.ReplaceAllString(b, `${1}"<stop_reason>"`)
	if na == a || na != nb {
		t.Errorf("stop_reason race not normalised:\n%s\n%s", na, nb)
	}
	other := `{"type":"result","stop_reason":"end_turn"}` + "\n"
	if assistantStopReason.ReplaceAllString(other, "x") != other {
		t.Errorf("only assistant lines are normalised")
	}
}

func TestVerifyAbortRateLimits(t *testing.T) {
	want, got := t.TempDir(), t.TempDir()
	limits := `{"method":"account/rateLimits/updated","params":{"rateLimits":{"limitId":"codex"}},"emittedAtMs":1}` + "\n"
	writeFiles(t, want, map[string]string{"appserver/c@1/i/stdout": "a\n" + limits + "{\"id\":3,\"result\":{}}\n", "appserver/c@1/i/meta.json": "{}\n"})
	writeFiles(t, got, map[string]string{"appserver/c@1/i/stdout": "a\n{\"id\":3,\"result\":{}}\n", "appserver/c@1/i/meta.json": "{}\n"})
	if d, _ := Verify(want, got, nil); d == "" {
		t.Error("a missing rateLimits notification in a turn that was not stopped was not reported")
	}
	intr := "{\n  \"interrupt\": true\n}\n"
	writeFiles(t, want, map[string]string{"appserver/c@1/i/meta.json": intr})
	writeFiles(t, got, map[string]string{"appserver/c@1/i/meta.json": intr})
	if d, _ := Verify(want, got, nil); d != "" {
		t.Errorf("after an interrupt the rateLimits notification may be missing:\n%s", d)
	}
}

// TestDropToolProgress: Copilot CLI's output snapshots without a status
// compare as absent, however many there were; the completing update stays.
func TestDropToolProgress(t *testing.T) {
	snap := func(text string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c","content":[{"type":"content","content":{"type":"text","text":"` + text + `"}}]}}}` + "\n"
	}
	done := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c","status":"completed","content":[]}}}` + "\n"
	a := snap("ls: ") + snap("ls: cannot access") + done
	b := snap("ls: cannot access") + done
	if ga, gb := string(dropToolProgress([]byte(a))), string(dropToolProgress([]byte(b))); ga != done || gb != done {
		t.Errorf("dropToolProgress:\n%s\n%s\nwant %s", ga, gb, done)
	}
	other := `{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk"}}}` + "\n"
	if got := string(dropToolProgress([]byte(other))); got != other {
		t.Errorf("dropToolProgress changed %s", got)
	}
}

// TestVerifyRacyNeighbours: the races CI met on 2026-12-02 compare equal,
// and what the moved lines say still counts.
func TestVerifyRacyNeighbours(t *testing.T) {
	cfg := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"config_option_update","configOptions":[]}}}` + "\n"
	info := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update"}}}` + "\n"
	if a, b := floatLines([]byte(cfg+info), floatingUpdates), floatLines([]byte(info+cfg), floatingUpdates); !bytes.Equal(a, b) {
		t.Errorf("floatLines:\n%s\n%s", a, b)
	}
	other := strings.Replace(cfg, "[]", `[{"id":"mode"}]`, 1)
	if a, b := floatLines([]byte(cfg+info), floatingUpdates), floatLines([]byte(info+other), floatingUpdates); bytes.Equal(a, b) {
		t.Error("floatLines hid a changed config_option_update")
	}
	cut := func(n, elided int) string {
		return fmt.Sprintf(`{"seq":0,"conversation":[{"text":"Output too large. Showing first 8,000 and last 32,000 characters. …[%d bytes elided]"}],"bytes":%d}`+"\n", elided, n)
	}
	if a, b := dropCutLengths([]byte(cut(91106, 39267))), dropCutLengths([]byte(cut(91108, 39269))); !bytes.Equal(a, b) {
		t.Errorf("dropCutLengths:\n%s\n%s", a, b)
	}
	plain := `{"seq":0,"conversation":[{"text":"hi"}],"bytes":10}` + "\n"
	if got := string(dropCutLengths([]byte(plain))); got != plain {
		t.Errorf("dropCutLengths changed %s", got)
	}
	if !racyStderr.MatchString("[STARTUP] Phase 'cleanup_ops' was started but never ended. Skipping metrics.\n") {
		t.Error("racyStderr misses Gemini CLI's start-up metrics line")
	}
}

// TestExactCases: the retry selects exactly the drifting cases.
func TestExactCases(t *testing.T) {
	re := exactCases([]string{"acp/copilot@1.0.102/text", "gemini-cli/gemini-cli@0.61.0/big-output"})
	for s, want := range map[string]bool{
		"acp/copilot@1.0.102/text":                true,
		"gemini-cli/gemini-cli@0.61.0/big-output": true,
		"acp/copilot@1.0.102/text2":               false,
		"acp/copilot@1x0x102/text":                false,
	} {
		if re.MatchString(s) != want {
			t.Errorf("exactCases matches %q: %v, want %v", s, !want, want)
		}
	}
}
