package adaptertest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentwire/agentwire/driver"
)

// refDriver is an in-memory driver that honours every clause. Each field of
// breaks switches one deliberate defect on, so that every TestDriver clause
// can be shown to catch a driver that breaks it.
type refDriver struct {
	cfg    refConfig
	breaks map[string]bool
	calls  *atomic.Int64 // shared across instances of one factory
}

type refConfig struct{ Model string }

func (d *refDriver) broken(clause string) bool { return d.breaks[clause] }

func (d *refDriver) Descriptor() driver.Descriptor {
	desc := driver.Descriptor{
		Type: "ref", DisplayName: "Reference",
		Models:           []driver.ModelInfo{{ID: "m-1"}},
		Sessions:         driver.SessionCapability{SupportsResume: true},
		Skills:           driver.SkillCapability{Supported: true, Mode: driver.SkillSyncEphemeral},
		StructuredOutput: driver.StructuredOutputCapability{JSONSchemaPromptValidate: true, WorksWithRun: true},
	}
	switch {
	case d.broken("DRV-01"):
		desc.DisplayName = ""
	case d.broken("DRV-02"):
		desc.Models = append(desc.Models, driver.ModelInfo{ID: "m-" + strings.Repeat("x", int(d.calls.Add(1)))})
	case d.broken("CAP-02"):
		desc.Skills.Mode = "sometimes"
	case d.broken("CAP-11"):
		desc.Process.Persistent = true
	case d.broken("SO-01"):
		desc.StructuredOutput = driver.StructuredOutputCapability{WorksWithStreaming: true}
	case d.broken("CAP-01"):
		desc.Sessions.SupportsResume = false // yet a codec is provided
	}
	return desc
}

func (d *refDriver) ValidateConfig(cfg any) error {
	switch c := cfg.(type) {
	case nil:
		if d.broken("CFG-01") {
			return errors.New("nil config")
		}
		return nil
	case refConfig:
		if d.broken("CFG-02") || c.Model == "" {
			return errors.New("model required")
		}
		return nil
	default:
		if d.broken("CFG-03") {
			return nil
		}
		return errors.New("unknown config type")
	}
}

func (d *refDriver) StreamCapability() driver.StreamCapability {
	c := driver.StreamCapability{Native: true, TokenLevel: true, Reasoning: true}
	if d.broken("CAP-10") && d.calls.Add(1)%2 == 0 {
		c.HITL = true
	}
	return c
}

func (d *refDriver) SessionCodec() driver.SessionCodec { return &refCodec{breaks: d.breaks} }

func (d *refDriver) SessionConfigFingerprint() (string, error) {
	return driver.CanonicalConfigFingerprint("ref/v1", d.cfg)
}

func (d *refDriver) CheckEnvironment(context.Context, any) (driver.EnvironmentReport, error) {
	r := driver.EnvironmentReport{DriverType: "ref", Status: driver.EnvironmentPass, Healthy: true, Checks: []driver.EnvironmentCheck{{Code: "cli", Level: "pass"}}}
	if d.broken("CAP-03") {
		r.Healthy = false
	}
	return r, nil
}

func (d *refDriver) ListModels(context.Context, any) ([]driver.ModelInfo, error) {
	if d.broken("CAP-04") {
		return []driver.ModelInfo{{Label: "no id"}}, nil
	}
	return []driver.ModelInfo{{ID: "m-1"}}, nil
}

func (d *refDriver) DetectModel(context.Context, any, *driver.ProfileSelection) (*driver.DetectedModel, error) {
	if d.broken("CAP-05") {
		return &driver.DetectedModel{}, nil
	}
	return &driver.DetectedModel{Model: "m-1", Source: "config"}, nil
}

func (d *refDriver) GetProfile(context.Context, any, driver.AgentIdentity, *driver.ProfileSelection) (driver.AgentProfile, error) {
	p := driver.AgentProfile{DriverType: "ref", Supported: true, Dir: "/home/ref", Source: "default"}
	if d.broken("CAP-06") {
		p.Dir = ""
	}
	return p, nil
}

