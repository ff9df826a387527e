package codex_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/agentwire/agentwire/corpus/mock"
	"github.com/agentwire/agentwire/corpus/record"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/codex"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
)

// The end-to-end tests run the pinned real codex CLI against the recorder's
// mock Responses server inside a network namespace with only loopback.

func codexBin() string {
	return filepath.Join(drvtest.Cache(), "codex@"+record.CodexVersion, "node_modules/.bin/codex")
}

func text(s ...string) mock.Reply {
	return mock.Reply{Items: []mock.Item{{Type: "text", Deltas: s}}, Usage: &mock.Usage{InputTokens: 100, OutputTokens: 10}}
}

var stall = mock.Reply{Items: []mock.Item{{Type: "text", Deltas: []string{"Working on it", "..."}}}, Stall: true}

// e2eEnv starts a mock with opt and returns a driver configured like the
// recorder runs codex, the mock and the sandbox.
func e2eEnv(t *testing.T, opt mock.Options) (*codex.Driver, *mock.Server, drvtest.Sandbox) {
	t.Helper()
	opt.API = mock.Responses
	srv, err := mock.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	sb := drvtest.Setup(t, "codex", record.SetupNamespace, srv)
	cfg := codex.Config{
		Binary: codexBin(),
		ConfigOverrides: []string{
			`model_provider="mock"`,
			`model_providers.mock.name="mock"`,
			`model_providers.mock.base_url="` + sb.URL + `/v1"`,
			`model_providers.mock.wire_api="responses"`,
			`model_providers.mock.env_key="MOCK_API_KEY"`,
			`model_providers.mock.request_max_retries=1`,
			`model_providers.mock.stream_max_retries=1`,
		},
		SkipGitRepoCheck: true,
		CodexHome:        sb.Config,
		IsolateEnv:       true,
		Env:              append(sb.Env, "MOCK_API_KEY=sk-mock-key"),
	}
	return codex.New(cfg), srv, sb
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
	sb.Conformance(t, func() driver.Driver { return codex.New(d.Config()) }, 6*time.Second)
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
	d, _, sb := e2eEnv(t, mock.Options{Replies: []mock.Reply{stall}, OnWritten: func(seq, reply int) { written <- seq }})
	sb.Cancel(t, d, written, `"thread.started"`)
}
