package appserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/corpus/mock"
	"github.com/agentwire/agentwire/corpus/record"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/appserver"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
)

// The end-to-end tests run the pinned real `codex app-server` against the
// recorder's mock Responses server inside a network namespace with only
// loopback.

func codexBin() string {
	return filepath.Join(drvtest.Cache(), "codex@"+record.CodexVersion, "node_modules/.bin/codex")
}

func text(s ...string) mock.Reply {
	return mock.Reply{Items: []mock.Item{{Type: "text", Deltas: s}}, Usage: &mock.Usage{InputTokens: 100, OutputTokens: 10}}
}

var stall = mock.Reply{Items: []mock.Item{{Type: "text", Deltas: []string{"Working on it", "..."}}}, Stall: true}

// codexConfig is the recorder's config.toml: the app-server reads the
// model provider from CODEX_HOME.
func codexConfig(url string) string {
	return `model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "` + url + `/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 1
stream_max_retries = 1
stream_idle_timeout_ms = 60000
`
}

// e2eEnv starts a mock with opt and returns a driver configured like the
// recorder runs the app-server (then changed by mod), the mock and the
// sandbox.
func e2eEnv(t *testing.T, opt mock.Options, mod ...func(*appserver.Config)) (*appserver.Driver, *mock.Server, drvtest.Sandbox) {
	t.Helper()
	opt.API = mock.Responses
	srv, err := mock.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	sb := drvtest.Setup(t, "appserver", record.SetupNamespace, srv)
	if err := os.WriteFile(filepath.Join(sb.Config, "config.toml"), []byte(codexConfig(sb.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := appserver.Config{
		Binary:     codexBin(),
		CodexHome:  sb.Config,
		IsolateEnv: true,
		Env:        append(sb.Env, "MOCK_API_KEY=sk-mock-key"),
	}
	for _, m := range mod {
		m(&cfg)
	}
	return appserver.New(cfg), srv, sb
}

// conversation lists the model requests of srv's scripted conversation.
func conversation(srv *mock.Server) drvtest.Conversation {
	return drvtest.ConversationOf(srv.Requests, func(r mock.Request) ([]byte, bool) { return r.Body, r.Reply >= -1 })
}

func TestE2EConformance(t *testing.T) {
	if !drvtest.E2E(t, codexBin()) {
		return
	}
	d, _, sb := e2eEnv(t, mock.Options{Replies: []mock.Reply{text("OK"), text("You said ", "OK."), stall}})
	sb.Conformance(t, func() driver.Driver { return appserver.New(d.Config()) }, 8*time.Second)
}

func TestE2EResume(t *testing.T) {
	if !drvtest.E2E(t, codexBin()) {
		return
	}
	d, srv, sb := e2eEnv(t, mock.Options{Replies: []mock.Reply{text(drvtest.ResumeReplies[0]...), text(drvtest.ResumeReplies[1]...)}})
	r1, r2 := sb.Resume(t, d, conversation(srv))
	if got, want := r2.Resp.Checkpoint.State.ResumeID, r1.Resp.Checkpoint.State.ResumeID; got != want {
		t.Errorf("run 2 thread %q, want run 1's %q", got, want)
	}
}

func TestE2ECancel(t *testing.T) {
	if !drvtest.E2E(t, codexBin()) {
		return
	}
	written := make(chan int, 8)
	d, _, sb := e2eEnv(t, mock.Options{Replies: []mock.Reply{stall}, OnWritten: func(seq, reply int) {
		if reply >= -1 {
			written <- seq
		}
	}})
	r := sb.Cancel(t, d, written, `"method":"turn/started"`)
	if !strings.Contains(r.Resp.RawStreams.Stdout, `"interrupted"`) {
		t.Logf("no interrupted turn/completed: the group was killed (signal %q)", r.Resp.Signal)
	}
}

func TestE2EApproval(t *testing.T) {
	if !drvtest.E2E(t, codexBin()) {
		return
	}
	tool := mock.Reply{Items: []mock.Item{{Type: "tool_call", Name: "exec_command", Input: json.RawMessage(`{"cmd":"touch agentwire-approved.txt && echo created"}`)}}}
	drvtest.Approval(t, "Create agentwire-approved.txt.", "agentwire-approved.txt", func(t *testing.T) (driver.Driver, drvtest.Sandbox) {
		d, _, sb := e2eEnv(t, mock.Options{Replies: []mock.Reply{tool, text("Done.")}}, func(c *appserver.Config) {
			c.ApprovalPolicy, c.Sandbox = "untrusted", "workspace-write"
		})
		return d, sb
	})
}
