package adaptertest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/agentwire/agentwire/driver"
)

// CheckResponse validates a Response and the error Run returned with it:
// clauses RSP-01 to RSP-05 and the Response rules of FIN-02 to FIN-04. codec is the driver's SessionCodec, or nil for a
// driver without resume; a Valid checkpoint with a nil codec cannot be
// verified and is reported. Codec panics are caught and reported as RSP-04.
func CheckResponse(resp driver.Response, runErr error, codec driver.SessionCodec) Violations {
	var c collector
	cp := resp.Checkpoint
	if cp != nil && cp.Valid {
		var why []string
		if cp.State == nil || cp.State.ResumeID == "" {
			why = append(why, "State or State.ResumeID is empty")
		}
		if resp.ExitCode != 0 {
			why = append(why, fmt.Sprintf("exit code %d", resp.ExitCode))
		}
		if resp.Signal != "" {
			why = append(why, "signal "+resp.Signal)
		}
		if resp.TimedOut {
			why = append(why, "timed out")
		}
		if resp.Failure != nil {
			why = append(why, "Failure is set")
		}
		if runErr != nil {
			why = append(why, "Run returned an error")
		}
		if resp.RawStreams == nil || resp.RawStreams.Terminal == nil {
			why = append(why, "no official terminal event was recognized")
		}
		for _, w := range why {
			c.add("RSP-01", -1, "checkpoint is Valid but %s", w)
		}
		if cp.State != nil && cp.State.ResumeID != "" {
			checkCodec(&c, cp.State, codec)
		}
	}
	if f := resp.Failure; f != nil {
		human := f.Code == driver.FailureDecisionRejected || f.Code == driver.FailureDecisionTimeout
		if human != (f.HumanDecision != nil) {
			c.add("RSP-02", -1, "Failure code %q with HumanDecision set=%v; HumanDecision is set exactly for decision_rejected and decision_timeout", f.Code, f.HumanDecision != nil)
		}
		if f.Message == "" {
			c.add("RSP-02", -1, "Failure without a Message")
		}
	}
	if resp.Output != "" {
		if raw := resp.RawStreams; raw != nil {
			if strings.TrimSpace(raw.Stdout) != "" && strings.Contains(resp.Output, raw.Stdout) {
				c.add("RSP-03", -1, "Output contains the raw stdout")
			}
			if strings.TrimSpace(raw.Stderr) != "" && strings.Contains(resp.Output, raw.Stderr) {
				c.add("RSP-03", -1, "Output contains the raw stderr")
			}
			if t := raw.Terminal; t != nil && len(t.JSON) > 2 && strings.Contains(resp.Output, string(t.JSON)) {
				c.add("RSP-03", -1, "Output contains the terminal JSON")
			}
		}
		if resp.Summary == resp.Output {
			c.add("RSP-03", -1, "Summary equals Output; without a formal summary it stays empty")
		}
	}
	checkFinishResponse(&c, resp)
	if raw := resp.RawStreams; raw != nil && raw.Terminal != nil {
		t := raw.Terminal
		if t.Event == "" {
			c.add("RSP-05", -1, "terminal payload without its provider event name")
		}
		if len(t.JSON) == 0 || !json.Valid(t.JSON) {
			c.add("RSP-05", -1, "terminal JSON is empty or not valid JSON (%d bytes)", len(t.JSON))
		}
	}
	return c.out
}

// checkCodec verifies that the codec round-trips a valid checkpoint's state
// losslessly and guards it with a deterministic, non-empty fingerprint.
func checkCodec(c *collector, st *driver.SessionState, codec driver.SessionCodec) {
	if codec == nil || reflect.ValueOf(codec).Kind() == reflect.Pointer && reflect.ValueOf(codec).IsNil() {
		c.add("RSP-04", -1, "checkpoint is Valid but no SessionCodec was given to verify it")
		return
	}
	defer func() {
		if r := recover(); r != nil {
			c.add("RSP-04", -1, "SessionCodec panicked: %v", r)
		}
	}()
	params := codec.ToParams(st)
	if params.ResumeID != st.ResumeID {
		c.add("RSP-04", -1, "codec ToParams changed ResumeID %q to %q", st.ResumeID, params.ResumeID)
	}
	for k, v := range st.Data {
		if got, ok := params.Values[k]; !ok || got != v {
			c.add("RSP-04", -1, "codec ToParams lost state key %q", k)
		}
	}
	back := codec.FromParams(params)
	if back == nil || back.ResumeID != st.ResumeID {
		c.add("RSP-04", -1, "codec FromParams(ToParams(state)) lost the ResumeID")
	} else if again := codec.ToParams(back); !reflect.DeepEqual(again, params) {
		c.add("RSP-04", -1, "codec round trip is lossy: ToParams(FromParams(p)) != p")
	}
	g1, g2 := codec.GuardFingerprint(params), codec.GuardFingerprint(params)
	if g1 == "" {
		c.add("RSP-04", -1, "codec GuardFingerprint is empty for a resumable state")
	} else if g1 != g2 {
		c.add("RSP-04", -1, "codec GuardFingerprint is not deterministic")
	}
}
