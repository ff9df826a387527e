package adaptertest

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentwire/agentwire/driver"
)

// Option configures TestDriver and Verify.
type Option func(*suiteConfig)

type suiteConfig struct {
	cfg            any
	hasCfg         bool
	state          *driver.SessionState
	sessionKeys    []string
	guardKeys      []string
	rejectForeign  bool
	requiredFields []string
	expectedModel  string

	livePrompt   string
	live         bool
	skipLive     string
	liveOutput   *string
	liveTimeout  time.Duration
	editRequest  func(*driver.Request)
	resumePrompt string
	resume       bool
	cancelPrompt string
	cancelAfter  time.Duration
	cancel       bool
	cancelBound  time.Duration
}

// WithConfig passes cfg to every probe and to live requests.
func WithConfig(cfg any) Option {
	return func(c *suiteConfig) { c.cfg, c.hasCfg = cfg, true }
}

// WithSessionState seeds the SES clauses. The default state has ResumeID
// "adaptertest-session" and Data {"cwd": "/adaptertest"}.
func WithSessionState(s *driver.SessionState) Option {
	return func(c *suiteConfig) { c.state = s }
}

// WithSessionKeys names state keys that must survive the codec in both
// directions (SES-08); they must exist in the seed state.
func WithSessionKeys(keys ...string) Option {
	return func(c *suiteConfig) { c.sessionKeys = append(c.sessionKeys, keys...) }
}

// WithGuardKeys names state keys whose change must change the guard
// fingerprint (SES-06).
func WithGuardKeys(keys ...string) Option {
	return func(c *suiteConfig) { c.guardKeys = append(c.guardKeys, keys...) }
}

// ExpectRejectForeignConfig requires ValidateConfig to reject a config of a
// type the driver does not know (CFG-03).
func ExpectRejectForeignConfig() Option {
	return func(c *suiteConfig) { c.rejectForeign = true }
}

// WithRequiredConfigFields names fields the config schema must list (CAP-08).
func WithRequiredConfigFields(names ...string) Option {
	return func(c *suiteConfig) { c.requiredFields = append(c.requiredFields, names...) }
}

// WithExpectedDetectedModel requires ModelDetector to detect model (CAP-05).
func WithExpectedDetectedModel(model string) Option {
	return func(c *suiteConfig) { c.expectedModel = model }
}

// WithLiveRun enables the live clauses: the driver runs prompt (default
// "Reply with exactly: OK") and its stream, events and response are judged
// by every validator. Live runs call the real provider the driver spawns;
// keep them behind an explicit gate (an installed CLI against a mock
// server, an environment variable) so ordinary CI makes no paid calls.
func WithLiveRun(prompt string) Option {
	return func(c *suiteConfig) {
		if prompt == "" {
			prompt = "Reply with exactly: OK"
		}
		c.live, c.livePrompt = true, prompt
	}
}

// SkipLiveRun disables the live clauses with a reason; it wins over
// WithLiveRun.
func SkipLiveRun(reason string) Option {
	return func(c *suiteConfig) { c.skipLive = reason }
}

// WithLiveExpectedOutput requires the live Output, trimmed, to equal s
// (LIV-02). Without it the default prompt expects "OK" and a custom prompt
// expects nothing.
func WithLiveExpectedOutput(s string) Option {
	return func(c *suiteConfig) { c.liveOutput = &s }
}

// WithLiveRunTimeout bounds each live run (default 5 minutes).
func WithLiveRunTimeout(d time.Duration) Option {
	return func(c *suiteConfig) { c.liveTimeout = d }
}

// WithRequest edits every live request before it is run (workspace,
// metadata, model override...).
func WithRequest(edit func(*driver.Request)) Option {
	return func(c *suiteConfig) { c.editRequest = edit }
}

// WithResumeRun adds LIV-04: after the live run, a second run with prompt
// resumes the first run's checkpoint and must itself succeed with a valid
// checkpoint.
func WithResumeRun(prompt string) Option {
	return func(c *suiteConfig) { c.resume, c.resumePrompt = true, prompt }
}

