package record

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/agentwire/agentwire/corpus/mock"
)

// An ACPAgent is how one agent CLI runs in ACP mode (the Agent Client
// Protocol, JSON-RPC over stdio) offline: against a mock model server on
// 127.0.0.1, with a private home and nothing inherited from the caller's
// environment. The recorder runs the ACP corpus with it, and the ACP
// driver's end-to-end tests run the same CLIs the same way
// (shared/reference/agent-clis.md has how each setting was found).
type ACPAgent struct {
	// Name is the CLI's name in DefaultCLIs.
	Name string
	// API is the model API the CLI calls: the mock serves it.
	API mock.API
	// Args are the arguments after the executable that start ACP mode
	// against the mock.
	Args []string
	// ExitsOnEOF tells whether the CLI exits when its stdin closes. Qwen
	// Code does not: it is signalled (SIGTERM) once the session is over.
	ExitsOnEOF bool
	// PortFlag, when set, is the flag that gives the CLI the 127.0.0.1
	// port of the HTTP server it runs for itself; the caller passes a free
	// one (see FreePort). opencode's ACP mode is a client of its own
	// server, which listens on 4096 unless told otherwise: two instances
	// in one network namespace then talk to the first one's server, and
	// the second never answers session/new or its prompt.
	PortFlag string
	// LoadNextMinute: session/load fails when it comes in the same wall
	// clock minute as the session's start. Gemini CLI 0.61.0 names a
	// session's chat file by the minute and the session id
	// (chats/session-2026-12-02T03-12-72d986ae.jsonl); a load in that
	// minute opens the same file for the loaded session, rewrites it to
	// an empty conversation, and then finds no session to load ("No
	// previous sessions found for this project", -32603). On a busy
	// machine the second run came a minute later and it worked; on an
	// idle one it failed every time. Callers wait with WaitToLoad.
	LoadNextMinute bool
	// Note says what is particular about the CLI in ACP mode.
	Note string
}

// WaitToLoad returns how long to wait, for an agent with LoadNextMinute,
// before a session/load of a session that was started no later than
// ended (pass the time the session's first run ended: the agent starts
// the session some time after its process starts): until one second into
// the minute after ended. It is 0 for the other agents and once that
// minute has come.
func (a ACPAgent) WaitToLoad(ended, now time.Time) time.Duration {
	if !a.LoadNextMinute {
		return 0
	}
	return max(0, ended.Truncate(time.Minute).Add(time.Minute+time.Second).Sub(now))
}

