package claude_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentwire/agentwire/corpus/mock"
	"github.com/agentwire/agentwire/corpus/record"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/claude"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
)

// The end-to-end tests run the pinned real Claude Code against the
// recorder's mock Messages server inside a network namespace with only
// loopback.

func claudeBin() string {
	for _, c := range record.DefaultCLIs {
		if c.Provider == "claude" && c.Latest {
			if b, err := c.Bin(drvtest.Cache()); err == nil {
				return b
			}
		}
	}
	return filepath.Join(drvtest.Cache(), "claude-code@"+record.ClaudeVersion, "node_modules/.bin/claude")
}

func text(s ...string) mock.Reply {
	return mock.Reply{Items: []mock.Item{{Type: "text", Deltas: s}}, Usage: &mock.Usage{InputTokens: 100, OutputTokens: 10}}
}

var stall = mock.Reply{Items: []mock.Item{{Type: "text", Deltas: []string{"Working on it", "..."}}}, Stall: true}

// sideReply answers Claude Code's side requests (warmup, title): they
// declare no tools and consume nothing from the script.
var sideReply = mock.Reply{Items: []mock.Item{{Type: "text", Deltas: []string{"agentwire mock side reply"}}}, Usage: &mock.Usage{}}

func side(body []byte) bool {
	var v struct {
		Tools []json.RawMessage `json:"tools"`
	}
	return json.Unmarshal(body, &v) == nil && len(v.Tools) == 0
}

// e2eEnv starts a mock with opt and returns a driver configured like the
// recorder runs Claude Code, one-shot or interactive, the mock and the
// sandbox.
func e2eEnv(t *testing.T, opt mock.Options, interactive bool) (*claude.Driver, *mock.Server, drvtest.Sandbox) {
	t.Helper()
	opt.API, opt.Side, opt.SideReply = mock.Messages, side, sideReply
	srv, err := mock.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	sb := drvtest.Setup(t, "claude", record.SetupNamespace, srv)
	cfg := claude.Config{
		Binary:      claudeBin(),
		Interactive: interactive,
		ConfigDir:   sb.Config,
		IsolateEnv:  true,
		Env: append(sb.Env, "ANTHROPIC_BASE_URL="+sb.URL, "ANTHROPIC_API_KEY=sk-ant-mock-key",
			"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"),
	}
	return claude.New(cfg), srv, sb
}

// conversation lists the model requests of srv's scripted conversation
// (not Claude Code's side requests).
func conversation(srv *mock.Server) drvtest.Conversation {
	return drvtest.ConversationOf(srv.Requests, func(r mock.Request) ([]byte, bool) { return r.Body, r.Reply >= -1 })
}

func conformance(t *testing.T, interactive bool) {
	d, _, sb := e2eEnv(t, mock.Options{Replies: []mock.Reply{text("OK"), text("You said ", "OK."), stall}}, interactive)
	sb.Conformance(t, func() driver.Driver { return claude.New(d.Config()) }, 8*time.Second)
}

func TestE2EConformance(t *testing.T) {
	if !drvtest.E2E(t, claudeBin()) {
		return
	}
	conformance(t, false)
}

func TestE2EConformanceInteractive(t *testing.T) {
	if !drvtest.E2E(t, claudeBin()) {
		return
	}
	conformance(t, true)
}

func TestE2EResume(t *testing.T) {
	if !drvtest.E2E(t, claudeBin()) {
		return
	}
	d, srv, sb := e2eEnv(t, mock.Options{Replies: []mock.Reply{text(drvtest.ResumeReplies[0]...), text(drvtest.ResumeReplies[1]...)}}, false)
	sb.Resume(t, d, conversation(srv))
}

func cancelE2E(t *testing.T, interactive bool) {
	written := make(chan int, 8)
	d, _, sb := e2eEnv(t, mock.Options{Replies: []mock.Reply{stall}, OnWritten: func(seq, reply int) {
		if reply >= -1 {
			written <- seq
		}
	}}, interactive)
	sb.Cancel(t, d, written, `"subtype":"init"`)
}

func TestE2ECancel(t *testing.T) {
	if !drvtest.E2E(t, claudeBin()) {
		return
	}
	cancelE2E(t, false)
}

func TestE2ECancelInteractive(t *testing.T) {
	if !drvtest.E2E(t, claudeBin()) {
		return
	}
	cancelE2E(t, true)
}

func TestE2EApproval(t *testing.T) {
	if !drvtest.E2E(t, claudeBin()) {
		return
	}
	tool := mock.Reply{Items: []mock.Item{{Type: "tool_call", Name: "Bash", Input: json.RawMessage(`{"command":"touch agentwire-allowed.txt && echo created","description":"Print a line"}`)}}}
	drvtest.Approval(t, "Run touch agentwire-allowed.txt && echo created.", "agentwire-allowed.txt", func(t *testing.T) (driver.Driver, drvtest.Sandbox) {
		d, _, sb := e2eEnv(t, mock.Options{Replies: []mock.Reply{tool, text("Done.")}}, true)
		return d, sb
	})
}
