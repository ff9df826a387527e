package driver

// Descriptor is a driver's static capability declaration. The host validates
// requests against it before launching the driver, and hosts use it to hide
// controls a driver cannot honour. Every field must be truthful: a declared
// capability the driver cannot deliver is a contract violation, and so is an
// undeclared one it relies on.
type Descriptor struct {
	// Type is the stable provider/driver identifier. Never empty.
	Type string `json:"type,omitempty"`
	// DisplayName is the human-readable driver name. Never empty.
	DisplayName string `json:"display_name,omitempty"`
	// Models lists statically known models; ModelLister may provide a live list.
	Models []ModelInfo `json:"models,omitempty"`
	// ConfigSchema is the static schema used when ConfigSchemaProvider is absent.
	ConfigSchema *ConfigSchema `json:"config_schema,omitempty"`
	// Sessions declares resume support and with it the SessionCodec requirement.
	Sessions SessionCapability `json:"sessions"`
	// Skills declares whether and how the driver consumes resolved skills.
	Skills SkillCapability `json:"skills"`
	// MCP declares the supported MCP transports.
	MCP MCPCapability `json:"mcp"`
	// Instructions declares explicit instruction-bundle support.
	Instructions InstructionsCapability `json:"instructions"`
	// Workspace declares support for host-resolved workspaces.
	Workspace WorkspaceCapability `json:"workspace"`
	// Process declares the provider process lifecycle.
	Process ProcessCapability `json:"process"`
	// RunPolicyCaps declares the policy dimensions the driver can enforce.
	RunPolicyCaps RunPolicyCapabilities `json:"run_policy_caps"`
	// Runtime declares runtime-service reporting support.
	Runtime RuntimeCapability `json:"runtime"`
	// StructuredOutput declares the supported structured-output mechanisms.
	StructuredOutput StructuredOutputCapability `json:"structured_output"`
}

// SessionCapability declares whether a driver can resume provider sessions.
// SupportsResume is true if and only if the driver implements
// SessionCodecProvider with a non-nil stable codec; it then also implements
// SessionConfigFingerprinter with a stable, non-empty identity.
type SessionCapability struct {
	SupportsResume bool `json:"supports_resume,omitempty"`
}

// SkillCapability declares whether a driver consumes resolved skills and
// whether its skill state is ephemeral per run or persistent in the profile.
// An unsupported driver declares no mode.
type SkillCapability struct {
	Supported bool          `json:"supported,omitempty"`
	Mode      SkillSyncMode `json:"mode,omitempty"`
}

// MCPCapability declares which MCP transports a driver supports and whether
// it honours per-tool approval overrides.
type MCPCapability struct {
	Supported     bool `json:"supported,omitempty"`
	Stdio         bool `json:"stdio,omitempty"`
	HTTP          bool `json:"http,omitempty"`
	SSE           bool `json:"sse,omitempty"`
	ToolApprovals bool `json:"tool_approvals,omitempty"`
}

// InstructionsCapability declares whether the driver accepts explicit
// instruction bundles in addition to the prompt.
type InstructionsCapability struct {
	Supported bool `json:"supported,omitempty"`
}

// WorkspaceCapability declares whether a driver honours host-resolved
// workspace leases.
type WorkspaceCapability struct {
	Supported bool `json:"supported,omitempty"`
}

// ProcessCapability declares provider-process lifecycle support. Persistent
// means one provider process may serve several turns of a thread; such a
// driver must implement ProcessLifecycleDriver. The host still requests a
// one-shot process with Request.Spawn.
type ProcessCapability struct {
	Persistent bool `json:"persistent,omitempty"`
}

// RuntimeCapability declares whether the driver reports runtime services it
// actually observed in Response.RuntimeServices.
type RuntimeCapability struct {
	ReportsServices bool `json:"reports_services,omitempty"`
}

// RunPolicyCapabilities declares which run-policy dimensions a driver can
// enforce, and per decision kind which modes it supports.
type RunPolicyCapabilities struct {
	Isolation  bool                 `json:"isolation,omitempty"`
	WebSearch  bool                 `json:"web_search,omitempty"`
	Browser    bool                 `json:"browser,omitempty"`
	Permission HumanDecisionSupport `json:"permission"`
	PlanReview HumanDecisionSupport `json:"plan_review"`
	Question   QuestionSupport      `json:"question"`
}

// HumanDecisionSupport declares the decision modes a driver supports for
// permission and plan-review decisions.
type HumanDecisionSupport struct {
	Ask         bool `json:"ask,omitempty"`
	AutoApprove bool `json:"auto_approve,omitempty"`
	AutoReject  bool `json:"auto_reject,omitempty"`
	Retry       bool `json:"retry,omitempty"`
}

// QuestionSupport declares the decision modes a driver supports for
// questions the agent asks the user. A question cannot be auto-approved.
type QuestionSupport struct {
	Ask        bool `json:"ask,omitempty"`
	AutoReject bool `json:"auto_reject,omitempty"`
	Retry      bool `json:"retry,omitempty"`
}

// StructuredOutputCapability is the truthful matrix of structured-output
// support. JSONSchemaNative means the driver passes a schema through an
// official provider surface and returns the provider-produced value;
// JSONSchemaPromptValidate means it accepts the host's exact-JSON prompt
// while the host validates locally. A WorksWith* field may be true only when
// at least one mechanism is declared, and a declared mechanism sets
// WorksWithRun. WorksWithStreaming applies when Request.Streaming selects the
// native streaming transport; WorksWithHITL when a decision mode is Ask.
type StructuredOutputCapability struct {
	JSONSchemaNative         bool `json:"json_schema_native,omitempty"`
	JSONSchemaPromptValidate bool `json:"json_schema_prompt_validate,omitempty"`

	WorksWithRun       bool `json:"works_with_run,omitempty"`
	WorksWithStreaming bool `json:"works_with_streaming,omitempty"`
	WorksWithHITL      bool `json:"works_with_hitl,omitempty"`

	Notes string `json:"notes,omitempty"`
}

// ConfigSchema describes the host-facing configuration of one bound driver,
// for settings UIs, CLIs and diagnostics. It does not change execution.
type ConfigSchema struct {
	Fields []ConfigField `json:"fields,omitempty"`
}

// ConfigOption is one selectable value of a ConfigField with Type "select".
// Value is the serialized config value; Label and Description are display
// hints only.
type ConfigOption struct {
	Value       string `json:"value,omitempty"`
	Label       string `json:"label,omitempty"`
	Description string `json:"description,omitempty"`
}

// ConfigField describes one configurable driver property. Type is one of
// "text", "textarea", "number", "toggle" or "select"; Options lists the
// values of a "select"; Group is a stable bucket such as "command", "model",
// "permissions" or "execution"; Meta holds UI hints that never change
// runtime semantics. Names are non-empty and unique within a schema.
type ConfigField struct {
	Name        string            `json:"name,omitempty"`
	Label       string            `json:"label,omitempty"`
	Type        string            `json:"type,omitempty"`
	Required    bool              `json:"required,omitempty"`
	Description string            `json:"description,omitempty"`
	Hint        string            `json:"hint,omitempty"`
	Default     any               `json:"default,omitempty"`
	Options     []ConfigOption    `json:"options,omitempty"`
	Group       string            `json:"group,omitempty"`
	Meta        map[string]string `json:"meta,omitempty"`
}

// ModelInfo is a model a driver can use. ID is the value accepted by the
// configuration and is never empty; Label is display text.
type ModelInfo struct {
	ID    string `json:"id,omitempty"`
	Label string `json:"label,omitempty"`
}
