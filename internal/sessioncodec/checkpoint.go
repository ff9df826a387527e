package sessioncodec

import "github.com/agentwire/agentwire/driver"

// Checkpoint is what a session parser knows at Finish, for the rule of
// contract §9 that codex, app-server, Gemini CLI and ACP apply alike: a
// run that reported a session id has a checkpoint, whose state is that id
// (ResumeID and DisplayID) and Data; it is Valid only when, in this order,
// the process outcome is clean, the run did not fail, no line was
// malformed, the stream reached its successful terminal, a resumed run
// continued the session it was asked to, the provider's own condition
// holds, and Codec round-trips the state. The first that fails is the
// reason Build gives.
type Checkpoint struct {
	// ID is the session (or thread) id the run reported; "" means no
	// checkpoint at all.
	ID string
	// Data is SessionState.Data, kept as given (nil for none).
	Data map[string]string
	// Clean is the process outcome's Clean.
	Clean bool
	// Failed: the run has a Failure.
	Failed bool
	// Malformed is the number of malformed lines and framing errors.
	Malformed int
	// NoTerminal says why the stream did not reach its successful
	// terminal ("no turn.completed"); "" when it did.
	NoTerminal string
	// Resume is the state the run was asked to resume (nil when it was
	// not a resume); a ResumeID other than ID invalidates the checkpoint,
	// with the reason "resumed <Noun> <ResumeID> but <Agent> started <ID>".
	Resume      *driver.SessionState
	Noun, Agent string
	// Own says why a condition of the provider's own fails ("the agent
	// did not advertise loadSession"); "" when it holds.
	Own string
	// Codec is the provider's session codec.
	Codec driver.SessionCodec
}

// Into returns the checkpoint (nil when ID is ""), and when it is not
// valid writes why not to meta[key] (the parser's MetaCheckpoint).
func (c Checkpoint) Into(meta map[string]string, key string) *driver.Checkpoint {
	ck, why := c.Build()
	if why != "" {
		meta[key] = why
	}
	return ck
}

// Build returns the checkpoint (nil when ID is "") and, when it is not
// valid, why not.
func (c Checkpoint) Build() (*driver.Checkpoint, string) {
	if c.ID == "" {
		return nil, ""
	}
	st := &driver.SessionState{ResumeID: c.ID, DisplayID: c.ID, Data: c.Data}
	why := ""
	switch {
	case !c.Clean:
		why = "process outcome is not clean"
	case c.Failed:
		why = "run failed"
	case c.Malformed > 0:
		why = "malformed protocol"
	case c.NoTerminal != "":
		why = c.NoTerminal
	case c.Resume != nil && c.Resume.ResumeID != "" && c.Resume.ResumeID != c.ID:
		why = "resumed " + c.Noun + " " + c.Resume.ResumeID + " but " + c.Agent + " started " + c.ID
	case c.Own != "":
		why = c.Own
	case !Accepts(c.Codec, st):
		why = "session codec does not round-trip the state"
	}
	return &driver.Checkpoint{State: st, Valid: why == ""}, why
}