// WithCancelRun adds LIV-05: a live run of prompt (one that keeps the
// provider busy) cancelled after d must return within bound (default 3 s)
// with every goroutine it started gone, a stream that passes the
// validators, and no valid checkpoint. Like every live probe it is a real
// run; SkipLiveRun disables it.
func WithCancelRun(prompt string, d, bound time.Duration) Option {
	return func(c *suiteConfig) { c.cancel, c.cancelPrompt, c.cancelAfter, c.cancelBound = true, prompt, d, bound }
}

// group is one subtest of the suite: it returns its violations, or a skip
// reason when the group does not apply.
type group struct {
	name string
	run  func(s *suite) (Violations, string)
}

var groups = []group{
	{"descriptor", (*suite).descriptor},
	{"config", (*suite).config},
	{"capability_declarations", (*suite).capabilities},
	{"optional_probes", (*suite).probes},
	{"session_codec", (*suite).sessionCodec},
	{"live_run", (*suite).liveRun},
	{"live_resume", (*suite).liveResume},
	{"live_cancel", (*suite).liveCancel},
}

type suite struct {
	factory func() driver.Driver
	c       suiteConfig
	d       driver.Driver
	// lastLive is the response of the live run, for the resume probe.
	lastLive *driver.Response
}

func newSuite(factory func() driver.Driver, opts []Option) *suite {
	s := &suite{factory: factory}
	s.c.state = &driver.SessionState{ResumeID: "adaptertest-session", Data: map[string]string{"cwd": "/adaptertest"}}
	s.c.liveTimeout = 5 * time.Minute
	s.c.cancelBound = 3 * time.Second
	for _, o := range opts {
		o(&s.c)
	}
	if s.c.cancelBound <= 0 {
		s.c.cancelBound = 3 * time.Second
	}
	return s
}

// TestDriver runs the conformance suite against the driver factory returns,
// one subtest per group in a fixed order: descriptor, config,
// capability_declarations, optional_probes, session_codec, live_run,
// live_resume, live_cancel. Groups that do not apply (an optional interface
// not implemented, live runs not enabled) are skipped with the reason. Each
// violation is reported as "<clause>: message"; the clause catalogue is in
// the package doc. factory is called several times: every instance must be
// equivalent.
func TestDriver(t *testing.T, factory func() driver.Driver, opts ...Option) {
	t.Helper()
	s := newSuite(factory, opts)
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			vs, skip := s.runGroup(g)
			if skip != "" {
				t.Skip(skip)
			}
			for i, v := range vs {
				if i == 25 {
					t.Errorf("... and %d more violations", len(vs)-25)
					break
				}
				t.Errorf("%s", v)
			}
		})
	}
}

// Verify runs the same suite as TestDriver without a *testing.T and returns
// every violation, with skipped groups' reasons keyed by group name. It is
// what agentwire's own tests use to prove each clause catches a broken
// driver.
func Verify(factory func() driver.Driver, opts ...Option) (Violations, map[string]string) {
	s := newSuite(factory, opts)
	var out Violations
	skipped := map[string]string{}
	for _, g := range groups {
		vs, skip := s.runGroup(g)
		if skip != "" {
			skipped[g.name] = skip
		}
		out = append(out, vs...)
	}
	return out, skipped
}

func (s *suite) runGroup(g group) (vs Violations, skip string) {
	defer func() {
		if r := recover(); r != nil {
			vs = append(vs, Violation{Clause: "DRV-01", Index: -1, Message: fmt.Sprintf("group %s panicked: %v", g.name, r)})
		}
	}()
	if s.d == nil && g.name != "descriptor" {
		if s.d = s.factory(); s.d == nil {
			return nil, "factory returned nil"
		}
	}
	return g.run(s)
}

func (s *suite) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

// ---- descriptor and config ----