func (d *refDriver) GetQuota(context.Context, any, *driver.ProfileSelection) (driver.QuotaReport, error) {
	q := driver.QuotaReport{DriverType: "ref", Windows: []driver.QuotaWindow{{Label: "5h"}}}
	if d.broken("CAP-07") {
		q.Windows[0].Label = ""
	}
	return q, nil
}

func (d *refDriver) ConfigSchema(context.Context, any) (*driver.ConfigSchema, error) {
	s := &driver.ConfigSchema{Fields: []driver.ConfigField{{Name: "model", Type: "text", Required: true}}}
	if d.broken("CAP-08") {
		s.Fields = append(s.Fields, driver.ConfigField{Name: "model"})
	}
	return s, nil
}

func (d *refDriver) ListSkills(_ context.Context, _ any, _ driver.ResolvedSkills, selected []string, resolved []driver.Skill, _ *driver.ProfileSelection) (driver.SkillSnapshot, error) {
	snap := driver.SkillSnapshot{DriverType: "ref", Supported: true, Mode: driver.SkillSyncEphemeral, Selected: selected, Resolved: resolved}
	if d.broken("CAP-09") {
		snap.DriverType = "other"
	}
	return snap, nil
}

func (d *refDriver) InjectSkills(context.Context, any, driver.ResolvedSkills, *driver.ProfileSelection) error {
	return nil
}

func (d *refDriver) SyncSkills(ctx context.Context, cfg any, p driver.ResolvedSkills, selected []string, resolved []driver.Skill, prof *driver.ProfileSelection) (driver.SkillSnapshot, error) {
	return d.ListSkills(ctx, cfg, p, selected, resolved, prof)
}

// Run emits a braced stream and a mirrored transcript; "slow" prompts wait
// for ctx; a resumed run checks that it got the previous state.
func (d *refDriver) Run(ctx context.Context, req driver.Request, sink driver.EventSink) (driver.Response, error) {
	emitItem := func(resp *driver.Response, it driver.TranscriptItem) error {
		resp.Transcript = append(resp.Transcript, it)
		return sink.Emit(driver.RunEvent{Type: driver.RunEventItem, Item: &it})
	}
	stdout := `{"type":"result","session_id":"sess-1"}` + "\n"
	var resp driver.Response
	if err := sink.Emit(driver.RunEvent{Type: driver.RunEventChunk, Stream: driver.StreamStdout, Bytes: []byte(stdout)}); err != nil {
		return resp, err
	}
	stream := func(p driver.StreamPayload) {
		if req.Streaming {
			_ = sink.EmitStream(p)
		}
	}
	stream(driver.StreamPayload{Kind: driver.StreamRunStarted})
	if req.Prompt == "slow" {
		if d.broken("LIV-05") {
			go func() { time.Sleep(10 * time.Second) }() // a goroutine left behind
			time.Sleep(4 * time.Second)                  // and ctx ignored
		}
		<-ctx.Done()
		f := &driver.RunFailure{Code: driver.FailureCancelled, Message: "cancelled"}
		stream(driver.StreamPayload{Kind: driver.StreamRunError, Error: f})
		resp.Failure = f
		resp.ExitCode = 130
		resp.RawStreams = &driver.RawStreams{Stdout: stdout}
		return resp, nil
	}
	if req.Session != nil && (req.Session.State == nil || req.Session.State.ResumeID != "sess-1") {
		return resp, errors.New("resume: no state")
	}
	if d.broken("LIV-04") && req.Session != nil {
		return resp, errors.New("resume is broken")
	}
	stream(driver.StreamPayload{Kind: driver.StreamTextStart, MessageID: "m1"})
	stream(driver.StreamPayload{Kind: driver.StreamTextContent, MessageID: "m1", Delta: "OK"})
	stream(driver.StreamPayload{Kind: driver.StreamTextEnd, MessageID: "m1"})
	stream(driver.StreamPayload{Kind: driver.StreamRunFinished})
	if d.broken("EVT-02") {
		stream(driver.StreamPayload{Kind: driver.StreamTextStart, MessageID: "late"})
	}
	if err := emitItem(&resp, driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "OK"}); err != nil {
		return resp, err
	}
	resp.Output = "OK"
	if d.broken("LIV-02") {
		resp.Output = "not ok"
	}
	if d.broken("LIV-01") {
		resp.ExitCode = 1
	}
	resp.RawStreams = &driver.RawStreams{Stdout: stdout, Terminal: &driver.TerminalPayload{Event: "result", JSON: json.RawMessage(strings.TrimSpace(stdout))}}
	profile := req.ProfilePayload.SessionFingerprint()
	if d.broken("SES-09") {
		profile = req.ProfilePayload.Fingerprint
	}
	if !d.broken("LIV-03") && !d.broken("LIV-01") {
		resp.Checkpoint = &driver.Checkpoint{Valid: true, State: &driver.SessionState{ResumeID: "sess-1", Data: map[string]string{"cwd": "/adaptertest", driver.ParamProfileFingerprint: profile}}}
	}
	return resp, nil
}

