package driver

// Checkpoint is the resume state a run leaves behind.
//
// Valid may be true only when every one of these holds:
//   - the provider process exited with ExitCode 0;
//   - there was no signal, timeout, context cancellation, Run error or
//     Response.Failure;
//   - the formal parser observed an explicit successful terminal event;
//   - that formal event carried a top-level, explicit resume/session id;
//   - State is non-nil and State.ResumeID is non-empty;
//   - the same driver's SessionCodec accepts State and round-trips it
//     losslessly, and produces a non-empty deterministic guard for it.
//
// A session announcement at start-up, partial output, a nested or guessed id,
// a malformed protocol, a missing terminal, a non-zero exit and a terminal
// error event never qualify. A failed run has no exception: it must not
// replace a healthy checkpoint.
type Checkpoint struct {
	State *SessionState `json:"state,omitempty"`
	Valid bool          `json:"valid,omitempty"`
}

// SessionState is a provider session as the driver knows it. ResumeID is the
// id the provider accepts to resume; DisplayID is what a UI shows; Data holds
// guard inputs such as the working directory (see the Param* keys).
type SessionState struct {
	ResumeID  string            `json:"resume_id,omitempty"`
	DisplayID string            `json:"display_id,omitempty"`
	Data      map[string]string `json:"data,omitempty"`
}

// SessionParams is the host-stored form of a SessionState, produced and
// consumed by a SessionCodec.
type SessionParams struct {
	ResumeID  string            `json:"resume_id,omitempty"`
	DisplayID string            `json:"display_id,omitempty"`
	Values    map[string]string `json:"values,omitempty"`
}

// IsZero reports whether p has no resume id, display id or values.
func (p SessionParams) IsZero() bool {
	return p.ResumeID == "" && p.DisplayID == "" && len(p.Values) == 0
}

// Well-known SessionState.Data / SessionParams.Values keys.
const (
	ParamCWD                = "cwd"
	ParamWorkspaceID        = "workspace_id"
	ParamProfileFingerprint = "profile_fingerprint"
	// Deprecated: kept so old stored params still decode.
	ParamPromptBundleKey = "prompt_bundle_key"
)

// SessionCodec maps SessionState to stored SessionParams and back. It must be
// stable and deterministic:
//   - Name is non-empty and never changes for a driver type;
//   - ToParams(nil) is the zero SessionParams and FromParams of the zero
//     value is nil;
//   - ToParams keeps ResumeID and every Data entry, and FromParams(ToParams(s))
//     round-trips losslessly;
//   - GuardFingerprint is non-empty for resumable params, deterministic, and
//     changes when a guard input (cwd, workspace, profile) changes;
//   - nil and zero inputs never panic.
type SessionCodec interface {
	Name() string
	ToParams(state *SessionState) SessionParams
	FromParams(params SessionParams) *SessionState
	GuardFingerprint(params SessionParams) string
}

// SessionMode says how a run relates to an existing provider session.
type SessionMode string

// The session modes.
const (
	SessionContinueOrStart SessionMode = "continue_or_start"
	SessionContinueOnly    SessionMode = "continue_only"
	SessionStartNew        SessionMode = "start_new"
	SessionFork            SessionMode = "fork"
	SessionStateless       SessionMode = "stateless"
)

// SessionContext is the session a run continues, if any. State is the
// checkpoint state of the previous run; a driver resumes from
// State.ResumeID.
type SessionContext struct {
	EngineSessionID string        `json:"engine_session_id,omitempty"`
	Mode            SessionMode   `json:"mode,omitempty"`
	State           *SessionState `json:"state,omitempty"`
	PreviousID      string        `json:"previous_id,omitempty"`
}
