// Package sessioncodec is the one implementation of the parsers' session
// codecs (driver.SessionCodec), parameterised by the codec's name and the
// SessionState.Data keys its guard covers:
//
//   - ToParams and FromParams copy ResumeID, DisplayID and every Data
//     entry (Data is stored as Values unchanged; an empty map is nil), except
//     that an empty DisplayID becomes ResumeID in both directions, so every
//     resumable state and params carry a DisplayID;
//   - GuardFingerprint is the SHA-256 (hex) of the codec name and, for each
//     guard key in order, the key and its value, each length-prefixed so
//     that no two different states join to the same bytes; an absent key
//     differs from an empty value. It is "" for params without a resume id:
//     they cannot be resumed.
package sessioncodec

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"maps"
	"reflect"

	"github.com/agentwire/agentwire/driver"
)

// Guard is the guard of every parser's codec: the provider-visible state a
// resume depends on (the working directory, the workspace, the profile).
var Guard = []string{driver.ParamCWD, driver.ParamWorkspaceID, driver.ParamProfileFingerprint}

// New returns the codec called name whose fingerprint covers guard.
func New(name string, guard []string) driver.SessionCodec {
	return codec{name: name, guard: guard}
}

type codec struct {
	name  string
	guard []string
}

func (c codec) Name() string { return c.name }

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

func (c codec) GuardFingerprint(p driver.SessionParams) string {
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
	put(c.name)
	for _, k := range c.guard {
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

// displayID is display, or resume when display is empty.
func displayID(display, resume string) string {
	if display == "" {
		return resume
	}
	return display
}

func cloneMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// Accepts reports whether c keeps st losslessly (an empty DisplayID coming
// back as ResumeID), stably under a second round trip, and guards it with
// a deterministic fingerprint: the codec condition of a valid checkpoint.
func Accepts(c driver.SessionCodec, st *driver.SessionState) bool {
	if st == nil || st.ResumeID == "" {
		return false
	}
	p := c.ToParams(st)
	if p.ResumeID != st.ResumeID {
		return false
	}
	for k, v := range st.Data {
		if p.Values[k] != v {
			return false
		}
	}
	back := c.FromParams(p)
	if back == nil || back.ResumeID != st.ResumeID || back.DisplayID != displayID(st.DisplayID, st.ResumeID) || len(back.Data) != len(st.Data) {
		return false
	}
	if !reflect.DeepEqual(c.ToParams(back), p) {
		return false
	}
	g := c.GuardFingerprint(p)
	return g != "" && g == c.GuardFingerprint(p)
}
