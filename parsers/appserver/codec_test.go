package appserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/driver"
)

// TestCodecDisplayID: an empty DisplayID is ResumeID in both directions, a
// set one is kept, and the params of a state without one are a fixed point
// of FromParams then ToParams (adaptertest SES-03 and SES-04 with its
// default seed state, which has no DisplayID).
func TestCodecDisplayID(t *testing.T) {
	seed := &driver.SessionState{ResumeID: "adaptertest-session", Data: map[string]string{driver.ParamCWD: "/adaptertest"}}
	p := Codec.ToParams(seed)
	want := driver.SessionParams{ResumeID: "adaptertest-session", DisplayID: "adaptertest-session", Values: map[string]string{driver.ParamCWD: "/adaptertest"}}
	if d := cmp.Diff(want, p); d != "" {
		t.Errorf("ToParams (-want +got):\n%s", d)
	}
	if seed.DisplayID != "" {
		t.Errorf("ToParams modified its argument: %+v", seed)
	}
	if d := cmp.Diff(p, Codec.ToParams(Codec.FromParams(p))); d != "" {
		t.Errorf("params -> FromParams -> ToParams (-want +got):\n%s", d)
	}
	if got := Codec.FromParams(driver.SessionParams{ResumeID: "t-1"}); got == nil || got.DisplayID != "t-1" {
		t.Errorf("FromParams without DisplayID = %+v, want DisplayID t-1", got)
	}
	set := &driver.SessionState{ResumeID: "t-1", DisplayID: "shown"}
	if got := Codec.FromParams(Codec.ToParams(set)); got == nil || got.DisplayID != "shown" || Codec.ToParams(set).DisplayID != "shown" {
		t.Errorf("a set DisplayID was not kept: %+v", got)
	}
	if got := Codec.ToParams(&driver.SessionState{}); !got.IsZero() {
		t.Errorf("ToParams of an empty state = %+v, want zero", got)
	}
	if got := Codec.FromParams(driver.SessionParams{Values: map[string]string{"x": "1"}}); got == nil || got.DisplayID != "" {
		t.Errorf("FromParams without ResumeID = %+v, want no DisplayID", got)
	}
	if Codec.GuardFingerprint(p) != Codec.GuardFingerprint(driver.SessionParams{ResumeID: p.ResumeID, Values: p.Values}) {
		t.Error("DisplayID changed the guard")
	}
}
