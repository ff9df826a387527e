package driver

// SkillSyncMode says how a driver surfaces skills.
type SkillSyncMode string

// The skill modes.
const (
	SkillSyncUnsupported SkillSyncMode = "unsupported"
	SkillSyncEphemeral   SkillSyncMode = "ephemeral"
	SkillSyncPersistent  SkillSyncMode = "persistent"
)

// Skill describes one skill of the host catalogue. Key is compared
// case-sensitively; Source locates its material (a path or URL the host's
// materializer understands).
type Skill struct {
	Key      string            `json:"key,omitempty"`
	Source   string            `json:"source,omitempty"`
	Required bool              `json:"required,omitempty"`
	Reason   string            `json:"reason,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// ResolvedSkills is the driver's view of a run's selected, materialized
// skills. Fingerprint is a deterministic digest of Entries and Warnings.
type ResolvedSkills struct {
	Mode        SkillSyncMode   `json:"mode,omitempty"`
	Entries     []ResolvedSkill `json:"entries,omitempty"`
	Warnings    []string        `json:"warnings,omitempty"`
	Fingerprint string          `json:"fingerprint,omitempty"`
}

// Keys returns the keys of r.Entries in order.
func (r ResolvedSkills) Keys() []string {
	keys := make([]string, len(r.Entries))
	for i, e := range r.Entries {
		keys[i] = e.Key
	}
	return keys
}

// ResolvedSkill is one materialized skill.
type ResolvedSkill struct {
	Key         string            `json:"key,omitempty"`
	RuntimeName string            `json:"runtime_name,omitempty"`
	SourcePath  string            `json:"source_path,omitempty"`
	Required    bool              `json:"required,omitempty"`
	Reason      string            `json:"reason,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
}

// SkillSnapshot is a skill inspection or synchronization report. Resolved is
// the complete catalogue the host passed in, never silently shortened.
type SkillSnapshot struct {
	DriverType  string          `json:"driver_type,omitempty"`
	Supported   bool            `json:"supported,omitempty"`
	Mode        SkillSyncMode   `json:"mode,omitempty"`
	Selected    []string        `json:"selected,omitempty"`
	Resolved    []Skill         `json:"resolved,omitempty"`
	Entries     []SnapshotEntry `json:"entries,omitempty"`
	Warnings    []string        `json:"warnings,omitempty"`
	Fingerprint string          `json:"fingerprint,omitempty"`
}

// SnapshotEntry is the observed state of one skill. State is one of
// "available", "configured", "installed", "missing", "stale", "external".
type SnapshotEntry struct {
	Key        string `json:"key,omitempty"`
	Selected   bool   `json:"selected,omitempty"`
	Managed    bool   `json:"managed,omitempty"`
	Required   bool   `json:"required,omitempty"`
	State      string `json:"state,omitempty"`
	SourcePath string `json:"source_path,omitempty"`
	TargetPath string `json:"target_path,omitempty"`
	Detail     string `json:"detail,omitempty"`
}
