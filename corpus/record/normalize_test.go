package record

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/corpus/mock"
)

func TestNormalizeMachineFacts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`" - OS Version: Linux 6.18.44-fc-v782\n - Downloaded"`, `" - OS Version: <OS_VERSION>\n - Downloaded"`},
		{"OS Version: Linux 6.1.0-28-cloud-amd64\nToday", "OS Version: <OS_VERSION>\nToday"},
		{`<timezone>America/New_York</timezone>`, `<timezone><TZ></timezone>`},
		{`"status":"disabled","serverName":"buildbox-42","installationId"`, `"status":"disabled","serverName":"<HOST>","installationId"`},
		{`"userAgent":"codex_cli_rs/0.58.0 (Debian 12.0.0; x86_64) unknown (agentwire_record; 0.1.0)"`,
			`"userAgent":"codex_cli_rs/0.58.0 (<OS>; <ARCH>) unknown (agentwire_record; 0.1.0)"`},
		// The same words in an answer are not machine facts.
		{`"text":"The server name is vm; OS Version unknown"`, `"text":"The server name is vm; OS Version unknown"`},
	} {
		if got := string(Normalize([]byte(tc.in))); got != tc.want {
			t.Errorf("Normalize(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestNormalizeGeminiCLI: the volatile values Gemini CLI writes besides
// ids and RFC 3339 times.
func TestNormalizeGeminiCLI(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"available at: /x/tmp/gemini-client-error-Turn.run-sendMessageStream-2026-12-02T01-04-21-534Z.json _ApiError",
			"available at: /x/tmp/gemini-client-error-Turn.run-sendMessageStream-<TIME>.json _ApiError"},
		{`"tool_id":"read_file__read_file_1796173699663_0","status"`, `"tool_id":"read_file__read_file_<MS>_0","status"`},
		{`"id":"run_shell_command_1796175716228_0","name"`, `"id":"run_shell_command_<MS>_0","name"`},
		{`Output: hello from shell\nProcess Group PGID: 10848\n`, `Output: hello from shell\nProcess Group PGID: <PID>\n`},
		{"Ripgrep is not available.\n[STARTUP] Cannot measure phase 'cleanup_ops': start mark 'startup:cleanup_ops:start' not found (likely cleared by reset).\nError when talking", "Ripgrep is not available.\nError when talking"},
		{"      localPort: 55746,\n      remoteAddress: '127.0.0.1',\n      remotePort: 36489,", "      localPort: <PORT>,\n      remoteAddress: '127.0.0.1',\n      remotePort: <PORT>,"},
		{"      bytesWritten: 31827,\n      bytesRead: 750\n", "      bytesWritten: <N>,\n      bytesRead: <N>\n"},
		// A number in an answer is not an id.
		{`"content":"read_file read 1796173699663 bytes"`, `"content":"read_file read 1796173699663 bytes"`},
	} {
		if got := string(Normalize([]byte(tc.in))); got != tc.want {
			t.Errorf("Normalize(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestNormalizeACPVolatile: the volatile values of the other ACP agents.
func TestNormalizeACPVolatile(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// opencode's session and message ids.
		{`"sessionId":"ses_dcbb9486fffeASOkWow9zHLCaY","messageId":"msg_23446bcf4001csSwMv1g30BKfJ"`, `"sessionId":"ses_<ID>","messageId":"msg_<ID>"`},
		// Qwen Code's process group, Copilot CLI's context-window count.
		{`Signal: (none)\nProcess Group PGID: 4461"`, `Signal: (none)\nProcess Group PGID: <PID>"`},
		{`"update":{"sessionUpdate":"usage_update","used":8801,"size":64000}`, `"update":{"sessionUpdate":"usage_update","used":0,"size":64000}`},
		// A number in an answer is left alone.
		{`"text":"call 1796175183978 now"`, `"text":"call 1796175183978 now"`},
	} {
		if got := string(Normalize([]byte(tc.in))); got != tc.want {
			t.Errorf("Normalize(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestNormalizeIdempotent runs Normalize twice over committed recordings of
// every file kind.
func TestNormalizeIdempotent(t *testing.T) {
	for _, dir := range []string{"../appserver/codex@0.169.0/tool-success", "../claude/claude-code@2.1.328/tool-success", "../codex/codex@0.169.0/big-output",
		"../gemini-cli/gemini-cli@0.61.0/tool-success", "../gemini-cli/gemini-cli@0.61.0/disconnect"} {
		for _, f := range recorderFiles {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			once := Normalize(b)
			if twice := Normalize(once); !bytes.Equal(once, twice) {
				t.Errorf("%s/%s: Normalize is not idempotent", dir, f)
			}
		}
	}
}

// machine is what differs between two machines recording the same
// scenario.
type machine struct {
	scratch, osVersion, date, tz, wall, session, host, uname string
	pid                                                      int
}

var (
	machineA = machine{scratch: DefaultScratch, osVersion: "Linux 6.18.44-fc-v782", date: "2026-11-30", tz: "Etc/UTC",
		wall: "0.0021", session: "2225c5ba-fc8e-47ff-99cd-9b25ff5d6692", host: "vm", uname: "Debian 12.0.0; x86_64", pid: 7533}
	machineB = machine{scratch: "/home/alice/agentwire-scratch", osVersion: "Linux 6.1.0-28-cloud-amd64", date: "2027-01-15",
		tz: "America/New_York", wall: "12.5", session: "01a22a70-34fd-7340-85e6-9ab9a625b702", host: "buildbox-42",
		uname: "Ubuntu 24.4.0; aarch64", pid: 1048571}
)

// requestBodies are a Claude Code 2.1 and a Codex request as the mock
// receives them on machine m, with the tool call command cmd: the machine's
// facts sit before the point where their long strings are cut.
func (m machine) requestBodies(t *testing.T, cmd string) (claude, codex []byte) {
	t.Helper()
	filler := strings.Repeat("Interpreters load code from the script's directory. ", 40)
	env := "# Environment\n - Primary working directory: " + m.scratch + "/claude/claude-code@2.1.328/tool-success/work\n" +
		" - Is a git repository: false\n - Platform: linux\n - Shell: bash\n - OS Version: " + m.osVersion + "\n" +
		" - Today's date is " + m.date + ".\n" + filler
	claude, err := json.Marshal(map[string]any{
		"model": "claude-opus-5-5", "tools": []any{map[string]any{"name": "Bash"}},
		"metadata": map[string]any{"user_id": `{"session_id":"` + m.session + `"}`},
		"messages": []any{
			map[string]any{"role": "user", "content": "Run echo hello from bash."},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_01",
				"name": "Bash", "input": map[string]any{"command": cmd}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_01",
				"content": "hello from bash"}}},
			map[string]any{"role": "system", "content": []any{map[string]any{"type": "text", "text": env}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	work := m.scratch + "/codex/codex@0.169.0/big-output/work"
	codex, err = json.Marshal(map[string]any{
		"model": "gpt-6.1-sol", "prompt_cache_key": m.session,
		"input": []any{
			map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text",
				"text": "<environment_context>\n  <cwd>" + work + "</cwd>\n  <current_date>" + m.date +
					"</current_date>\n  <timezone>" + m.tz + "</timezone>\n</environment_context>"}}},
			map[string]any{"type": "function_call", "name": "exec_command", "call_id": "call_1",
				"arguments": `{"cmd":"` + cmd + `","workdir":"` + work + `"}`},
			map[string]any{"type": "function_call_output", "call_id": "call_1",
				"output": "Chunk ID: " + m.session[:6] + "\nWall time: " + m.wall + " seconds\nProcess exited with code 0\nOutput:\n" + filler},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return claude, codex
}

// recordOn records one run of claude/…/tool-success and of
// appserver/…/tool-success on machine m into the corpus root root, the way
// the recorder writes them (writeRun): the requests from requestBodies, the
// CLI's streams and meta.json from the committed recordings (made on
// machineA) with m's facts put in place of machineA's.
func (m machine) recordOn(t *testing.T, root, cmd string) {
	t.Helper()
	cb, xb := m.requestBodies(t, cmd)
	for _, c := range []struct {
		api       mock.API
		dst, from string
		body      []byte
	}{
		{mock.Messages, "claude/claude-code@2.1.328/tool-success", "../claude/claude-code@2.1.328/tool-success", cb},
		{mock.Responses, "appserver/codex@0.169.0/tool-success", "../appserver/codex@0.169.0/tool-success", xb},
	} {
		read := func(f string) []byte {
			b, err := os.ReadFile(filepath.Join(c.from, f))
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return []byte(m.rewrite(string(b)))
		}
		var meta Meta
		if err := json.Unmarshal(read("meta.json"), &meta); err != nil {
			t.Fatal(err)
		}
		stdin := read("stdin")
		ro := runOut{meta: meta, res: &runResult{Stdout: read("stdout"), Stderr: read("stderr"), Stdin: stdin, StdinUsed: len(stdin) > 0},
			requests: []mock.Request{{Seq: 1, Method: "POST", Path: "/v1/x", Body: c.body}}}
		if err := writeRun(filepath.Join(root, c.dst), c.api, m.scratch, "", ro); err != nil {
			t.Fatal(err)
		}
	}
}

var (
	recordedDate   = regexp.MustCompile(`2026-11-30`)
	recordedPid    = regexp.MustCompile(`("processId":"|"pid":|cc-socks/)\d+`)
	recordedHost   = regexp.MustCompile(`("serverName":")vm"`)
	recordedUname  = regexp.MustCompile(`\(Debian 12\.0\.0; x86_64\)`)
	recordedAt     = regexp.MustCompile(`("recorded": ")[^"]*"`)
	recordedDur    = regexp.MustCompile(`("duration_ms": )\d+`)
	bubblewrapLine = regexp.MustCompile(`(?m)^.*bubblewrap.*\n`)
)

// rewrite puts m's facts into a committed recording (made on machineA).
func (m machine) rewrite(s string) string {
	if m == machineA {
		return s
	}
	slug := strings.NewReplacer("/", "-", ".", "-", "@", "-")
	s = strings.NewReplacer(DefaultScratch, m.scratch, slug.Replace(DefaultScratch), slug.Replace(m.scratch)).Replace(s)
	s = recordedDate.ReplaceAllString(s, m.date)
	s = recordedPid.ReplaceAllString(s, "${1}"+strconv.Itoa(m.pid))
	s = recordedHost.ReplaceAllString(s, `${1}`+m.host+`"`)
	s = recordedUname.ReplaceAllString(s, "("+m.uname+")")
	s = recordedAt.ReplaceAllString(s, `${1}`+m.date+`T23:59:59Z"`)
	s = recordedDur.ReplaceAllString(s, "${1}123456")
	// Machine B has bubblewrap installed: codex does not warn.
	return bubblewrapLine.ReplaceAllString(s, "")
}

// TestVerifyAnotherMachine records the same runs on two machines that
// differ in OS version, host name, user (home), scratch root, date, time
// zone, process ids and durations: the recorder writes the same
// requests.jsonl, and Verify finds no drift; then it finds the drift when a
// protocol fact changes.
func TestVerifyAnotherMachine(t *testing.T) {
	const cmd = "echo hello from bash"
	want, got := t.TempDir(), t.TempDir()
	machineA.recordOn(t, want, cmd)
	machineB.recordOn(t, got, cmd)

	for _, f := range []string{"claude/claude-code@2.1.328/tool-success/requests.jsonl", "appserver/codex@0.169.0/tool-success/requests.jsonl"} {
		a, _ := os.ReadFile(filepath.Join(want, f))
		b, _ := os.ReadFile(filepath.Join(got, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the machines:\n%s%s", f, a, b)
		}
		if !bytes.Contains(a, []byte("bytes elided]")) {
			t.Errorf("%s: the long strings were not cut: %s", f, a)
		}
	}
	if a, _ := os.ReadFile(filepath.Join(want, "claude/claude-code@2.1.328/tool-success/requests.jsonl")); !bytes.Contains(a, []byte("OS Version: <OS_VERSION>")) {
		t.Errorf("the OS version is not normalised in requests.jsonl: %s", a)
	}
	if s, _ := os.ReadFile(filepath.Join(got, "appserver/codex@0.169.0/tool-success/stdout")); !bytes.Contains(s, []byte(`"serverName":"buildbox-42"`)) ||
		bytes.Contains(s, []byte(machineB.scratch)) || !bytes.Contains(s, []byte(DefaultScratch+"/appserver/")) || bytes.Contains(s, []byte("2026-11-30")) {
		t.Fatalf("machine B's stdout is not the CLI's with the scratch root rewritten:\n%.600s", s)
	}
	d, err := Verify(want, got, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d != "" {
		t.Fatalf("drift between two machines:\n%s", d)
	}

	// Protocol facts: each change must show as drift.
	for _, tc := range []struct {
		what, file, old, new string
	}{
		{"tool-call argument (stdout)", "appserver/codex@0.169.0/tool-success/stdout", `'echo hello from codex'`, `'echo bye from codex'`},
		{"event type", "appserver/codex@0.169.0/tool-success/stdout", `{"method":"item/completed"`, `{"method":"item/finished"`},
		{"exit code", "appserver/codex@0.169.0/tool-success/meta.json", `"exit_code": 0`, `"exit_code": 1`},
		{"stderr line", "appserver/codex@0.169.0/tool-success/stderr", "", "thread panicked\n"},
		{"stream-json event type", "claude/claude-code@2.1.328/tool-success/stdout", `{"type":"assistant"`, `{"type":"assistant_message"`},
	} {
		t.Run(tc.what, func(t *testing.T) {
			p := filepath.Join(got, tc.file)
			orig, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(p, orig, 0o644)
			changed := strings.Replace(string(orig), tc.old, tc.new, 1)
			if tc.old == "" {
				changed = string(orig) + tc.new
			}
			if changed == string(orig) {
				t.Fatalf("%q not in %s", tc.old, tc.file)
			}
			if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := Verify(want, got, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(d, "+++ recorded/"+tc.file) || !strings.Contains(d, strings.TrimSpace(tc.new)) {
				t.Errorf("no drift in %s:\n%s", tc.file, d)
			}
		})
	}

	// A tool-call argument in the model requests: the recorder writes it
	// into requests.jsonl, Verify reports it.
	other := t.TempDir()
	machineB.recordOn(t, other, "echo bye from bash")
	d, err = Verify(want, other, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"claude/claude-code@2.1.328/tool-success/requests.jsonl", "appserver/codex@0.169.0/tool-success/requests.jsonl"} {
		if !strings.Contains(d, "+++ recorded/"+f) || !strings.Contains(d, "echo bye from bash") {
			t.Errorf("the changed tool-call argument in %s is not reported:\n%s", f, d)
		}
	}
}

// TestNormalizeDateInWords: the date Gemini CLI and Qwen Code write into
// every request ("Today's date is Wednesday, December 2, 2026") becomes
// <DATE> whatever the day, so a request's normalised length and its cut
// do not change with the date.
func TestNormalizeDateInWords(t *testing.T) {
	for _, in := range []string{"Wednesday, December 2, 2026", "Thursday, January 15, 2027", "September 30, 2026"} {
		got := string(Normalize([]byte("Today's date is " + in + " (formatted according to the user's locale).")))
		if want := "Today's date is <DATE> (formatted according to the user's locale)."; got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
