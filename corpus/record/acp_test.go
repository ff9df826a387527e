package record

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type nopCloser struct{ *bytes.Buffer }

func (nopCloser) Close() error { return nil }

// fakeProc is a proc whose stdin is a buffer: the lines the driver sends.
func fakeProc() (*proc, *bytes.Buffer) {
	var b bytes.Buffer
	return &proc{stdin: nopCloser{&b}, finishC: make(chan struct{})}, &b
}

// sent returns the messages written since the last call, decoded.
func sent(t *testing.T, b *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("sent %q: %v", l, err)
		}
		out = append(out, m)
	}
	b.Reset()
	return out
}

func TestACPDriverSession(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &acpDriver{prompts: []string{"first", "second"}, decisions: []string{"allow_once"}, cwd: ws}
	p, b := fakeProc()
	if err := d.start(p); err != nil {
		t.Fatal(err)
	}
	if m := sent(t, b); len(m) != 1 || m[0]["method"] != "initialize" || m[0]["jsonrpc"] != "2.0" {
		t.Fatalf("start sent %v", m)
	}
	step := func(line string) []map[string]any {
		t.Helper()
		if err := d.line(p, []byte(line)); err != nil {
			t.Fatalf("line %s: %v", line, err)
		}
		return sent(t, b)
	}
	m := step(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}`)
	if len(m) != 1 || m[0]["method"] != "session/new" || !d.canLoad {
		t.Fatalf("after initialize: %v (canLoad %v)", m, d.canLoad)
	}
	m = step(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess-1"}}`)
	if len(m) != 1 || m[0]["method"] != "session/prompt" || d.session() != "sess-1" {
		t.Fatalf("after session/new: %v", m)
	}
	// A permission request: the scripted kind is selected by optionId.
	m = step(`{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"sess-1","options":[{"optionId":"no","kind":"reject_once"},{"optionId":"yes","kind":"allow_once"}]}}`)
	if got := mustJSON(m[0]["result"]); string(got) != `{"outcome":{"optionId":"yes","outcome":"selected"}}` {
		t.Errorf("permission answer %s", got)
	}
	// Unscripted: rejected.
	m = step(`{"jsonrpc":"2.0","id":8,"method":"session/request_permission","params":{"options":[{"optionId":"no","kind":"reject_once"}]}}`)
	if got := mustJSON(m[0]["result"]); string(got) != `{"outcome":{"optionId":"no","outcome":"selected"}}` {
		t.Errorf("default permission answer %s", got)
	}
	// fs inside the workspace, with a line range; outside refused.
	m = step(`{"jsonrpc":"2.0","id":9,"method":"fs/read_text_file","params":{"path":"` + filepath.Join(ws, "a.txt") + `","line":2,"limit":1}}`)
	if got := mustJSON(m[0]["result"]); string(got) != `{"content":"two\n"}` {
		t.Errorf("read answer %s", got)
	}
	for _, path := range []string{"/etc/passwd", filepath.Join(ws, "..", "x"), "rel.txt"} {
		m = step(`{"jsonrpc":"2.0","id":10,"method":"fs/read_text_file","params":{"path":"` + path + `"}}`)
		if m[0]["error"] == nil {
			t.Errorf("read %s: answered %v, want an error", path, m[0])
		}
	}
	m = step(`{"jsonrpc":"2.0","id":11,"method":"fs/write_text_file","params":{"path":"` + filepath.Join(ws, "sub", "b.txt") + `","content":"hi"}}`)
	if b, err := os.ReadFile(filepath.Join(ws, "sub", "b.txt")); err != nil || string(b) != "hi" || m[0]["error"] != nil {
		t.Errorf("write: %q %v %v", b, err, m)
	}
	m = step(`{"jsonrpc":"2.0","id":12,"method":"terminal/create","params":{}}`)
	if e, _ := m[0]["error"].(map[string]any); e == nil || e["code"] != float64(-32601) {
		t.Errorf("terminal/create answered %v", m)
	}
	// The first prompt's result starts the second turn.
	m = step(`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`)
	if len(m) != 1 || m[0]["method"] != "session/prompt" {
		t.Fatalf("after turn 1: %v", m)
	}
	if err := d.interrupt(p); err != nil {
		t.Fatal(err)
	}
	m = sent(t, b)
	if len(m) != 1 || m[0]["method"] != "session/cancel" || m[0]["id"] != nil {
		t.Errorf("interrupt sent %v, want the session/cancel notification", m)
	}
}

func TestACPDriverResume(t *testing.T) {
	d := &acpDriver{prompts: []string{"again"}, resume: "sess-1", cwd: "/w"}
	p, b := fakeProc()
	_ = d.start(p)
	sent(t, b)
	if err := d.line(p, []byte(`{"jsonrpc":"2.0","id":0,"result":{"agentCapabilities":{"loadSession":true}}}`)); err != nil {
		t.Fatal(err)
	}
	m := sent(t, b)
	if len(m) != 1 || m[0]["method"] != "session/load" || string(mustJSON(m[0]["params"])) != `{"cwd":"/w","mcpServers":[],"sessionId":"sess-1"}` {
		t.Fatalf("resume sent %v", m)
	}
	// An agent without loadSession cannot resume: the run fails.
	d = &acpDriver{prompts: []string{"again"}, resume: "sess-1", cwd: "/w"}
	p, _ = fakeProc()
	_ = d.start(p)
	if err := d.line(p, []byte(`{"jsonrpc":"2.0","id":0,"result":{"agentCapabilities":{}}}`)); err == nil || !strings.Contains(err.Error(), "loadSession") {
		t.Errorf("resume without loadSession: err = %v", err)
	}
}

func TestACPAgentsSetup(t *testing.T) {
	for _, cli := range DefaultCLIs {
		if cli.Provider != "acp" {
			continue
		}
		a, ok := ACPAgents[cli.Name]
		if !ok {
			t.Errorf("%s: no ACPAgents row", cli.Name)
			continue
		}
		root := t.TempDir()
		d := ACPDirs{Home: filepath.Join(root, "home"), Config: filepath.Join(root, "config"), Tmp: filepath.Join(root, "tmp")}
		env, err := a.Setup(d, "http://127.0.0.1:1")
		if err != nil {
			t.Errorf("%s: %v", cli.Name, err)
			continue
		}
		joined := strings.Join(env, "\n")
		if cli.Name == "opencode" {
			b, _ := os.ReadFile(filepath.Join(d.Config, "opencode", "opencode.json"))
			joined += string(b)
		}
		if !strings.Contains(joined, "HOME="+d.Home) || !strings.Contains(joined, "http://127.0.0.1:1") {
			t.Errorf("%s: env %q", cli.Name, env)
		}
		if cli.API() != a.API {
			t.Errorf("%s: CLI.API %v, ACPAgents %v", cli.Name, cli.API(), a.API)
		}
	}
}
