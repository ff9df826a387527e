package record

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/agentwire/agentwire/corpus/mock"
)

// A CLI is one pinned CLI version recorded for one provider.
type CLI struct {
	// Provider is the corpus provider: "codex", "appserver", "claude",
	// "gemini-cli" or "acp".
	Provider string
	// Name is the CLI's short name used in corpus directories
	// (<name>@<version>).
	Name string
	// Package is the npm package.
	Package string
	Version string
	// Latest marks the pinned current version (scenarios may be limited to
	// it with "versions": ["latest"]).
	Latest bool
}

// Dir is the recording directory name, <name>@<version>.
func (c CLI) Dir() string { return c.Name + "@" + c.Version }

// Is reports whether a scenario's CLI selector names c: its version, its
// name, <name>@<version>, or "latest" for a pinned current version.
// Versions and names are unique across DefaultCLIs' rows of one provider.
func (c CLI) Is(sel string) bool {
	return sel == c.Version || sel == c.Name || sel == c.Dir() || (sel == "latest" && c.Latest)
}

// API is the model API the CLI calls, which the recorder's mock serves.
func (c CLI) API() mock.API {
	switch c.Provider {
	case "claude":
		return mock.Messages
	case "gemini-cli":
		return mock.Gemini
	case "acp":
		return ACPAgents[c.Name].API
	}
	return mock.Responses
}

// The pinned CLI versions. The older ones are about a year older than the
// current ones and still run against the mocks.
const (
	CodexVersion     = "0.169.0"
	CodexOldVersion  = "0.58.0"
	ClaudeVersion    = "2.1.328"
	ClaudeOldVersion = "2.0.50"
	// GeminiCLIVersion is @google/gemini-cli, bin gemini: recorded in
	// -o stream-json mode (provider gemini-cli); its --acp mode is the
	// same package.
	GeminiCLIVersion = "0.61.0"
	// The agent CLIs recorded in ACP mode (shared/reference/agent-clis.md;
	// ACPAgents has how each runs offline), Gemini CLI among them.
	OpencodeVersion = "1.18.33"
	CopilotVersion  = "1.0.102"
	QwenCodeVersion = "0.24.4"
)

// DefaultCLIs lists every CLI the corpus is recorded with.
var DefaultCLIs = []CLI{
	{Provider: "codex", Name: "codex", Package: "@openai/codex", Version: CodexVersion, Latest: true},
	{Provider: "codex", Name: "codex", Package: "@openai/codex", Version: CodexOldVersion},
	{Provider: "claude", Name: "claude-code", Package: "@anthropic-ai/claude-code", Version: ClaudeVersion, Latest: true},
	{Provider: "claude", Name: "claude-code", Package: "@anthropic-ai/claude-code", Version: ClaudeOldVersion},
	{Provider: "appserver", Name: "codex", Package: "@openai/codex", Version: CodexVersion, Latest: true},
	{Provider: "appserver", Name: "codex", Package: "@openai/codex", Version: CodexOldVersion},
	{Provider: "gemini-cli", Name: "gemini-cli", Package: "@google/gemini-cli", Version: GeminiCLIVersion, Latest: true},
	{Provider: "acp", Name: "gemini-cli", Package: "@google/gemini-cli", Version: GeminiCLIVersion, Latest: true},
	{Provider: "acp", Name: "opencode", Package: "opencode-ai", Version: OpencodeVersion, Latest: true},
	{Provider: "acp", Name: "copilot", Package: "@github/copilot", Version: CopilotVersion, Latest: true},
	{Provider: "acp", Name: "qwen-code", Package: "@qwen-code/qwen-code", Version: QwenCodeVersion, Latest: true},
}

// installDir is where Install puts a package version inside the cache.
func (c CLI) installDir(cache string) string { return filepath.Join(cache, c.Name+"@"+c.Version) }

// Bin returns the path of the CLI's executable inside cache, or an error
// when it is not installed.
func (c CLI) Bin(cache string) (string, error) {
	dir := c.installDir(cache)
	var cands []string
	switch c.Name {
	case "claude-code":
		// Newer releases ship a native binary in a platform package; older
		// ones a node script behind .bin/claude.
		cands = []string{
			filepath.Join(dir, "node_modules/@anthropic-ai/claude-code-linux-x64/claude"),
			filepath.Join(dir, "node_modules/.bin/claude"),
		}
	case "codex":
		cands = []string{filepath.Join(dir, "node_modules/.bin/codex")}
	case "gemini-cli":
		cands = []string{filepath.Join(dir, "node_modules/.bin/gemini")}
	case "opencode":
		// A Bun binary, copied over the package's launcher by its
		// postinstall script.
		cands = []string{filepath.Join(dir, "node_modules/.bin/opencode")}
	case "copilot":
		// The platform package's native binary; the package's npm-loader
		// only finds and starts it.
		cands = []string{filepath.Join(dir, "node_modules/@github/copilot-linux-x64/copilot")}
	case "qwen-code":
		cands = []string{filepath.Join(dir, "node_modules/.bin/qwen")}
	}
	for _, p := range cands {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("record: %s@%s not installed under %s (run make cli-install)", c.Package, c.Version, dir)
}

// RunCache is the directory, inside cache, where the CLI keeps what it
// unpacks on its first run (see ACPDirs.Cache): Copilot CLI's native
// binary unpacks 235 MB of JavaScript there.
func (c CLI) RunCache(cache string) string { return filepath.Join(cache, c.Dir()+"-run") }

// Install installs the CLI's pinned npm package into cache with npm, unless
// it is already there. Copilot CLI's package is unpacked into its RunCache
// too, so that no recorded run pays for it (and says so on stderr when it
// takes more than 5 s).
func (c CLI) Install(ctx context.Context, cache string) error {
	if bin, err := c.Bin(cache); err == nil {
		return c.unpack(ctx, bin, cache)
	}
	// npm resolves a relative --prefix against its working directory,
	// which is dir itself: with a relative cache (the Makefile's default
	// .cache/npm) the package would land in dir/.cache/npm/... So the
	// directory is made absolute first.
	dir, err := filepath.Abs(c.installDir(cache))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund",
		"--prefix", dir, c.Package+"@"+c.Version)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("record: npm install %s@%s: %w\n%s", c.Package, c.Version, err, out)
	}
	bin, err := c.Bin(cache)
	if err != nil {
		return err
	}
	return c.unpack(ctx, bin, cache)
}

// unpack has Copilot CLI unpack its package into RunCache
// (COPILOT_SEA_EXTRACT_ONLY=1: unpack and exit; nothing is done when it is
// there already). Other CLIs have nothing to unpack.
func (c CLI) unpack(ctx context.Context, bin, cache string) error {
	if c.Name != "copilot" {
		return nil
	}
	dir, err := filepath.Abs(c.RunCache(cache))
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = []string{"PATH=" + basePath(), "HOME=" + dir, "COPILOT_SEA_EXTRACT_ONLY=1", "COPILOT_PKG_CACHE_HOME=" + dir}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("record: unpacking %s@%s: %w\n%s", c.Package, c.Version, err, out)
	}
	return nil
}

// InstallAll installs every distinct package version of clis.
func InstallAll(ctx context.Context, cache string, clis []CLI) error {
	seen := map[string]bool{}
	for _, c := range clis {
		if seen[c.Dir()] {
			continue
		}
		seen[c.Dir()] = true
		if err := c.Install(ctx, cache); err != nil {
			return err
		}
	}
	return nil
}
