package acp

import (
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/sessioncodec"
)

// CodecName is the name of Codec. It changes only with an incompatible
// change of the stored form.
const CodecName = "acp/v1"

// Codec is the ACP session codec: SessionState.ResumeID is the session id
// that session/load (and session/resume) take, DisplayID the same id;
// Data is stored as Values unchanged. GuardFingerprint is the SHA-256
// (hex) of the codec name and the provider-visible state a load depends
// on: driver.ParamCWD (session/load takes the session's cwd, and agents
// store sessions per project directory), driver.ParamWorkspaceID and
// driver.ParamProfileFingerprint, each length-prefixed.
var Codec driver.SessionCodec = sessioncodec.New(CodecName, sessioncodec.Guard)
