package claude

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"reflect"
	"strconv"

	"github.com/agentwire/agentwire/driver"
)

// Codec is the Claude Code session codec. The resume id is the session id
// of the run's root result line, given back to the CLI as --resume <id>.
// ToParams and FromParams copy ResumeID, DisplayID and every Data entry,
// except that an empty DisplayID becomes ResumeID (the session id is what
// Claude Code shows), so every resumable state and params carry a
// DisplayID; the guard fingerprint covers the guard inputs (cwd,
// workspace_id, profile_fingerprint) so that a session is not resumed in
// another directory, workspace or profile.
var Codec driver.SessionCodec = codec{}

// codecName is the codec's stable name; the suffix is the codec version.
const codecName = "claude/v1"

type codec struct{}

func (codec) Name() string { return codecName }

// ToParams keeps every field (an empty DisplayID becomes ResumeID); an
// empty Data map becomes nil Values so that the round trip is exact.
func (codec) ToParams(s *driver.SessionState) driver.SessionParams {
	if s == nil {
		return driver.SessionParams{}
	}
	p := driver.SessionParams{ResumeID: s.ResumeID, DisplayID: displayID(s.DisplayID, s.ResumeID)}
	if len(s.Data) > 0 {
		p.Values = maps.Clone(s.Data)
	}
	return p
}

// FromParams is the inverse of ToParams (an empty DisplayID becomes
// ResumeID); zero params give nil.
func (codec) FromParams(p driver.SessionParams) *driver.SessionState {
	if p.IsZero() {
		return nil
	}
	s := &driver.SessionState{ResumeID: p.ResumeID, DisplayID: displayID(p.DisplayID, p.ResumeID)}
	if len(p.Values) > 0 {
		s.Data = maps.Clone(p.Values)
	}
	return s
}

// guardKeys are the SessionState.Data keys the guard covers, in order.
var guardKeys = []string{driver.ParamCWD, driver.ParamWorkspaceID, driver.ParamProfileFingerprint}

// GuardFingerprint is the sha256 (hex) of the codec name and the guard
// inputs, each written as key, length and value so that no two different
// inputs join to the same bytes (a missing key and an empty value differ).
// It is empty for params without a resume id: they cannot be resumed.
func (codec) GuardFingerprint(p driver.SessionParams) string {
	if p.ResumeID == "" {
		return ""
	}
	h := sha256.New()
	b := make([]byte, 0, 128)
	b = append(b, codecName...)
	b = append(b, 0)
	for _, k := range guardKeys {
		v, ok := p.Values[k]
		b = append(b, k...)
		if !ok {
			b = append(b, '!', 0)
			continue
		}
		b = append(b, '=')
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(b, ':')
		b = append(b, v...)
		b = append(b, 0)
	}
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// displayID is display, or resume when display is empty.
func displayID(display, resume string) string {
	if display == "" {
		return resume
	}
	return display
}

// roundTrips reports whether Codec keeps st losslessly (an empty
// DisplayID coming back as ResumeID) and guards it.
func roundTrips(st *driver.SessionState) bool {
	if st == nil || st.ResumeID == "" {
		return false
	}
	p := Codec.ToParams(st)
	back := Codec.FromParams(p)
	if back == nil || back.ResumeID != st.ResumeID || back.DisplayID != displayID(st.DisplayID, st.ResumeID) || len(back.Data) != len(st.Data) {
		return false
	}
	for k, v := range st.Data {
		if back.Data[k] != v {
			return false
		}
	}
	if !reflect.DeepEqual(Codec.ToParams(back), p) {
		return false
	}
	g := Codec.GuardFingerprint(p)
	return g != "" && g == Codec.GuardFingerprint(p)
}
