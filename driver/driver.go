package driver

import "context"

// Driver is the SPI implemented by every agent integration. The host owns
// option merging, thread coordination, workspace, runtime and skill
// resolution, and result archiving; the driver owns provider-specific
// validation, process or protocol execution, transcript parsing and
// checkpoint extraction.
type Driver interface {
	// Descriptor returns the static capability declaration. It must be
	// deterministic: equal across calls and across instances built from the
	// same configuration.
	Descriptor() Descriptor
	// ValidateConfig validates the driver's construction-time configuration.
	// A configured driver interprets nil as "validate the captured
	// configuration", never as a missing configuration, and must not panic on
	// it.
	ValidateConfig(cfg any) error
	// Run executes exactly one resolved invocation.
	//
	// When req.Streaming is true, payloads sent through sink.EmitStream obey
	// the lifecycle documented on StreamKind. Every RunEventItem emitted
	// through sink.Emit must mirror Response.Transcript in order. Run applies
	// the complete current Request on every invocation, resumed
	// conversations included. Before returning, Run waits for every reader,
	// parser, stderr collector and notification goroutine; it never calls the
	// sink after returning. A non-nil error is an infrastructure or
	// execution error and invalidates any Checkpoint marked Valid.
	Run(ctx context.Context, req Request, sink EventSink) (Response, error)
}

// EventSink is the per-run event surface a driver writes into while it runs.
// Emit carries operational RunEvent values and transcript items; EmitStream
// carries normalized StreamPayload values. Both feed one public event stream
// in call order.
//
// A driver must not retain the sink after Run returns, must not close it, and
// must treat an error from either method as a signal to stop (it may mean the
// run was cancelled). Drivers leave StreamPayload.Sequence, Seq and Timestamp
// and RunEvent.Seq at zero: the host assigns them in receive order.
//
// What a driver hands the sink is read-only, the maps and slices inside
// included (Args, Result, Raw, Input, Data, Metadata, ...): a driver may
// hand the same value to several payloads and items (a tool call's Args is
// also its transcript item's Input; identical consecutive lines may share
// one decoded Raw; an item is the transcript's own element), so a sink
// that needs to change one copies it first.
type EventSink interface {
	// Emit publishes a RunEvent.
	Emit(event RunEvent) error
	// EmitStream publishes a normalized StreamPayload. When the resolved
	// transport is not streaming the sink may discard it.
	EmitStream(payload StreamPayload) error
}

// DecisionCapableSink is an EventSink that can block for a host decision.
// A driver that must wait for a human approval, plan review or answer
// type-asserts its sink to this interface and calls RequestDecision; it never
// opens a second channel to the host. The host fills the request id, times
// and retry attempt, enforces the approval policy and emits the public
// request event itself. A non-nil error means the decision was aborted.
type DecisionCapableSink interface {
	EventSink
	RequestDecision(ctx context.Context, req DecisionRequest) (DecisionResponse, error)
}

// StreamSupport is implemented by drivers that produce normalized
// StreamPayload values. The returned StreamCapability must be deterministic
// (adaptertest clause CAP-10). It describes provider-transport fidelity only;
// it is not a remote-transport (A2A) capability.
type StreamSupport interface {
	StreamCapability() StreamCapability
}

// ProcessLifecycleDriver is required of every driver whose
// Descriptor.Process.Persistent is true. CloseProcesses is idempotent, stops
// every process the configured driver owns (child process groups included)
// and treats ctx as a hard upper bound.
type ProcessLifecycleDriver interface {
	CloseProcesses(ctx context.Context) error
}

// EnvironmentProbe is implemented by drivers that can check local CLIs, auth
// files and profile directories before a run. Problems are reported in the
// EnvironmentReport; the error is for a probe that could not run at all.
type EnvironmentProbe interface {
	CheckEnvironment(ctx context.Context, cfg any) (EnvironmentReport, error)
}

// ModelLister is implemented by drivers that can list visible models.
type ModelLister interface {
	ListModels(ctx context.Context, cfg any) ([]ModelInfo, error)
}

// ModelDetector is implemented by drivers that can infer the effective model
// from configuration files, CLI defaults, profile state or cfg.
type ModelDetector interface {
	DetectModel(ctx context.Context, cfg any, profile *ProfileSelection) (*DetectedModel, error)
}

// ProfileReporter reports the effective local profile directory a driver
// uses for auth, config, MCP and skills (CODEX_HOME, CLAUDE_CONFIG_DIR, ...).
type ProfileReporter interface {
	GetProfile(ctx context.Context, cfg any, agent AgentIdentity, profile *ProfileSelection) (AgentProfile, error)
}

// SessionCodecProvider exposes the session mapping used for resume. A driver
// implements it with a non-nil (and not typed-nil) codec if and only if
// Descriptor.Sessions.SupportsResume is true; such a driver must also
// implement SessionConfigFingerprinter.
type SessionCodecProvider interface {
	SessionCodec() SessionCodec
}

// SessionConfigFingerprinter returns a stable, non-empty, cross-process
// deterministic identity of the driver's construction configuration. It
// covers every provider-visible construction value and the codec version; a
// value that cannot be expressed stably is an error, never silently omitted.
// CanonicalConfigFingerprint implements the encoding.
type SessionConfigFingerprinter interface {
	SessionConfigFingerprint() (string, error)
}

// ConfigSchemaProvider exposes a runtime-hydrated configuration schema.
type ConfigSchemaProvider interface {
	ConfigSchema(ctx context.Context, cfg any) (*ConfigSchema, error)
}

// QuotaProbe exposes provider quota or credit windows where the CLI or its
// local auth files support a probe.
type QuotaProbe interface {
	GetQuota(ctx context.Context, cfg any, profile *ProfileSelection) (QuotaReport, error)
}

// SkillSupport is implemented by skill-capable drivers.
//
// ListSkills reports a read-only snapshot; selected equals payload.Keys() and
// resolved is the full merged catalogue, which the driver passes through to
// SkillSnapshot.Resolved without dropping entries. InjectSkills runs once per
// invocation after skill resolution and before the driver starts, and stays
// non-destructive. SyncSkills reconciles the provider layout with the
// selected set.
type SkillSupport interface {
	ListSkills(ctx context.Context, cfg any, payload ResolvedSkills, selected []string, resolved []Skill, profile *ProfileSelection) (SkillSnapshot, error)
	InjectSkills(ctx context.Context, cfg any, payload ResolvedSkills, profile *ProfileSelection) error
	SyncSkills(ctx context.Context, cfg any, payload ResolvedSkills, selected []string, resolved []Skill, profile *ProfileSelection) (SkillSnapshot, error)
}
