package claude

import (
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/sessioncodec"
)

// Codec is the Claude Code session codec. The resume id is the session id
// of the run's root result line, given back to the CLI as --resume <id>.
// ToParams and FromParams copy ResumeID, DisplayID and every Data entry,
// except that an empty DisplayID becomes ResumeID (the session id is what
// Claude Code shows), so every resumable state and params carry a
// DisplayID; the guard fingerprint covers the guard inputs (cwd,
// workspace_id, profile_fingerprint) so that a session is not resumed in
// another directory, workspace or profile.
var Codec driver.SessionCodec = sessioncodec.New(codecName, sessioncodec.Guard)

// codecName is the codec's stable name; the suffix is the codec version.
const codecName = "claude/v1"
