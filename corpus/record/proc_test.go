package record

import (
	"context"
	"strings"
	"testing"
	"time"
)

// fake runs a shell script as the CLI under driver d.
func fake(t *testing.T, script string, d driver, spec runSpec) *runResult {
	t.Helper()
	spec.Argv = []string{"/bin/sh", "-c", script}
	spec.Dir = t.TempDir()
	if spec.Timeout == 0 {
		spec.Timeout = 20 * time.Second
	}
	if spec.ExitGrace == 0 {
		spec.ExitGrace = 5 * time.Second
	}
	res, err := execute(context.Background(), spec, d)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestExecuteExecDriver(t *testing.T) {
	d := codexExec()
	res := fake(t, `echo '{"type":"thread.started","thread_id":"T1"}'; printf partial; echo oops >&2; exit 3`, d, runSpec{})
	if d.session() != "T1" {
		t.Errorf("session = %q", d.session())
	}
	if string(res.Stdout) != "{\"type\":\"thread.started\",\"thread_id\":\"T1\"}\npartial" {
		t.Errorf("stdout = %q (the unterminated last line must be kept)", res.Stdout)
	}
	if string(res.Stderr) != "oops\n" || res.ExitCode != 3 || res.StdinUsed {
		t.Errorf("stderr %q exit %d stdin used %v", res.Stderr, res.ExitCode, res.StdinUsed)
	}
}

// onLine is a driver that also tells fn of every stdout line.
type onLine struct {
	driver
	fn func(l []byte)
}

func (d onLine) line(p *proc, l []byte) error {
	d.fn(l)
	return d.driver.line(p, l)
}

// TestExecuteSignalTrigger: the model request that arms the trigger comes
// once the script has set its trap (it says "started" after), as a CLI's
// first model request comes once it runs: a request queued before the
// process starts would fire the signal at a shell that may not have
// reached its trap yet under load (the default action of SIGINT kills
// it, with no got-int and no exit 130).
func TestExecuteSignalTrigger(t *testing.T) {
	reqs := make(chan int, 1)
	d := onLine{codexExec(), func(l []byte) {
		if string(l) == "started" {
			reqs <- 1
		}
	}}
	res := fake(t, `trap 'echo got-int; exit 130' INT; echo started; while :; do sleep 0.05; done`, d,
		runSpec{Requests: reqs, Signal: &Trigger{OnRequest: 1, DelayMS: 200, Name: "SIGINT"}})
	if res.SentSignal != "SIGINT" || res.ExitCode != 130 || !strings.Contains(string(res.Stdout), "got-int") {
		t.Errorf("sent %q exit %d stdout %q", res.SentSignal, res.ExitCode, res.Stdout)
	}
}

func TestExecuteTimeout(t *testing.T) {
	res := fake(t, `sleep 30`, codexExec(), runSpec{Timeout: 300 * time.Millisecond})
	if !res.TimedOut || res.Signal != "SIGKILL" {
		t.Errorf("timed out %v signal %q", res.TimedOut, res.Signal)
	}
}

func TestExecuteClaudeControlProtocol(t *testing.T) {
	script := `read init
echo '{"type":"control_response","response":{"subtype":"success","request_id":"req_1_agentwire","response":{}}}'
read user
echo '{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}}}'
read answer
echo '{"type":"result","subtype":"success","session_id":"S1"}'
read eof || exit 0
exit 9`
	d := &claudeDriver{stream: true, prompts: []string{"hi"}, decisions: []string{"allow"}}
	res := fake(t, script, d, runSpec{})
	if res.ExitCode != 0 {
		t.Errorf("exit %d: stdin was not closed after the result", res.ExitCode)
	}
	lines := strings.Split(strings.TrimSuffix(string(res.Stdin), "\n"), "\n")
	want := []string{
		`{"type":"control_request","request_id":"req_1_agentwire","request":{"subtype":"initialize","hooks":null}}`,
		`{"type":"user","session_id":"","message":{"role":"user","content":"hi"},"parent_tool_use_id":null}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"behavior":"allow","updatedInput":{"command":"ls"}}}}`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("stdin:\n%s\nwant:\n%s", res.Stdin, strings.Join(want, "\n"))
	}
	if d.session() != "S1" {
		t.Errorf("session = %q", d.session())
	}
}

func TestExecuteAppServer(t *testing.T) {
	script := `read l; echo '{"id":0,"result":{}}'
read l
read l; echo '{"id":1,"result":{"thread":{"id":"th"}}}'
read l; echo '{"id":2,"result":{"turn":{"id":"tu"}}}'; echo '{"method":"item/commandExecution/requestApproval","id":0,"params":{}}'
read l; echo '{"method":"turn/completed","params":{}}'
read l || exit 0
exit 9`
	d := &appServerDriver{prompts: []string{"go"}, decisions: []string{"decline"},
		threadParams: []byte(`{"approvalPolicy":"untrusted"}`)}
	res := fake(t, script, d, runSpec{})
	want := `{"method":"initialize","id":0,"params":{"clientInfo":{"name":"agentwire_record","title":"agentwire recorder","version":"0.1.0"}}}
{"method":"initialized"}
{"method":"thread/start","id":1,"params":{"approvalPolicy":"untrusted"}}
{"method":"turn/start","id":2,"params":{"threadId":"th","input":[{"type":"text","text":"go"}]}}
{"id":0,"result":{"decision":"decline"}}
`
	if string(res.Stdin) != want {
		t.Errorf("stdin:\n%s\nwant:\n%s", res.Stdin, want)
	}
	if res.ExitCode != 0 || d.session() != "th" {
		t.Errorf("exit %d session %q", res.ExitCode, d.session())
	}
}
