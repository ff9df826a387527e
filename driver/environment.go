package driver

// DetectedModel is the effective model a ModelDetector inferred. Model is
// non-empty; Source names where the decision came from; Candidates lists the
// fallbacks considered.
type DetectedModel struct {
	Model      string   `json:"model,omitempty"`
	Provider   string   `json:"provider,omitempty"`
	Source     string   `json:"source,omitempty"`
	Candidates []string `json:"candidates,omitempty"`
}

// ProfileSelection is the host's profile request: Mode "" (driver default),
// "native", "dedicated" (use Dir) or "clone" (managed copy of From).
type ProfileSelection struct {
	Mode string `json:"mode,omitempty"`
	Dir  string `json:"dir,omitempty"`
	From string `json:"from,omitempty"`
}

// AgentProfile reports the effective local profile directory of a driver.
// When Supported, Dir and Source are non-empty. Source is one of
// "binding_env", "profile_option", "process_env", "default", "managed" or
// "unsupported".
type AgentProfile struct {
	DriverType string `json:"driver_type,omitempty"`
	Supported  bool   `json:"supported,omitempty"`
	Dir        string `json:"dir,omitempty"`
	EnvVar     string `json:"env_var,omitempty"`
	Source     string `json:"source,omitempty"`
	Managed    bool   `json:"managed,omitempty"`
	Error      string `json:"error,omitempty"`
}

// EnvironmentStatus is the highest severity among an EnvironmentReport's
// checks.
type EnvironmentStatus string

// The environment statuses.
const (
	EnvironmentPass EnvironmentStatus = "pass"
	EnvironmentWarn EnvironmentStatus = "warn"
	EnvironmentFail EnvironmentStatus = "fail"
)

// EnvironmentReport is a driver's preflight report. Healthy is true exactly
// when Status is EnvironmentPass; every check has a Code.
type EnvironmentReport struct {
	DriverType string             `json:"driver_type,omitempty"`
	Status     EnvironmentStatus  `json:"status,omitempty"`
	Healthy    bool               `json:"healthy,omitempty"`
	Summary    string             `json:"summary,omitempty"`
	Checks     []EnvironmentCheck `json:"checks,omitempty"`
}

// EnvironmentCheck is one preflight probe. Code is the stable identifier;
// Level is "pass", "warn" or "fail"; the rest is host-facing text.
type EnvironmentCheck struct {
	Code    string `json:"code,omitempty"`
	Level   string `json:"level,omitempty"`
	Message string `json:"message,omitempty"`
	Detail  string `json:"detail,omitempty"`
	Hint    string `json:"hint,omitempty"`
}

// QuotaReport is a driver's quota probe result. Window labels are non-empty.
type QuotaReport struct {
	DriverType string        `json:"driver_type,omitempty"`
	Provider   string        `json:"provider,omitempty"`
	Source     string        `json:"source,omitempty"`
	Available  bool          `json:"available,omitempty"`
	Error      string        `json:"error,omitempty"`
	Windows    []QuotaWindow `json:"windows,omitempty"`
}

// QuotaWindow is one quota, rate-limit or credit window.
type QuotaWindow struct {
	Label       string `json:"label,omitempty"`
	UsedPercent *int   `json:"used_percent,omitempty"`
	ResetsAt    string `json:"resets_at,omitempty"`
	ValueLabel  string `json:"value_label,omitempty"`
	Detail      string `json:"detail,omitempty"`
}