func (s *suite) descriptor() (Violations, string) {
	var c collector
	s.d = s.factory()
	if s.d == nil {
		c.add("DRV-01", -1, "factory returned a nil driver")
		return c.out, ""
	}
	d1 := s.d.Descriptor()
	if d1.Type == "" || d1.DisplayName == "" {
		c.add("DRV-01", -1, "Descriptor Type %q and DisplayName %q must both be non-empty", d1.Type, d1.DisplayName)
	}
	if d2 := s.d.Descriptor(); !reflect.DeepEqual(d1, d2) {
		c.add("DRV-02", -1, "Descriptor differs between two calls")
	}
	if other := s.factory(); other != nil && !reflect.DeepEqual(d1, other.Descriptor()) {
		c.add("DRV-02", -1, "Descriptor differs between two instances from the factory")
	}
	return c.out, ""
}

type foreignConfig struct{ adaptertestForeign bool }

func (s *suite) config() (Violations, string) {
	var c collector
	func() {
		defer func() {
			if r := recover(); r != nil {
				c.add("CFG-01", -1, "ValidateConfig(nil) panicked: %v", r)
			}
		}()
		if err := s.d.ValidateConfig(nil); err != nil {
			c.add("CFG-01", -1, "ValidateConfig(nil) must validate the captured configuration: %v", err)
		}
	}()
	if s.c.hasCfg {
		if err := safeValidate(s.d, s.c.cfg); err != nil {
			c.add("CFG-02", -1, "the suite's configuration was rejected: %v", err)
		}
	}
	if s.c.rejectForeign {
		if err := safeValidate(s.d, foreignConfig{true}); err == nil {
			c.add("CFG-03", -1, "ValidateConfig accepted a foreign config type")
		}
	}
	return c.out, ""
}

func safeValidate(d driver.Driver, cfg any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return d.ValidateConfig(cfg)
}

// ---- capability declarations ----

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface, reflect.Chan:
		return rv.IsNil()
	}
	return false
}

func codecOf(d driver.Driver) (codec driver.SessionCodec, implemented bool, panicked any) {
	p, ok := d.(driver.SessionCodecProvider)
	if !ok {
		return nil, false, nil
	}
	defer func() {
		if r := recover(); r != nil {
			panicked = r
		}
	}()
	return p.SessionCodec(), true, nil
}

