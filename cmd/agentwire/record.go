package main

import (
	"fmt"

	"github.com/agentwire/agentwire/corpus/record"
)

const recordHelp = `Record the golden corpus from the real agent CLIs against scripted mock model
servers (package corpus/record; corpus/README.md describes the layout and the
scenarios), or verify the corpus by re-recording it into a temporary
directory and printing the drift. The same as the agentwire-record command.

  agentwire record --install            npm-install the pinned CLIs into --cache
  agentwire record [--run REGEXP]       record into --out (corpus/)
  agentwire record --verify [--run RE]  re-record into a temporary directory and diff

Recording re-executes the command under unshare -n, so that the CLIs and the
mocks share a network namespace with nothing but loopback; it needs root or
unprivileged user namespaces (--check says whether recording can run here).
Run it from the repository root.`

func runRecord(e *env, args []string) int {
	fs := newFlags("record")
	c := record.Flags(fs)
	pos, code, done := parseFlags(e, fs, "[flags]", recordHelp, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return fail(e, "record", fmt.Errorf("unexpected arguments: %q", pos))
	}
	return c.Run(append([]string{"record"}, args...), e.stdout, e.stderr)
}
