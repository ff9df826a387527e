package acp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentwire/agentwire/corpus/mock"
	"github.com/agentwire/agentwire/corpus/record"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/acp"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
	pacp "github.com/agentwire/agentwire/parsers/acp"
)

// The end-to-end tests run each pinned real ACP agent (Gemini CLI,
// opencode, Copilot CLI, Qwen Code: record.ACPAgents, installed by make
// cli-install) in ACP mode against the recorder's mock model server
// inside a network namespace with only loopback, configured exactly as
// the recorder runs it (record.ACPAgent.Setup).

// agents are the ACP agents of the corpus, in DefaultCLIs order.
func agents() []record.CLI {
	var out []record.CLI
	for _, c := range record.DefaultCLIs {
		if c.Provider == "acp" {
			out = append(out, c)
		}
	}
	return out
}

// agentBin is the installed binary of cli, or "" (E2E then skips).
func agentBin(cli record.CLI) string {
	b, err := cli.Bin(drvtest.Cache())
	if err != nil {
		return ""
	}
	return b
}

func text(s ...string) mock.Reply {
	return mock.Reply{Items: []mock.Item{{Type: "text", Deltas: s}}, Usage: &mock.Usage{InputTokens: 100, OutputTokens: 10}}
}

var stall = mock.Reply{Items: []mock.Item{{Type: "text", Deltas: []string{"Working on it", "..."}}}, Stall: true}

// sideReply answers the agents' requests outside the conversation
// (opencode's title, Qwen Code's memory extraction): they declare no
// tools and consume nothing from the script.
var sideReply = mock.Reply{Items: []mock.Item{{Type: "text", Deltas: []string{"agentwire mock side reply"}}}, Usage: &mock.Usage{}}

func side(body []byte) bool {
	var v struct {
		Tools []json.RawMessage `json:"tools"`
	}
	return json.Unmarshal(body, &v) == nil && len(v.Tools) == 0
}

// e2eEnv starts a mock with opt for cli's model API and returns a driver
// configured like the recorder runs the agent (then changed by mod), the
// mock and the sandbox.
func e2eEnv(t *testing.T, cli record.CLI, opt mock.Options, mod ...func(*acp.Config)) (*acp.Driver, *mock.Server, drvtest.Sandbox) {
	t.Helper()
	agent := record.ACPAgents[cli.Name]
	opt.API = agent.API
	if opt.API == mock.Chat {
		opt.Side, opt.SideReply = side, sideReply
	}
	srv, err := mock.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	sb := drvtest.Setup(t, "acp-"+cli.Name, record.SetupNamespace, srv)
	env, err := agent.Setup(record.ACPDirs{Home: sb.Home, Config: sb.Config, Tmp: sb.Tmp,
		Cache: filepath.Join(drvtest.Cache(), cli.Dir()+"-run")}, sb.URL)
	if err != nil {
		t.Fatal(err)
	}
	// The default ExitWait: Qwen Code (ExitsOnEOF false) is given as long
	// as the others, and exits on its own once its stdin closed.
	cfg := acp.Config{Command: agentBin(cli), Args: agent.Args, Env: env, IsolateEnv: true}
	for _, m := range mod {
		m(&cfg)
	}
	return acp.New(cfg), srv, sb
}

// conversation lists the model requests of srv's scripted conversation.
func conversation(srv *mock.Server) drvtest.Conversation {
	return drvtest.ConversationOf(srv.Requests, func(r mock.Request) ([]byte, bool) { return r.Body, r.Reply >= -1 })
}

// eachAgent runs f as a subtest per agent, inside the namespace.
func eachAgent(t *testing.T, f func(t *testing.T, cli record.CLI)) {
	for _, cli := range agents() {
		t.Run(cli.Name, func(t *testing.T) {
			if !drvtest.E2E(t, agentBin(cli)) {
				return
			}
			f(t, cli)
		})
	}
}

// loadWaiter runs an acp.Driver, and before a resumed run waits as long as
// the agent's record.ACPAgent.WaitToLoad says since the last run ended
// (Gemini CLI 0.61.0 cannot load a session in the minute it started; see
// LoadNextMinute). The embedded driver keeps every other method.
type loadWaiter struct {
	*acp.Driver
	agent record.ACPAgent
	mu    *sync.Mutex
	ended *time.Time
}

func newLoadWaiter(d *acp.Driver, agent record.ACPAgent) func() driver.Driver {
	mu, ended := new(sync.Mutex), new(time.Time)
	return func() driver.Driver { return loadWaiter{acp.New(d.Config()), agent, mu, ended} }
}

