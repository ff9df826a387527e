package fuzz

import (
	"bytes"
	"fmt"
	"maps"

	"github.com/agentwire/agentwire/driver"
)

// stateOf decodes a SessionState from fuzz bytes: NUL-separated fields,
// the resume id, the display id, then key/value pairs.
func stateOf(data []byte) driver.SessionState {
	f := bytes.Split(data, []byte{0})
	var s driver.SessionState
	s.ResumeID = string(f[0])
	if len(f) > 1 {
		s.DisplayID = string(f[1])
	}
	for i := 2; i+1 < len(f); i += 2 {
		if s.Data == nil {
			s.Data = map[string]string{}
		}
		s.Data[string(f[i])] = string(f[i+1])
	}
	return s
}

// CheckCodec is the FuzzCodec oracle: for the Codec of every provider
// parser, with a SessionState and SessionParams decoded from data: nothing
// panics; ToParams(nil) is zero and FromParams(zero) nil; a resumable state
// round-trips through ToParams/FromParams; GuardFingerprint is
// deterministic, non-empty for resumable params, and changes with the
// working directory; FromParams of arbitrary params is stable under a
// second round trip.
func CheckCodec(data []byte) error {
	st := stateOf(data)
	raw := driver.SessionParams{ResumeID: st.ResumeID, DisplayID: st.DisplayID, Values: st.Data}
	for _, p := range Providers() {
		c := p.Codec
		if c == nil {
			continue // a stream without a session
		}
		if c.Name() == "" {
			return fmt.Errorf("%s: empty codec name", p.Name)
		}
		if !c.ToParams(nil).IsZero() || c.FromParams(driver.SessionParams{}) != nil {
			return fmt.Errorf("%s: nil state or zero params are not mapped to zero/nil", p.Name)
		}
		in := st
		in.Data = maps.Clone(st.Data)
		params := c.ToParams(&in)
		if !maps.Equal(in.Data, st.Data) {
			return fmt.Errorf("%s: ToParams modified its argument", p.Name)
		}
		back := c.FromParams(params)
		if st.ResumeID != "" {
			if back == nil || back.ResumeID != st.ResumeID || !maps.Equal(back.Data, st.Data) && !(len(back.Data) == 0 && len(st.Data) == 0) {
				return fmt.Errorf("%s: state %+v does not round-trip: params %+v, back %+v", p.Name, st, params, back)
			}
			g := c.GuardFingerprint(params)
			if g == "" || g != c.GuardFingerprint(params) {
				return fmt.Errorf("%s: guard %q for resumable params %+v is empty or not deterministic", p.Name, g, params)
			}
			moved := st
			moved.Data = maps.Clone(st.Data)
			if moved.Data == nil {
				moved.Data = map[string]string{}
			}
			moved.Data[driver.ParamCWD] += "/elsewhere"
			if g2 := c.GuardFingerprint(c.ToParams(&moved)); g2 == g {
				return fmt.Errorf("%s: guard %q does not change with the working directory (%+v)", p.Name, g, moved)
			}
		}
		// Arbitrary stored params: FromParams never panics, and what it
		// accepts is stable under another round trip.
		if s := c.FromParams(raw); s != nil {
			again := c.FromParams(c.ToParams(s))
			if again == nil || again.ResumeID != s.ResumeID || !maps.Equal(again.Data, s.Data) {
				return fmt.Errorf("%s: FromParams(%+v) = %+v is not stable: %+v", p.Name, raw, s, again)
			}
			_ = c.GuardFingerprint(raw)
		}
	}
	return nil
}