func (s *suite) capabilities() (Violations, string) {
	var c collector
	desc := s.d.Descriptor()
	codec, implemented, panicked := codecOf(s.d)
	switch {
	case panicked != nil:
		c.add("CAP-01", -1, "SessionCodec panicked: %v", panicked)
	case desc.Sessions.SupportsResume && (!implemented || isNil(codec)):
		c.add("CAP-01", -1, "SupportsResume is true but the driver has no non-nil SessionCodec")
	case !desc.Sessions.SupportsResume && implemented && !isNil(codec):
		c.add("CAP-01", -1, "a SessionCodec is provided although SupportsResume is false")
	}
	if desc.Sessions.SupportsResume && !isNil(codec) {
		if n1, n2 := codec.Name(), codec.Name(); n1 == "" || n1 != n2 {
			c.add("CAP-01", -1, "SessionCodec Name must be non-empty and stable")
		}
		other, _, _ := codecOf(s.factory())
		if !isNil(other) && other.Name() != codec.Name() {
			c.add("CAP-01", -1, "SessionCodec Name differs between instances (%q, %q)", codec.Name(), other.Name())
		}
		f, ok := s.d.(driver.SessionConfigFingerprinter)
		if !ok {
			c.add("CAP-01", -1, "a resume-capable driver must implement SessionConfigFingerprinter")
		} else {
			fp1, err1 := f.SessionConfigFingerprint()
			fp2, err2 := f.SessionConfigFingerprint()
			switch {
			case err1 != nil || err2 != nil:
				c.add("CAP-01", -1, "SessionConfigFingerprint failed: %v", cmpErr(err1, err2))
			case fp1 == "" || fp1 != fp2:
				c.add("CAP-01", -1, "SessionConfigFingerprint must be non-empty and stable")
			default:
				if of, ok := s.factory().(driver.SessionConfigFingerprinter); ok {
					if fp3, err := of.SessionConfigFingerprint(); err == nil && fp3 != fp1 {
						c.add("CAP-01", -1, "SessionConfigFingerprint differs between equivalent instances")
					}
				}
			}
		}
	}
	_, skills := s.d.(driver.SkillSupport)
	switch {
	case desc.Skills.Supported && !skills:
		c.add("CAP-02", -1, "Skills.Supported without implementing SkillSupport")
	case desc.Skills.Supported && desc.Skills.Mode != driver.SkillSyncEphemeral && desc.Skills.Mode != driver.SkillSyncPersistent:
		c.add("CAP-02", -1, "Skills.Supported with mode %q; want ephemeral or persistent", desc.Skills.Mode)
	case !desc.Skills.Supported && desc.Skills.Mode != "" && desc.Skills.Mode != driver.SkillSyncUnsupported:
		c.add("CAP-02", -1, "Skills unsupported but mode %q declared", desc.Skills.Mode)
	}
	if ss, ok := s.d.(driver.StreamSupport); ok {
		c1, c2 := ss.StreamCapability(), ss.StreamCapability()
		if c1 != c2 {
			c.add("CAP-10", -1, "StreamCapability differs between two calls")
		}
		if o, ok := s.factory().(driver.StreamSupport); ok && o.StreamCapability() != c1 {
			c.add("CAP-10", -1, "StreamCapability differs between instances")
		}
	}
	if _, ok := s.d.(driver.ProcessLifecycleDriver); desc.Process.Persistent && !ok {
		c.add("CAP-11", -1, "Process.Persistent without implementing ProcessLifecycleDriver")
	}
	so := desc.StructuredOutput
	mech := so.JSONSchemaNative || so.JSONSchemaPromptValidate
	if !mech && (so.WorksWithRun || so.WorksWithStreaming || so.WorksWithHITL) {
		c.add("SO-01", -1, "StructuredOutput WorksWith* declared without a mechanism")
	}
	if mech && !so.WorksWithRun {
		c.add("SO-01", -1, "a structured-output mechanism is declared without WorksWithRun")
	}
	return c.out, ""
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// ---- optional probes ----

func (s *suite) probes() (Violations, string) {
	var c collector
	ran := 0
	cfg := s.c.cfg
	typ := s.d.Descriptor().Type
	ctx, cancel := s.ctx()
	defer cancel()
	if p, ok := s.d.(driver.EnvironmentProbe); ok {
		ran++
		rep, err := p.CheckEnvironment(ctx, cfg)
		switch {
		case err != nil:
			c.add("CAP-03", -1, "CheckEnvironment failed: %v", err)
		default:
			if rep.DriverType != typ {
				c.add("CAP-03", -1, "EnvironmentReport DriverType %q, want %q", rep.DriverType, typ)
			}
			switch rep.Status {
			case driver.EnvironmentPass, driver.EnvironmentWarn, driver.EnvironmentFail:
			default:
				c.add("CAP-03", -1, "EnvironmentReport Status %q is not pass, warn or fail", rep.Status)
			}
			if rep.Healthy != (rep.Status == driver.EnvironmentPass) {
				c.add("CAP-03", -1, "EnvironmentReport Healthy=%v disagrees with Status %q", rep.Healthy, rep.Status)
			}
			for i, ch := range rep.Checks {
				if ch.Code == "" {
					c.add("CAP-03", -1, "environment check %d has no Code", i)
				}
			}
		}
	}
	if p, ok := s.d.(driver.ModelLister); ok {
		ran++
		models, err := p.ListModels(ctx, cfg)
		if err != nil {
			c.add("CAP-04", -1, "ListModels failed: %v", err)
		}
		for i, m := range models {
			if m.ID == "" {
				c.add("CAP-04", -1, "model %d has an empty ID", i)
			}
		}
	}
	if p, ok := s.d.(driver.ModelDetector); ok {
		ran++
		m, err := p.DetectModel(ctx, cfg, nil)
		switch {
		case err != nil:
			c.add("CAP-05", -1, "DetectModel failed: %v", err)
		case m != nil && m.Model == "":
			c.add("CAP-05", -1, "DetectModel returned an empty Model")
		case s.c.expectedModel != "" && (m == nil || m.Model != s.c.expectedModel):
			c.add("CAP-05", -1, "DetectModel did not detect %q", s.c.expectedModel)
		}
	}
	if p, ok := s.d.(driver.ProfileReporter); ok {
		ran++
		prof, err := p.GetProfile(ctx, cfg, driver.AgentIdentity{ID: "adaptertest"}, nil)
		switch {
		case err != nil:
			c.add("CAP-06", -1, "GetProfile failed: %v", err)
		case prof.DriverType != typ:
			c.add("CAP-06", -1, "AgentProfile DriverType %q, want %q", prof.DriverType, typ)
		case prof.Supported && (prof.Dir == "" || prof.Source == ""):
			c.add("CAP-06", -1, "a supported AgentProfile needs Dir and Source")
		}
	}
	if p, ok := s.d.(driver.QuotaProbe); ok {
		ran++
		q, err := p.GetQuota(ctx, cfg, nil)
		if err != nil {
			c.add("CAP-07", -1, "GetQuota failed: %v", err)
		} else {
			if q.DriverType != typ {
				c.add("CAP-07", -1, "QuotaReport DriverType %q, want %q", q.DriverType, typ)
			}
			for i, w := range q.Windows {
				if w.Label == "" {
					c.add("CAP-07", -1, "quota window %d has no Label", i)
				}
			}
		}
	}
	schema := s.d.Descriptor().ConfigSchema
	if p, ok := s.d.(driver.ConfigSchemaProvider); ok {
		var err error
		if schema, err = p.ConfigSchema(ctx, cfg); err != nil {
			c.add("CAP-08", -1, "ConfigSchema failed: %v", err)
		} else if schema == nil {
			c.add("CAP-08", -1, "ConfigSchemaProvider returned a nil schema")
		}
	}
	if schema != nil {
		ran++
		names := map[string]bool{}
		for i, f := range schema.Fields {
			if f.Name == "" {
				c.add("CAP-08", -1, "config field %d has no Name", i)
			} else if names[f.Name] {
				c.add("CAP-08", -1, "config field %q appears twice", f.Name)
			}
			names[f.Name] = true
		}
		for _, n := range s.c.requiredFields {
			if !names[n] {
				c.add("CAP-08", -1, "config schema lacks required field %q", n)
			}
		}
	} else if len(s.c.requiredFields) > 0 {
		c.add("CAP-08", -1, "required config fields named but the driver has no schema")
	}
	if p, ok := s.d.(driver.SkillSupport); ok {
		ran++
		snap, err := p.ListSkills(ctx, cfg, driver.ResolvedSkills{}, nil, nil, nil)
		switch {
		case err != nil:
			c.add("CAP-09", -1, "ListSkills failed: %v", err)
		case snap.DriverType != typ || len(snap.Selected) != 0:
			c.add("CAP-09", -1, "ListSkills on an empty catalogue: DriverType %q, %d selected", snap.DriverType, len(snap.Selected))
		}
	}
	if ran == 0 {
		return nil, "the driver implements none of the optional probe interfaces"
	}
	return c.out, ""
}

// ---- session codec ----

func (s *suite) sessionCodec() (vs Violations, skip string) {
	if !s.d.Descriptor().Sessions.SupportsResume {
		return nil, "the driver does not support resume"
	}
	codec, _, _ := codecOf(s.d)
	if isNil(codec) {
		return nil, "no codec (reported under CAP-01)"
	}
	var c collector
	defer func() {
		if r := recover(); r != nil {
			c.add("SES-07", -1, "codec panicked: %v", r)
			vs = c.out
		}
	}()
	if n := codec.Name(); n == "" || n != codec.Name() {
		c.add("SES-01", -1, "codec Name must be non-empty and stable")
	}
	if p := codec.ToParams(nil); !p.IsZero() {
		c.add("SES-02", -1, "ToParams(nil) = %+v, want the zero value", p)
	}
	if st := codec.FromParams(driver.SessionParams{}); st != nil {
		c.add("SES-02", -1, "FromParams(zero) = %+v, want nil", st)
	}
	seed := s.c.state
	params := codec.ToParams(seed)
	if params.ResumeID != seed.ResumeID {
		c.add("SES-03", -1, "ToParams changed ResumeID %q to %q", seed.ResumeID, params.ResumeID)
	}
	for k, v := range seed.Data {
		if params.Values[k] != v {
			c.add("SES-03", -1, "ToParams lost state key %q", k)
		}
	}
	if params.DisplayID == "" {
		c.add("SES-03", -1, "ToParams of a resumable state has no DisplayID")
	}
	if again := codec.ToParams(codec.FromParams(params)); !reflect.DeepEqual(again, params) {
		c.add("SES-04", -1, "params -> FromParams -> ToParams is not the identity")
	}
	g1 := codec.GuardFingerprint(params)
	if g1 == "" || g1 != codec.GuardFingerprint(params) || g1 != codec.GuardFingerprint(codec.ToParams(seed)) {
		c.add("SES-05", -1, "GuardFingerprint must be non-empty, stable and equal for equivalent params")
	}
	for _, k := range s.c.guardKeys {
		mutated := cloneState(seed)
		mutated.Data[k] += "-adaptertest-mutated"
		if codec.GuardFingerprint(codec.ToParams(mutated)) == g1 {
			c.add("SES-06", -1, "changing guard key %q does not change the guard", k)
		}
	}
	_ = codec.GuardFingerprint(driver.SessionParams{})
	_ = codec.FromParams(driver.SessionParams{Values: map[string]string{}})
	_ = codec.ToParams(&driver.SessionState{})
	for _, k := range s.c.sessionKeys {
		if _, ok := seed.Data[k]; !ok {
			c.add("SES-08", -1, "required key %q is not in the seed state (WithSessionState)", k)
			continue
		}
		back := codec.FromParams(params)
		if back == nil || back.Data[k] != seed.Data[k] {
			c.add("SES-08", -1, "required key %q does not survive the round trip", k)
		}
	}
	return c.out, ""
}

func cloneState(s *driver.SessionState) *driver.SessionState {
	out := &driver.SessionState{ResumeID: s.ResumeID, DisplayID: s.DisplayID, Data: map[string]string{}}
	for k, v := range s.Data {
		out.Data[k] = v
	}
	return out
}

// ---- live runs ----

func (s *suite) liveGate() string {
	switch {
	case s.c.skipLive != "":
		return s.c.skipLive
	case !s.c.live:
		return "live runs not enabled (WithLiveRun)"
	}
	return ""
}

func (s *suite) request(prompt string) driver.Request {
	_, streaming := s.d.(driver.StreamSupport)
	req := driver.Request{
		RunID:     "adaptertest-live",
		Prompt:    prompt,
		Config:    s.c.cfg,
		Streaming: streaming,
		Metadata:  map[string]string{"adaptertest": "v1"},
		ProfilePayload: driver.ProfilePayload{
			Fingerprint:                     "adaptertest-profile-concrete",
			SessionCompatibilityFingerprint: "adaptertest-profile-session",
		},
	}
	if s.c.editRequest != nil {
		s.c.editRequest(&req)
	}
	return req
}

// runLive runs req and judges everything it produced. clean says whether
// the run must have succeeded.
func (s *suite) runLive(ctx context.Context, req driver.Request, clean bool) (driver.Response, Violations, error) {
	var c collector
	sink := &RecordingSink{}
	resp, err := s.d.Run(ctx, req, sink)
	var capability driver.StreamCapability
	if ss, ok := s.d.(driver.StreamSupport); ok {
		capability = ss.StreamCapability()
	}
	codec, _, _ := codecOf(s.d)
	if isNil(codec) {
		codec = nil
	}
	vs := sink.Check(req.Streaming, capability, resp, err, codec)
	c.out = append(c.out, vs...)
	if clean {
		if err != nil || resp.ExitCode != 0 || resp.Signal != "" || resp.TimedOut || resp.Failure != nil {
			c.add("LIV-01", -1, "live run did not succeed: err=%v exit=%d signal=%q timed_out=%v failure=%v", err, resp.ExitCode, resp.Signal, resp.TimedOut, resp.Failure)
		}
		if s.d.Descriptor().Sessions.SupportsResume {
			if cp := resp.Checkpoint; cp == nil || !cp.Valid {
				c.add("LIV-03", -1, "a resume-capable driver's successful run left no valid checkpoint")
			} else if got := cp.State.Data[driver.ParamProfileFingerprint]; got != "" && got != req.ProfilePayload.SessionFingerprint() {
				c.add("SES-09", -1, "checkpoint profile_fingerprint %q is not ProfilePayload.SessionFingerprint() %q", got, req.ProfilePayload.SessionFingerprint())
			}
		}
	}
	return resp, c.out, err
}

func (s *suite) liveRun() (Violations, string) {
	if skip := s.liveGate(); skip != "" {
		return nil, skip
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.c.liveTimeout)
	defer cancel()
	resp, vs, _ := s.runLive(ctx, s.request(s.c.livePrompt), true)
	s.lastLive = &resp
	want := s.c.liveOutput
	if want == nil && s.c.livePrompt == "Reply with exactly: OK" {
		ok := "OK"
		want = &ok
	}
	if want != nil && strings.TrimSpace(resp.Output) != *want {
		vs = append(vs, Violation{Clause: "LIV-02", Index: -1, Message: fmt.Sprintf("Output %q, want %q", truncate(resp.Output), *want)})
	}
	return vs, ""
}

func (s *suite) liveResume() (Violations, string) {
	if skip := s.liveGate(); skip != "" {
		return nil, skip
	}
	if !s.c.resume {
		return nil, "resume probe not enabled (WithResumeRun)"
	}
	var c collector
	if s.lastLive == nil || s.lastLive.Checkpoint == nil || !s.lastLive.Checkpoint.Valid {
		c.add("LIV-04", -1, "the live run left no valid checkpoint to resume")
		return c.out, ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.c.liveTimeout)
	defer cancel()
	req := s.request(s.c.resumePrompt)
	req.Session = &driver.SessionContext{Mode: driver.SessionContinueOnly, State: s.lastLive.Checkpoint.State}
	resp, vs, err := s.runLive(ctx, req, true)
	c.out = append(c.out, vs...)
	if err != nil || resp.Checkpoint == nil || !resp.Checkpoint.Valid {
		c.add("LIV-04", -1, "the resumed run did not succeed with a valid checkpoint (err=%v)", err)
	}
	return c.out, ""
}

func (s *suite) liveCancel() (Violations, string) {
	if s.c.skipLive != "" {
		return nil, s.c.skipLive
	}
	if !s.c.cancel {
		return nil, "cancel probe not enabled (WithCancelRun)"
	}
	var c collector
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	var cancelledAt atomic.Int64
	timer := time.AfterFunc(s.c.cancelAfter, func() {
		cancelledAt.Store(time.Now().UnixNano())
		cancel()
	})
	resp, vs, _ := s.runLive(ctx, s.request(s.c.cancelPrompt), false)
	returned := time.Now()
	timer.Stop()
	cancel()
	c.out = append(c.out, vs...)
	if at := cancelledAt.Load(); at != 0 {
		if d := returned.Sub(time.Unix(0, at)); d > s.c.cancelBound {
			c.add("LIV-05", -1, "Run returned %v after the cancel, bound %v", d.Round(time.Millisecond), s.c.cancelBound)
		}
		if resp.Checkpoint != nil && resp.Checkpoint.Valid {
			c.add("LIV-05", -1, "a cancelled run left a valid checkpoint")
		}
	}
	deadline := time.Now().Add(s.c.cancelBound)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		c.add("LIV-05", -1, "%d goroutines still running after Run returned", n-before)
	}
	return c.out, ""
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
