package sessioncodec

import (
	"testing"

	"github.com/agentwire/agentwire/driver"
)

// TestCheckpointOrder: each condition, failing alone, gives its reason,
// and the first failing one wins.
func TestCheckpointOrder(t *testing.T) {
	codec := New("test", Guard)
	ok := Checkpoint{ID: "s1", Clean: true, Codec: codec, Noun: "session", Agent: "agent"}
	if ck, why := ok.Build(); ck == nil || !ck.Valid || why != "" || ck.State.ResumeID != "s1" || ck.State.DisplayID != "s1" {
		t.Fatalf("clean run: %+v, %q", ck, why)
	}
	if ck, _ := (Checkpoint{Clean: true, Codec: codec}).Build(); ck != nil {
		t.Errorf("no id: %+v, want nil", ck)
	}
	for _, tc := range []struct {
		edit func(*Checkpoint)
		why  string
	}{
		{func(c *Checkpoint) { c.Clean = false; c.Failed = true }, "process outcome is not clean"},
		{func(c *Checkpoint) { c.Failed = true; c.Malformed = 1 }, "run failed"},
		{func(c *Checkpoint) { c.Malformed = 2; c.NoTerminal = "no result" }, "malformed protocol"},
		{func(c *Checkpoint) { c.NoTerminal = "no result"; c.Resume = &driver.SessionState{ResumeID: "s0"} }, "no result"},
		{func(c *Checkpoint) { c.Resume = &driver.SessionState{ResumeID: "s0"}; c.Own = "own" }, "resumed session s0 but agent started s1"},
		{func(c *Checkpoint) { c.Resume = &driver.SessionState{ResumeID: "s1"}; c.Own = "own" }, "own"},
		{func(c *Checkpoint) { c.Data = map[string]string{"k": "v"}; c.Codec = lossy{codec} }, "session codec does not round-trip the state"},
	} {
		c := ok
		tc.edit(&c)
		ck, why := c.Build()
		if ck == nil || ck.Valid || why != tc.why {
			t.Errorf("%+v: %+v, %q; want invalid, %q", c, ck, why, tc.why)
		}
	}
}

// lossy is a codec that loses Data.
type lossy struct{ driver.SessionCodec }

func (l lossy) ToParams(s *driver.SessionState) driver.SessionParams {
	p := l.SessionCodec.ToParams(s)
	p.Values = nil
	return p
}
