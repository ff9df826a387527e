package geminicli

import (
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/sessioncodec"
)

// CodecName is the name of Codec. It changes only with an incompatible
// change of the stored form.
const CodecName = "gemini-cli/v1"

// Codec is the Gemini CLI session codec: SessionState.ResumeID is the
// session id of the init event, what `gemini --resume <id>` takes. Data is
// stored as Values unchanged; an empty DisplayID is ResumeID, in both
// directions. The guard fingerprint covers driver.ParamCWD (Gemini CLI
// keeps its sessions per project directory, under
// ~/.gemini/tmp/<project>/chats, and finds a session only from the
// directory it was started in), driver.ParamWorkspaceID and
// driver.ParamProfileFingerprint.
var Codec driver.SessionCodec = sessioncodec.New(CodecName, sessioncodec.Guard)
