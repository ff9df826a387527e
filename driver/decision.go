package driver

import "time"

// HumanDecisionKind names the kind of decision a driver asks for.
type HumanDecisionKind string

// The decision kinds.
const (
	HumanDecisionPermission HumanDecisionKind = "permission"
	HumanDecisionPlanReview HumanDecisionKind = "plan_review"
	HumanDecisionQuestion   HumanDecisionKind = "question"
)

// HumanDecisionMode is the policy for one decision kind. The zero value
// means the host default (Ask for permission and plan review, AutoReject for
// questions). Questions cannot be auto-approved.
type HumanDecisionMode string

// The decision modes.
const (
	HumanDecisionDefault     HumanDecisionMode = ""
	HumanDecisionAsk         HumanDecisionMode = "ask"
	HumanDecisionAutoApprove HumanDecisionMode = "auto_approve"
	HumanDecisionAutoReject  HumanDecisionMode = "auto_reject"
)

// FailureAction is what happens after a rejected or timed-out decision.
type FailureAction string

// The failure actions.
const (
	FailureActionDefault  FailureAction = ""
	FailureActionAbort    FailureAction = "abort"
	FailureActionContinue FailureAction = "continue"
	FailureActionRetry    FailureAction = "retry"
)

// HumanDecisionPolicy is the resolved decision policy of a run. A negative
// Timeout means "wait forever"; zero means the host default (30 s).
type HumanDecisionPolicy struct {
	Permission HumanDecisionMode `json:"permission,omitempty"`
	PlanReview HumanDecisionMode `json:"plan_review,omitempty"`
	Question   HumanDecisionMode `json:"question,omitempty"`
	Timeout    time.Duration     `json:"timeout,omitempty"`
	OnTimeout  FailureAction     `json:"on_timeout,omitempty"`
	OnReject   FailureAction     `json:"on_reject,omitempty"`
	MaxRetries int               `json:"max_retries,omitempty"`
}

// DecisionChoice is one answer a decision offers.
type DecisionChoice struct {
	Key         string `json:"key,omitempty"`
	Label       string `json:"label,omitempty"`
	Description string `json:"description,omitempty"`
}

// DecisionRequest asks the host for a decision through
// DecisionCapableSink.RequestDecision. The driver fills Kind, Source,
// ToolCallID, Prompt, Payload and Choices; the host fills RequestID,
// CreatedAt, Deadline and RetryAttempt.
type DecisionRequest struct {
	RequestID       string            `json:"request_id,omitempty"`
	RunID           string            `json:"run_id,omitempty"`
	ThreadID        string            `json:"thread_id,omitempty"`
	Kind            HumanDecisionKind `json:"kind,omitempty"`
	Source          string            `json:"source,omitempty"`
	ToolCallID      string            `json:"tool_call_id,omitempty"`
	Prompt          string            `json:"prompt,omitempty"`
	Payload         map[string]any    `json:"payload,omitempty"`
	Choices         []DecisionChoice  `json:"choices,omitempty"`
	DefaultDecision string            `json:"default_decision,omitempty"`
	CreatedAt       time.Time         `json:"created_at,omitzero"`
	Deadline        time.Time         `json:"deadline,omitzero"`
	RetryAttempt    int               `json:"retry_attempt,omitempty"`
}

// DecisionResult is the outcome of a decision.
type DecisionResult string

// The decision outcomes.
const (
	DecisionApproved DecisionResult = "approved"
	DecisionRejected DecisionResult = "rejected"
	DecisionAnswered DecisionResult = "answered"
	DecisionTimedOut DecisionResult = "timed_out"
	DecisionAborted  DecisionResult = "aborted"
)

// DecisionResponse is the host's answer to a DecisionRequest.
type DecisionResponse struct {
	RequestID string         `json:"request_id,omitempty"`
	Result    DecisionResult `json:"result,omitempty"`
	Choice    string         `json:"choice,omitempty"`
	Answer    map[string]any `json:"answer,omitempty"`
	Text      string         `json:"text,omitempty"`
}

// HITLRequestedPayload is the audit envelope of a hitl.requested payload: a
// provider-side decision request, broadcast read-only. It carries no
// responder; answering goes through DecisionCapableSink.
type HITLRequestedPayload struct {
	RequestID    string            `json:"request_id,omitempty"`
	Kind         HumanDecisionKind `json:"kind,omitempty"`
	Source       string            `json:"source,omitempty"`
	ToolCallID   string            `json:"tool_call_id,omitempty"`
	Prompt       string            `json:"prompt,omitempty"`
	Payload      map[string]any    `json:"payload,omitempty"`
	Choices      []DecisionChoice  `json:"choices,omitempty"`
	CreatedAt    time.Time         `json:"created_at,omitzero"`
	Deadline     time.Time         `json:"deadline,omitzero"`
	RetryAttempt int               `json:"retry_attempt,omitempty"`
}

// HITLResolvedPayload is the audit envelope of a hitl.resolved payload.
type HITLResolvedPayload struct {
	RequestID    string            `json:"request_id,omitempty"`
	Kind         HumanDecisionKind `json:"kind,omitempty"`
	Source       string            `json:"source,omitempty"`
	RetryAttempt int               `json:"retry_attempt,omitempty"`
	Result       DecisionResult    `json:"result,omitempty"`
	Choice       string            `json:"choice,omitempty"`
	Answer       map[string]any    `json:"answer,omitempty"`
	ResolvedAt   time.Time         `json:"resolved_at,omitzero"`
	Latency      time.Duration     `json:"latency,omitempty"`
}
