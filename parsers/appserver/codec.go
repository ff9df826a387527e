package appserver

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"maps"

	"github.com/agentwire/agentwire/driver"
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
var Codec driver.SessionCodec = codec{}

type codec struct{}

func (codec) Name() string { return CodecName }

func (codec) ToParams(s *driver.SessionState) driver.SessionParams {
	if s == nil {
		return driver.SessionParams{}
	}
	return driver.SessionParams{ResumeID: s.ResumeID, DisplayID: displayID(s.DisplayID, s.ResumeID), Values: cloneMap(s.Data)}
}

func (codec) FromParams(p driver.SessionParams) *driver.SessionState {
	if p.IsZero() {
		return nil
	}
	return &driver.SessionState{ResumeID: p.ResumeID, DisplayID: displayID(p.DisplayID, p.ResumeID), Data: cloneMap(p.Values)}
}

// displayID is display, or resume when display is empty.
func displayID(display, resume string) string {
	if display == "" {
		return resume
	}
	return display
}

// guardKeys are the provider-visible state the fingerprint covers, in a
// fixed order.
var guardKeys = []string{driver.ParamCWD, driver.ParamWorkspaceID, driver.ParamProfileFingerprint}

func (codec) GuardFingerprint(p driver.SessionParams) string {
	if p.ResumeID == "" {
		return ""
	}
	h := sha256.New()
	put := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	put(CodecName)
	for _, k := range guardKeys {
		v, ok := p.Values[k]
		put(k)
		if ok {
			put("=" + v)
		} else {
			put("") // absent differs from empty
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func cloneMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}
