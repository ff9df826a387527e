package driver

import "time"

// Request is one invocation the host has fully resolved. A driver applies
// all of it on every run, resumed conversations included.
type Request struct {
	// RunID is the host's run id; provider ids travel in StreamPayload.
	RunID  string `json:"run_id,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	// Config nil means "use the configuration captured at construction".
	Config any `json:"-"`
	// Agent identifies the agent the run belongs to.
	Agent AgentIdentity `json:"agent"`
	// Workspace is the leased working directory; CWD is the process dir.
	Workspace WorkspaceLease `json:"workspace"`
	// Runtime, Skills and MCP are resolved payloads to materialize.
	Runtime RuntimePayload `json:"runtime"`
	Skills  ResolvedSkills `json:"skills"`
	MCP     MCPPayload     `json:"mcp"`
	// ProfilePayload is the exact resolved profile desired state. Resume and
	// persistent-process guards use ProfilePayload.SessionFingerprint();
	// materialization uses the exact payload and its Fingerprint.
	ProfilePayload ProfilePayload    `json:"profile_payload"`
	Profile        *ProfileSelection `json:"profile,omitempty"`
	// Instructions is an explicit instruction bundle, when declared.
	Instructions *InstructionsBundleRef `json:"instructions,omitempty"`
	Policy       RunPolicy              `json:"policy"`
	// Session is the session to continue, if any.
	Session  *SessionContext   `json:"session,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	// OutputSchema requests structured output; StructuredOutputSource is the
	// mechanism the host resolved and the driver must not renegotiate.
	OutputSchema           *OutputSchema          `json:"output_schema,omitempty"`
	StructuredOutputSource StructuredOutputSource `json:"structured_output_source,omitempty"`
	// Spawn forces a fresh provider process even for persistent drivers.
	Spawn bool `json:"spawn,omitempty"`
	// ModelOverride, when set, wins over configured models for this run.
	ModelOverride string `json:"model_override,omitempty"`
	// Streaming selects the provider's rich-event transport; it is not tied
	// to whether the application called Run or Stream.
	Streaming bool `json:"streaming,omitempty"`
}

// AgentIdentity identifies the agent a run belongs to.
type AgentIdentity struct {
	ID        string `json:"id,omitempty"`
	TenantID  string `json:"tenant_id,omitempty"`
	ProfileID string `json:"profile_id,omitempty"`
	Name      string `json:"name,omitempty"`
}

// WorkspaceLease is the working directory a run uses. CWD is the process
// directory; Fingerprint takes part in resume compatibility.
type WorkspaceLease struct {
	ID             string            `json:"id,omitempty"`
	Mode           string            `json:"mode,omitempty"`
	StrategyType   string            `json:"strategy_type,omitempty"`
	CWD            string            `json:"cwd,omitempty"`
	Fingerprint    string            `json:"fingerprint,omitempty"`
	Metadata       map[string]string `json:"metadata,omitempty"`
	InstructionsID string            `json:"instructions_id,omitempty"`
}

// RunPolicy is the resolved policy of a run.
type RunPolicy struct {
	Isolation     string              `json:"isolation,omitempty"`
	WebSearch     bool                `json:"web_search,omitempty"`
	Browser       bool                `json:"browser,omitempty"`
	HumanDecision HumanDecisionPolicy `json:"human_decision"`
	// ActiveExecutionTimeout bounds the run's active time; zero means none.
	ActiveExecutionTimeout time.Duration `json:"active_execution_timeout,omitempty"`
}

// OutputSchema describes a requested structured output.
type OutputSchema struct {
	Format      string `json:"format,omitempty"`
	SchemaJSON  []byte `json:"schema_json,omitempty"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	OnInvalid   string `json:"on_invalid,omitempty"`
}

// RuntimePayload is the set of runtime services resolved for a run.
type RuntimePayload struct {
	Services    []RuntimeServiceRef `json:"services,omitempty"`
	Fingerprint string              `json:"fingerprint,omitempty"`
}

// RuntimeServiceRef is one ensured runtime service endpoint.
type RuntimeServiceRef struct {
	ID       string            `json:"id,omitempty"`
	Name     string            `json:"name,omitempty"`
	URL      string            `json:"url,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}
