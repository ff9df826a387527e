package driver

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// wireTypes are the data types whose JSON encoding is agentwire's wire form.
var wireTypes = []any{
	Descriptor{}, SessionCapability{}, SkillCapability{}, MCPCapability{},
	InstructionsCapability{}, WorkspaceCapability{}, ProcessCapability{},
	RuntimeCapability{}, RunPolicyCapabilities{}, HumanDecisionSupport{},
	QuestionSupport{}, StructuredOutputCapability{}, ConfigSchema{},
	ConfigOption{}, ConfigField{}, ModelInfo{},
	StreamCapability{}, StreamPayload{}, RunEvent{}, TranscriptItem{},
	Response{}, RawStreams{}, TerminalPayload{}, Usage{}, StructuredOutput{},
	RuntimeServiceReport{}, Checkpoint{}, SessionState{}, SessionParams{},
	SessionContext{}, RunFailure{}, HumanDecisionFailure{},
	HumanDecisionPolicy{}, DecisionChoice{}, DecisionRequest{},
	DecisionResponse{}, HITLRequestedPayload{}, HITLResolvedPayload{},
	Request{}, AgentIdentity{}, WorkspaceLease{}, RunPolicy{}, OutputSchema{},
	RuntimePayload{}, RuntimeServiceRef{}, DetectedModel{}, ProfileSelection{},
	AgentProfile{}, EnvironmentReport{}, EnvironmentCheck{}, QuotaReport{},
	QuotaWindow{}, Skill{}, ResolvedSkills{}, ResolvedSkill{}, SkillSnapshot{},
	SnapshotEntry{}, ProfilePayload{}, MCPPayload{}, MCPServerSpec{},
	InstructionsBundleRef{},
}

// TestWireFormTags pins the wire form: every exported field has a
// snake_case JSON name, and scalar, slice, map and pointer fields are
// omitempty (or omitzero for times) so a golden shows only what was set.
func TestWireFormTags(t *testing.T) {
	for _, v := range wireTypes {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			f := typ.Field(i)
			tag, ok := f.Tag.Lookup("json")
			if !ok {
				t.Errorf("%s.%s has no json tag", typ.Name(), f.Name)
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue // Request.Config is opaque to the wire
			}
			if !snakeCase.MatchString(name) {
				t.Errorf("%s.%s json name %q is not snake_case", typ.Name(), f.Name, name)
			}
			required := name == "kind" || name == "type" || f.Type.Kind() == reflect.Struct
			if !required && !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
				t.Errorf("%s.%s json tag %q lacks omitempty", typ.Name(), f.Name, tag)
			}
		}
	}
}

func TestWireFormRoundTrip(t *testing.T) {
	cost := 0.25
	resp := Response{
		Output:     "hi",
		RawStreams: &RawStreams{Stdout: "{}\n", Terminal: &TerminalPayload{Event: "result", JSON: json.RawMessage(`{"a":1}`)}},
		Transcript: []TranscriptItem{{Kind: TranscriptResult, CostUSD: &cost, Usage: &Usage{InputTokens: 3}}},
		Checkpoint: &Checkpoint{Valid: true, State: &SessionState{ResumeID: "s"}},
	}
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"output":"hi","raw_streams":{"stdout":"{}\n","terminal":{"event":"result","json":{"a":1}}},"transcript":[{"kind":"result","usage":{"input_tokens":3},"cost_usd":0.25}],"checkpoint":{"state":{"resume_id":"s"},"valid":true}}`
	if string(b) != want {
		t.Errorf("wire form:\n got %s\nwant %s", b, want)
	}
	var back Response
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, resp) {
		t.Errorf("round trip mismatch: %+v", back)
	}
}

func TestStreamKinds(t *testing.T) {
	if len(StreamKinds) != 18 {
		t.Fatalf("len(StreamKinds) = %d, want the 18 kinds of the contract table", len(StreamKinds))
	}
	seen := map[StreamKind]bool{}
	for _, k := range StreamKinds {
		if !k.IsCanonical() || k.IsCustom() || seen[k] {
			t.Errorf("kind %q: canonical=%v custom=%v dup=%v", k, k.IsCanonical(), k.IsCustom(), seen[k])
		}
		seen[k] = true
	}
	if k := CustomKind("codex", "todo_list"); k != "codex/todo_list" || !k.IsCustom() || k.IsCanonical() {
		t.Errorf("CustomKind = %q", k)
	}
	for _, bad := range []StreamKind{"", "/x", "x/", "plain"} {
		if bad.IsCustom() {
			t.Errorf("%q must not be a custom kind", bad)
		}
	}
	if !StreamRunError.IsTerminal() || !StreamRunFinished.IsTerminal() || StreamRunStarted.IsTerminal() {
		t.Errorf("IsTerminal wrong")
	}
	var p StreamPayload
	if p.Role != RoleAssistant {
		t.Errorf("Role zero value must be RoleAssistant")
	}
}

func TestRunFailureHelpers(t *testing.T) {
	var nilF *RunFailure
	if nilF.IsHumanDecision() || nilF.IsRejected() || nilF.IsTimedOut() || nilF.Error() != "<nil>" {
		t.Errorf("nil RunFailure helpers")
	}
	f := &RunFailure{Code: FailureDecisionRejected, Message: "no"}
	if !f.IsHumanDecision() || !f.IsRejected() || f.IsTimedOut() || f.Error() != "decision_rejected: no" {
		t.Errorf("rejected helpers: %v", f)
	}
	if (&RunFailure{Message: "m"}).Error() != "m" {
		t.Errorf("Error without code")
	}
	if !(&RunFailure{Code: FailureDecisionTimeout}).IsTimedOut() {
		t.Errorf("IsTimedOut")
	}
	if (ProfilePayload{Fingerprint: "a"}).SessionFingerprint() != "a" ||
		(ProfilePayload{Fingerprint: "a", SessionCompatibilityFingerprint: "b"}).SessionFingerprint() != "b" {
		t.Errorf("SessionFingerprint fallback")
	}
	if got := (ResolvedSkills{Entries: []ResolvedSkill{{Key: "a"}, {Key: "b"}}}).Keys(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("Keys = %v", got)
	}
	if !(SessionParams{}).IsZero() || (SessionParams{ResumeID: "x"}).IsZero() {
		t.Errorf("IsZero")
	}
}
