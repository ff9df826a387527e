// Package claude parses the Claude Code CLI's stream-json output.
package claude
