package driver

// ProfilePayload is the driver-facing desired profile state of one run.
//
// Fingerprint identifies the exact resolved desired state; a driver
// materializes exactly this payload on every run. SessionCompatibilityFingerprint
// identifies the same state with the host's ephemeral per-run allocations
// (endpoints, credential carriers) normalized away; resume and
// persistent-process guards use SessionFingerprint, so a per-run allocation
// does not break resume.
type ProfilePayload struct {
	Skills       ResolvedSkills         `json:"skills"`
	MCP          MCPPayload             `json:"mcp"`
	Instructions *InstructionsBundleRef `json:"instructions,omitempty"`

	Fingerprint                     string   `json:"fingerprint,omitempty"`
	SessionCompatibilityFingerprint string   `json:"session_compatibility_fingerprint,omitempty"`
	Warnings                        []string `json:"warnings,omitempty"`
}

// SessionFingerprint returns the fingerprint resume guards compare:
// SessionCompatibilityFingerprint when set, else Fingerprint.
func (p ProfilePayload) SessionFingerprint() string {
	if p.SessionCompatibilityFingerprint != "" {
		return p.SessionCompatibilityFingerprint
	}
	return p.Fingerprint
}

// MCPPayload is the validated, sorted MCP configuration of a run.
type MCPPayload struct {
	Servers     []MCPServerSpec `json:"servers,omitempty"`
	Fingerprint string          `json:"fingerprint,omitempty"`
	Warnings    []string        `json:"warnings,omitempty"`
}

// MCPServerSpec is one MCP server. Stdio servers use Command, Args and Env;
// HTTP and SSE servers use URL, Headers and BearerTokenEnvVar. Tools holds
// exact tool-name approval overrides ("prompt" or "approve"); keys are never
// prefixes or globs.
type MCPServerSpec struct {
	Key               string            `json:"key,omitempty"`
	Transport         string            `json:"transport,omitempty"`
	Command           string            `json:"command,omitempty"`
	Args              []string          `json:"args,omitempty"`
	Env               map[string]string `json:"env,omitempty"`
	URL               string            `json:"url,omitempty"`
	Headers           map[string]string `json:"headers,omitempty"`
	BearerTokenEnvVar string            `json:"bearer_token_env_var,omitempty"`
	Required          bool              `json:"required,omitempty"`
	Tools             map[string]string `json:"tools,omitempty"`
}

// InstructionsBundleRef points at host-supplied instructions: on disk
// (Path) or inline (Content). Scope is "", "user", "project", "local" or
// "run"; Mode is "" (additive) or "replace".
type InstructionsBundleRef struct {
	ID          string `json:"id,omitempty"`
	Path        string `json:"path,omitempty"`
	Content     string `json:"content,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Scope       string `json:"scope,omitempty"`
	Mode        string `json:"mode,omitempty"`
}
