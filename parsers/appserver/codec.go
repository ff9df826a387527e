package appserver

import (
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/sessioncodec"
)

// CodecName is the name of Codec. It changes only with an incompatible
// change of the stored form.
const CodecName = "codex-app-server/v1"

// Codec is the app-server session codec: SessionState.ResumeID is the
// thread id that `thread/resume {threadId}` accepts (the same UUIDv7 id
// space as `codex exec`), DisplayID the same id (kept as given; an empty
// one is ResumeID, in both directions, so every resumable state and params
// carry a DisplayID); Data is stored as Values unchanged.
// GuardFingerprint is the SHA-256 (hex) of the codec name and the
// provider-visible state a resume depends on: driver.ParamCWD (codex
// stores threads per working directory and resolves relative paths
// there), driver.ParamWorkspaceID and driver.ParamProfileFingerprint
// (model, config and MCP servers), each length-prefixed so that no two
// different states join to the same bytes. An absent key differs from an
// empty one.
var Codec driver.SessionCodec = sessioncodec.New(CodecName, sessioncodec.Guard)
