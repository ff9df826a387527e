package codex

import (
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/sessioncodec"
)

// CodecName is the name of Codec. It changes only with an incompatible
// change of the stored form.
const CodecName = "codex-exec/v1"

// Codec is the codex session codec: SessionState.ResumeID is the thread id
// `codex exec resume <id>` accepts, Data is stored as Values unchanged.
// DisplayID is kept as given; an empty one is ResumeID (the thread id is
// what codex shows), in both directions, so every resumable state and
// params carry a DisplayID.
// GuardFingerprint is the SHA-256 (hex) of the codec name and the
// provider-visible state a resume depends on: driver.ParamCWD (codex
// stores threads per working directory and resolves relative paths
// there), driver.ParamWorkspaceID and driver.ParamProfileFingerprint
// (model, config and MCP servers), each length-prefixed so that no two
// different states join to the same bytes. The usage totals are not
// guarded: they never change what codex sees.
var Codec driver.SessionCodec = sessioncodec.New(CodecName, sessioncodec.Guard)