// refCodec maps state to params; breaks switch on its defects.
type refCodec struct{ breaks map[string]bool }

func (c *refCodec) Name() string {
	if c.breaks["SES-01"] {
		return ""
	}
	return "ref"
}

func (c *refCodec) ToParams(s *driver.SessionState) driver.SessionParams {
	if s == nil {
		if c.breaks["SES-07"] {
			panic("nil state")
		}
		if c.breaks["SES-02"] {
			return driver.SessionParams{DisplayID: "none"}
		}
		return driver.SessionParams{}
	}
	p := driver.SessionParams{ResumeID: s.ResumeID, DisplayID: s.DisplayID, Values: map[string]string{}}
	if p.DisplayID == "" && !c.breaks["SES-03"] {
		p.DisplayID = s.ResumeID
	}
	for k, v := range s.Data {
		p.Values[k] = v
	}
	return p
}

func (c *refCodec) FromParams(p driver.SessionParams) *driver.SessionState {
	if p.IsZero() {
		return nil
	}
	s := &driver.SessionState{ResumeID: p.ResumeID, DisplayID: p.DisplayID, Data: map[string]string{}}
	for k, v := range p.Values {
		if c.breaks["SES-08"] && k == "cwd" {
			continue
		}
		s.Data[k] = v
	}
	if c.breaks["SES-04"] {
		s.DisplayID += "!"
	}
	return s
}

var guardCounter atomic.Int64

func (c *refCodec) GuardFingerprint(p driver.SessionParams) string {
	if c.breaks["SES-05"] {
		return "g" + strings.Repeat("x", int(guardCounter.Add(1)))
	}
	if c.breaks["SES-06"] {
		return "constant"
	}
	fp, _ := driver.CanonicalConfigFingerprint("ref-guard", p.Values["cwd"])
	return fp
}

func refFactory(breaks ...string) func() driver.Driver {
	set := map[string]bool{}
	for _, b := range breaks {
		set[b] = true
	}
	calls := &atomic.Int64{}
	return func() driver.Driver {
		return &refDriver{cfg: refConfig{Model: "m-1"}, breaks: set, calls: calls}
	}
}

func fullOptions() []Option {
	return []Option{
		WithConfig(refConfig{Model: "m-1"}),
		ExpectRejectForeignConfig(),
		WithSessionState(&driver.SessionState{ResumeID: "s", Data: map[string]string{"cwd": "/repo"}}),
		WithSessionKeys("cwd"),
		WithGuardKeys("cwd"),
		WithRequiredConfigFields("model"),
		WithExpectedDetectedModel("m-1"),
		WithLiveRun(""),
		WithResumeRun("again"),
		WithLiveRunTimeout(10 * time.Second),
		WithRequest(func(r *driver.Request) { r.Metadata["case"] = "ref" }),
	}
}

// TestReferenceDriverConformance is TestDriver as a driver author runs it.
func TestReferenceDriverConformance(t *testing.T) {
	TestDriver(t, refFactory(), fullOptions()...)
}

func TestReferenceDriverCancel(t *testing.T) {
	vs, skipped := Verify(refFactory(), append(fullOptions(), WithCancelRun("slow", 50*time.Millisecond, 2*time.Second))...)
	if len(vs) != 0 {
		t.Errorf("false positive:\n%s", vs)
	}
	if len(skipped) != 0 {
		t.Fatalf("groups skipped: %v", skipped)
	}
}