// ACPAgents are the agent CLIs the corpus records in ACP mode, by name.
var ACPAgents = map[string]ACPAgent{
	"gemini-cli": {Name: "gemini-cli", API: mock.Gemini, Args: []string{"--acp"}, ExitsOnEOF: true, LoadNextMinute: true,
		Note: "settings.json selects gemini-api-key auth (the base-URL variable alone selects another auth type) and maxAttempts 1 (an HTTP 500 is otherwise retried about ten times with long backoff)"},
	"opencode": {Name: "opencode", API: mock.Chat, Args: []string{"acp"}, ExitsOnEOF: true, PortFlag: "--port",
		Note: "a provider \"mock\" declared in opencode.json; it makes a title request (no tools) before the main turn"},
	"copilot": {Name: "copilot", API: mock.Chat, Args: []string{"--acp"}, ExitsOnEOF: true,
		Note: "BYOK through COPILOT_PROVIDER_* with COPILOT_OFFLINE=true: no login"},
	"qwen-code": {Name: "qwen-code", API: mock.Chat, Args: []string{"--acp", "--auth-type", "openai", "-m", mock.Model, "--approval-mode", "default"}, ExitsOnEOF: false,
		Note: "OPENAI_BASE_URL and --auth-type openai; approval mode default (its ACP default, auto, first asks the model itself whether a command is safe: a model request outside the conversation); it does not exit when its stdin closes"},
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// ACPDirs are the private directories of one ACP agent run: Home is HOME,
// Config XDG_CONFIG_HOME, Tmp TMPDIR; all three must exist. Cache, when
// set, is where a CLI keeps what it unpacks on its first run, shared
// between runs (Copilot CLI unpacks 235 MB into COPILOT_PKG_CACHE_HOME,
// which takes seconds); empty, it is under Home.
type ACPDirs struct {
	Home, Config, Tmp string
	Cache             string
}

// Setup writes the agent's configuration files into d (Gemini CLI's
// settings.json, opencode's opencode.json) and returns the complete
// environment of the CLI, pointed at the mock model server at url
// (http://127.0.0.1:PORT, without /v1). Nothing is inherited: PATH is
// node's directory and the system directories, LANG is C.UTF-8, and the
// XDG data, cache and state directories are under d.Home.
func (a ACPAgent) Setup(d ACPDirs, url string) ([]string, error) {
	env := []string{
		"PATH=" + basePath(),
		"HOME=" + d.Home,
		"TMPDIR=" + d.Tmp,
		"LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + d.Config,
		"XDG_DATA_HOME=" + filepath.Join(d.Home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(d.Home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(d.Home, ".local", "state"),
	}
	write := func(path, content string) error {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(content), 0o644)
	}
	switch a.Name {
	case "gemini-cli":
		if err := write(filepath.Join(d.Home, ".gemini", "settings.json"), geminiSettings); err != nil {
			return nil, err
		}
		return append(env, "GOOGLE_GEMINI_BASE_URL="+url, "GEMINI_API_KEY=mock-gemini-key"), nil
	case "opencode":
		if err := write(filepath.Join(d.Config, "opencode", "opencode.json"), opencodeConfig(url)); err != nil {
			return nil, err
		}
		return append(env,
			"OPENCODE_DISABLE_MODELS_FETCH=1",
			"OPENCODE_DISABLE_AUTOUPDATE=1",
			"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
			"OPENCODE_DISABLE_SHARE=1",
		), nil
	case "copilot":
		pkg := d.Cache
		if pkg == "" {
			pkg = filepath.Join(d.Home, ".cache", "copilot")
		}
		return append(env,
			"COPILOT_PKG_CACHE_HOME="+pkg,
			"COPILOT_OFFLINE=true",
			"COPILOT_PROVIDER_BASE_URL="+url+"/v1",
			"COPILOT_PROVIDER_TYPE=openai",
			"COPILOT_PROVIDER_API_KEY=mock-copilot-key",
			"COPILOT_MODEL=gpt-4.1",
			"COPILOT_AUTO_UPDATE=false",
		), nil
	case "qwen-code":
		if err := write(filepath.Join(d.Home, ".qwen", "settings.json"), qwenSettings); err != nil {
			return nil, err
		}
		return append(env, "OPENAI_BASE_URL="+url+"/v1", "OPENAI_API_KEY=mock-openai-key"), nil
	}
	return nil, fmt.Errorf("record: no ACP settings for %q", a.Name)
}

// geminiSettings is Gemini CLI's $HOME/.gemini/settings.json: API-key auth
// (with GOOGLE_GEMINI_BASE_URL alone it picks another auth type and fails
// with "Invalid auth method selected"), one attempt per model request.
// A fixed model: with the default "auto" it first asks a classifier model
// (a generateContent request) which model to route the prompt to. No usage
// statistics: they would be sent to Google.
const geminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"maxAttempts": 1},
  "model": {"name": "gemini-2.5-flash"},
  "privacy": {"usageStatisticsEnabled": false}
}
`

// qwenSettings is Qwen Code's $HOME/.qwen/settings.json: no managed auto
// memory (a background "memory extraction" request to the model after each
// turn, racing with the end of the session, and counted in the usage), no
// usage statistics.
const qwenSettings = `{
  "memory": {"enableManagedAutoMemory": false},
  "privacy": {"usageStatisticsEnabled": false}
}
`

// opencodeConfig is opencode's $XDG_CONFIG_HOME/opencode/opencode.json: an
// OpenAI-compatible provider "mock" at the mock server.
func opencodeConfig(url string) string {
	return `{
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "mock",
      "options": {"baseURL": "` + url + `/v1", "apiKey": "mock-opencode-key"},
      "models": {"mock-model": {"name": "mock-model", "tool_call": true}}
    }
  },
  "model": "mock/mock-model",
  "small_model": "mock/mock-model"
}
`
}
