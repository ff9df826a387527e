package record

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// A CLI is one pinned CLI version recorded for one provider.
type CLI struct {
	// Provider is the corpus provider: "codex", "appserver", "claude" or
	// "gemini-cli".
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
	}
	for _, p := range cands {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("record: %s@%s not installed under %s (run make cli-install)", c.Package, c.Version, dir)
}

// Install installs the CLI's pinned npm package into cache with npm, unless
// it is already there.
func (c CLI) Install(ctx context.Context, cache string) error {
	if _, err := c.Bin(cache); err == nil {
		return nil
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
	_, err = c.Bin(cache)
	return err
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
