package corpus

import (
	"embed"
	"io/fs"
)

// SampleName is the name of the embedded sample case.
const SampleName = "codex/codex@0.169.0/text"

//go:embed codex/codex@0.169.0/text
var sample embed.FS

// SampleFS is a file system holding one good case, SampleName (a
// `codex exec --json` text answer recorded from codex 0.169.0), so that a
// program built from this module has a capture to parse on any machine.
var SampleFS fs.FS = sample

// Sample loads the embedded sample case.
func Sample() (*Case, error) { return LoadCase(SampleFS, SampleName) }
