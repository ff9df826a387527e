package driver

// FailureCode classifies a RunFailure.
type FailureCode string

// The failure codes.
const (
	// FailureDecisionRejected: a human decision was rejected. HumanDecision
	// is set.
	FailureDecisionRejected FailureCode = "decision_rejected"
	// FailureDecisionTimeout: a human decision timed out. HumanDecision is
	// set.
	FailureDecisionTimeout FailureCode = "decision_timeout"
	// FailureAgentError: the agent or provider reported a failure.
	FailureAgentError FailureCode = "agent_error"
	// FailureCancelled: the run was cancelled or interrupted.
	FailureCancelled FailureCode = "cancelled"
	// FailurePolicyError: a policy could not be enforced.
	FailurePolicyError FailureCode = "policy_error"
	// FailureTimeout: the active-execution time limit was reached.
	FailureTimeout FailureCode = "timeout"
	// FailureProviderError: a model API reported a typed error, in an
	// error event or as a non-2xx HTTP response. ErrorType, Message and,
	// where known, HTTPStatus say which.
	FailureProviderError FailureCode = "provider_error"
	// FailureIncomplete: the stream ended without its terminal event and
	// without an error (a disconnect, a truncated capture). Never a success.
	FailureIncomplete FailureCode = "incomplete"
)

// RunFailure is a structured business failure: the run completed its
// protocol but did not succeed. Message is never empty. HumanDecision is
// non-nil exactly when Code is FailureDecisionRejected or
// FailureDecisionTimeout (adaptertest RSP-02).
type RunFailure struct {
	Message string      `json:"message,omitempty"`
	Code    FailureCode `json:"code,omitempty"`
	// ErrorType is the provider's own error type ("overloaded_error",
	// "rate_limit_exceeded", "RESOURCE_EXHAUSTED") for FailureProviderError.
	ErrorType string `json:"error_type,omitempty"`
	// HTTPStatus is the HTTP status of the response, when the failure came
	// with one (a non-2xx response, or an error event on a 200 stream whose
	// status the caller gave).
	HTTPStatus    int                   `json:"http_status,omitempty"`
	Metadata      map[string]any        `json:"metadata,omitempty"`
	HumanDecision *HumanDecisionFailure `json:"human_decision,omitempty"`
}

// Error implements error, so a RunFailure can be wrapped and returned.
func (f *RunFailure) Error() string {
	if f == nil {
		return "<nil>"
	}
	if f.Code == "" {
		return f.Message
	}
	return string(f.Code) + ": " + f.Message
}

// IsHumanDecision reports whether f is a rejected or timed-out decision.
// It is nil-safe.
func (f *RunFailure) IsHumanDecision() bool {
	return f != nil && (f.Code == FailureDecisionRejected || f.Code == FailureDecisionTimeout)
}

// IsRejected reports whether f is a rejected decision. It is nil-safe.
func (f *RunFailure) IsRejected() bool { return f != nil && f.Code == FailureDecisionRejected }

// IsTimedOut reports whether f is a timed-out decision. It is nil-safe.
func (f *RunFailure) IsTimedOut() bool { return f != nil && f.Code == FailureDecisionTimeout }

// HumanDecisionFailure describes the decision behind a rejected or
// timed-out run.
type HumanDecisionFailure struct {
	Kind     HumanDecisionKind `json:"kind,omitempty"`
	Source   string            `json:"source,omitempty"`
	Decision DecisionResult    `json:"decision,omitempty"`
	Request  *DecisionRequest  `json:"request,omitempty"`
	Attempts int               `json:"attempts,omitempty"`
}