func (w loadWaiter) Run(ctx context.Context, req driver.Request, sink driver.EventSink) (driver.Response, error) {
	if req.Session != nil && req.Session.State != nil {
		w.mu.Lock()
		wait := w.agent.WaitToLoad(*w.ended, time.Now())
		w.mu.Unlock()
		time.Sleep(wait)
	}
	resp, err := w.Driver.Run(ctx, req, sink)
	w.mu.Lock()
	*w.ended = time.Now()
	w.mu.Unlock()
	return resp, err
}

func TestE2EConformance(t *testing.T) {
	eachAgent(t, func(t *testing.T, cli record.CLI) {
		d, _, sb := e2eEnv(t, cli, mock.Options{Replies: []mock.Reply{text("OK"), text("You said ", "OK."), stall}})
		sb.Conformance(t, newLoadWaiter(d, record.ACPAgents[cli.Name]), 8*time.Second)
	})
}

func TestE2EResume(t *testing.T) {
	eachAgent(t, func(t *testing.T, cli record.CLI) {
		d, srv, sb := e2eEnv(t, cli, mock.Options{Replies: []mock.Reply{text(drvtest.ResumeReplies[0]...), text(drvtest.ResumeReplies[1]...)}})
		r1, r2 := sb.Resume(t, newLoadWaiter(d, record.ACPAgents[cli.Name])(), conversation(srv))
		if got, want := r2.Resp.Checkpoint.State.ResumeID, r1.Resp.Checkpoint.State.ResumeID; got != want {
			t.Errorf("run 2 session %q, want run 1's %q", got, want)
		}
	})
}

// TestE2ECancel cancels a turn while the model stalls: the driver sends
// session/cancel before any signal, and Run must return within the bound
// of Sandbox.Cancel (the grace and a second) with the turn cancelled.
// Whether the agent answered the prompt with stopReason cancelled and
// exited within the grace, or was killed when it ran out, is logged: seen
// here, Copilot CLI answers and exits at once, Gemini CLI and Qwen Code
// answer but take longer than the grace to exit, and opencode 1.18.33
// does not answer session/cancel while its model stream stalls.
func TestE2ECancel(t *testing.T) {
	eachAgent(t, func(t *testing.T, cli record.CLI) {
		written := make(chan int, 8)
		d, _, sb := e2eEnv(t, cli, mock.Options{Replies: []mock.Reply{stall}, OnWritten: func(seq, reply int) {
			if reply >= -1 {
				written <- seq
			}
		}})
		r := sb.Cancel(t, d, written, `"method":"session/update"`)
		if got := r.Resp.Metadata[pacp.MetaCancelSent]; got != "1" {
			t.Errorf("session/cancel sent %q times, want once", got)
		}
		t.Logf("%s: stopReason %q, signal %q", cli.Name, r.Resp.Metadata[pacp.MetaStopReason], r.Resp.Signal)
	})
}

// shellCall is the model's call of cli's shell tool running command.
func shellCall(cli record.CLI, command string) mock.Reply {
	name, input := "run_shell_command", map[string]string{"command": command}
	if cli.Name == "copilot" || cli.Name == "opencode" {
		name, input["description"] = "bash", "Create a file"
	}
	b, _ := json.Marshal(input)
	return mock.Reply{Items: []mock.Item{{Type: "tool_call", Name: name, Input: b}}, Usage: &mock.Usage{InputTokens: 200, OutputTokens: 20}}
}

// TestE2EApproval: the agent's session/request_permission for a shell
// command goes to the host's DecisionCapableSink; approved, the command
// runs, rejected, it does not. Copilot CLI only: seen here, opencode
// 1.18.33 runs its bash tool without asking (no decision), and the runs
// of Gemini CLI 0.61.0 and Qwen Code 0.24.4 on this scenario did not end
// cleanly: Gemini CLI was still running ExitWait after SIGTERM and was
// killed, and Qwen Code left a process holding the output pipes after it
// was signalled (process: "output pipes still open").
func TestE2EApproval(t *testing.T) {
	eachAgent(t, func(t *testing.T, cli record.CLI) {
		if cli.Name != "copilot" {
			t.Skip(cli.Name + " does not end a shell-tool turn cleanly here (see the doc comment)")
		}
		const file = "agentwire-approved.txt"
		drvtest.Approval(t, "Create "+file+".", file, func(t *testing.T) (driver.Driver, drvtest.Sandbox) {
			d, _, sb := e2eEnv(t, cli, mock.Options{Replies: []mock.Reply{shellCall(cli, "touch "+file), text("Done.")}})
			return d, sb
		})
	})
}