// suiteClauses are the driver-level clauses, each caught by a broken
// reference driver below (LIV-05 in its own subtest).
var suiteClauses = []string{"DRV-01", "DRV-02", "CFG-01", "CFG-02", "CFG-03", "CAP-01", "CAP-02", "CAP-03", "CAP-04", "CAP-05", "CAP-06", "CAP-07", "CAP-08", "CAP-09", "CAP-10", "CAP-11", "SO-01",
	"SES-01", "SES-02", "SES-03", "SES-04", "SES-05", "SES-06", "SES-07", "SES-08", "SES-09", "LIV-01", "LIV-02", "LIV-03", "LIV-04", "EVT-02"}

// TestSuiteClauses proves every driver-level clause catches a driver that
// breaks it, and that the reference driver passes it.
func TestSuiteClauses(t *testing.T) {
	base, skipped := Verify(refFactory(), fullOptions()...)
	if len(base) != 0 {
		t.Fatalf("reference driver fails the suite:\n%s", base)
	}
	if len(skipped) != 1 || skipped["live_cancel"] == "" {
		t.Fatalf("unexpected skips: %v", skipped)
	}
	clauses := suiteClauses
	for _, clause := range clauses {
		t.Run(clause+"/caught/broken_driver", func(t *testing.T) {
			vs, _ := Verify(refFactory(clause), fullOptions()...)
			if !vs.Has(clause) {
				t.Fatalf("%s not reported for a driver that breaks it; got:\n%s", clause, vs)
			}
		})
	}
	t.Run("LIV-05/caught/broken_driver", func(t *testing.T) {
		if testing.Short() {
			t.Skip("waits for a driver that ignores cancellation")
		}
		vs, _ := Verify(refFactory("LIV-05"), WithCancelRun("slow", 20*time.Millisecond, time.Second))
		if !vs.Has("LIV-05") {
			t.Fatalf("LIV-05 not reported; got:\n%s", vs)
		}
	})
}

func TestSuiteEdges(t *testing.T) {
	vs, _ := Verify(func() driver.Driver { return nil })
	if !vs.Has("DRV-01") {
		t.Errorf("nil factory: %s", vs)
	}
	// Without options, only hermetic groups run and the live ones skip.
	vs, skipped := Verify(refFactory())
	if len(vs) != 0 || skipped["live_run"] == "" {
		t.Errorf("defaults: %s %v", vs, skipped)
	}
	_, skipped = Verify(refFactory(), WithLiveRun(""), SkipLiveRun("no CLI"))
	if skipped["live_run"] != "no CLI" {
		t.Errorf("SkipLiveRun: %v", skipped)
	}
	// A driver without optional interfaces skips the probes and the codec.
	_, skipped = Verify(func() driver.Driver { return minimal{} })
	if skipped["optional_probes"] == "" || skipped["session_codec"] == "" {
		t.Errorf("minimal driver skips: %v", skipped)
	}
	// A panicking driver is reported, not crashed on.
	vs, _ = Verify(func() driver.Driver { return panicky{} })
	if !vs.Has("CFG-01") {
		t.Errorf("panicking ValidateConfig: %s", vs)
	}
	vs, _ = Verify(refFactory(), WithRequiredConfigFields("missing"))
	if !vs.Has("CAP-08") {
		t.Errorf("missing required field: %s", vs)
	}
	vs, _ = Verify(refFactory(), WithSessionKeys("absent"))
	if !vs.Has("SES-08") {
		t.Errorf("session key absent from seed: %s", vs)
	}
	vs, _ = Verify(refFactory(), WithExpectedDetectedModel("other"))
	if !vs.Has("CAP-05") {
		t.Errorf("expected model: %s", vs)
	}
	vs, _ = Verify(refFactory("LIV-03"), WithLiveRun(""), WithResumeRun("x"))
	if !vs.Has("LIV-04") {
		t.Errorf("resume without checkpoint: %s", vs)
	}
}

type minimal struct{}

func (minimal) Descriptor() driver.Descriptor {
	return driver.Descriptor{Type: "min", DisplayName: "Min"}
}
func (minimal) ValidateConfig(any) error { return nil }
func (minimal) Run(context.Context, driver.Request, driver.EventSink) (driver.Response, error) {
	return driver.Response{}, nil
}

type panicky struct{ minimal }

func (panicky) ValidateConfig(any) error { panic("boom") }
