package record

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

type inv struct {
	argv []string
	env  []string
	drv  driver
	// exitGrace, when set, replaces the default wait for the CLI's exit
	// after the session ended (a CLI known not to exit on EOF).
	exitGrace time.Duration
	// port is a free port passed to the CLI for its own server (see
	// ACPAgent.PortFlag), shown as <PORT> in meta.json; 0 when none.
	port int
}

// codexConfig is the config.toml written into CODEX_HOME: it points Codex
// at the mock through a custom model provider. Retries are bounded so that
// error scenarios end quickly and the number of model requests stays fixed.
// A config file rather than -c flags, because codex app-server 0.58 ignores
// -c overrides for threads it starts.
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

// basePath is the PATH the CLIs get: node's directory and the system dirs.
func basePath() string {
	p := "/usr/local/bin:/usr/bin:/bin"
	if node, err := exec.LookPath("node"); err == nil {
		if d := filepath.Dir(node); d != "/usr/bin" && d != "/bin" && d != "/usr/local/bin" {
			p = d + ":" + p
		}
	}
	return p
}

// invocation builds the argv, environment and stdin driver of one run.
// sid is the session id of the previous run (for resume).
// cache is the directory the CLIs are installed in.
func invocation(cli CLI, bin, cache string, c Case, run Run, sid, scratch, url string) (*inv, error) {
	env := []string{
		"PATH=" + basePath(),
		"HOME=" + filepath.Join(scratch, "home"),
		"TMPDIR=" + filepath.Join(scratch, "tmp"),
		"LANG=C.UTF-8",
	}
	args := append(append([]string(nil), c.Extra...), run.Args...)
	switch cli.Provider {
	case "acp":
		agent, ok := ACPAgents[cli.Name]
		if !ok {
			return nil, fmt.Errorf("record: %s is not an ACP agent", cli.Name)
		}
		env, err := agent.Setup(ACPDirs{Home: filepath.Join(scratch, "home"), Config: filepath.Join(scratch, "config"),
			Tmp: filepath.Join(scratch, "tmp"), Cache: cli.RunCache(cache)}, url)
		if err != nil {
			return nil, err
		}
		argv := append([]string{bin}, agent.Args...)
		port := 0
		if agent.PortFlag != "" {
			if port, err = FreePort(); err != nil {
				return nil, err
			}
			argv = append(argv, agent.PortFlag, strconv.Itoa(port))
		}
		argv = append(argv, args...)
		d := &acpDriver{prompts: append([]string{run.Prompt}, run.Turns...), decisions: run.Decisions,
			cwd: filepath.Join(scratch, "work")}
		if run.Resume {
			d.resume = sid
		}
		// Gemini CLI, once it has run a shell command, does not exit
		// on EOF either (nor at once on SIGTERM): 5 s, not 15.
		in := &inv{argv: argv, env: env, drv: d, exitGrace: 5 * time.Second, port: port}
		if !agent.ExitsOnEOF {
			in.exitGrace = 2 * time.Second
		}
		return in, nil
	case "codex":
		env = append(env, "CODEX_HOME="+filepath.Join(scratch, "config"), "MOCK_API_KEY=sk-mock-key")
		argv := append([]string{bin, "exec", "--json", "--skip-git-repo-check"}, args...)
		if run.Resume {
			argv = append(argv, "resume", sid)
		}
		argv = append(argv, run.Prompt)
		return &inv{argv: argv, env: env, drv: codexExec()}, nil
	case "appserver":
		env = append(env, "CODEX_HOME="+filepath.Join(scratch, "config"), "MOCK_API_KEY=sk-mock-key")
		argv := append([]string{bin, "app-server"}, args...)
		d := &appServerDriver{prompts: append([]string{run.Prompt}, run.Turns...),
			decisions: run.Decisions, threadParams: run.ThreadParams}
		if run.Resume {
			d.resume = sid
		}
		return &inv{argv: argv, env: env, drv: d}, nil
	case "gemini-cli":
		// The settings and environment of Gemini CLI's ACP runs
		// (ACPAgents), headless with -o stream-json instead of --acp.
		env, err := ACPAgents[cli.Name].Setup(ACPDirs{Home: filepath.Join(scratch, "home"), Config: filepath.Join(scratch, "config"),
			Tmp: filepath.Join(scratch, "tmp")}, url)
		if err != nil {
			return nil, err
		}
		argv := []string{bin, "-o", "stream-json", "--skip-trust"}
		if run.Resume {
			argv = append(argv, "--resume", sid)
		}
		argv = append(append(argv, args...), "-p", run.Prompt)
		return &inv{argv: argv, env: env, drv: geminiStream()}, nil
	default: // claude
		env = append(env,
			"CLAUDE_CONFIG_DIR="+filepath.Join(scratch, "config"),
			"ANTHROPIC_BASE_URL="+url,
			"ANTHROPIC_API_KEY=sk-ant-mock-key",
			"DISABLE_TELEMETRY=1",
			"DISABLE_AUTOUPDATER=1",
			"DISABLE_ERROR_REPORTING=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		)
		argv := []string{bin, "-p", "--output-format", "stream-json", "--verbose"}
		if run.StreamInput {
			argv = append(argv, "--input-format", "stream-json", "--permission-prompt-tool", "stdio")
		}
		if run.Resume {
			argv = append(argv, "--resume", sid)
		}
		argv = append(argv, args...)
		d := &claudeDriver{stream: run.StreamInput, prompts: append([]string{run.Prompt}, run.Turns...),
			decisions: run.Decisions}
		if !run.StreamInput {
			argv = append(argv, run.Prompt)
		}
		return &inv{argv: argv, env: env, drv: d}, nil
	}
}
