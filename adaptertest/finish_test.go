package adaptertest

import (
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
)

var finishCaps = driver.StreamCapability{Native: true, TokenLevel: true, Finish: true}

func fin(r driver.FinishReason, raw string) *driver.Finish {
	return &driver.Finish{Reason: r, Raw: raw}
}

func finished(f *driver.Finish) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamRunFinished, Usage: &driver.Usage{InputTokens: 3, OutputTokens: 1}, Finish: f}
}

func failed(code driver.FailureCode, f *driver.Finish) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamRunError, Error: &driver.RunFailure{Code: code, Message: "x"}, Finish: f}
}

// Stream fixtures of the FIN clauses; TestStreamClauses runs them with the
// others (see init).
var finishStreamViolations = []streamFixture{
	{"FIN-01", "success without a finish", finishCaps, wrap()},
	{"FIN-01", "finish on a text payload", finishCaps, []driver.StreamPayload{runStarted(), mod(textStart("m"), func(p *driver.StreamPayload) { p.Finish = fin(driver.FinishStop, "end_turn") }), textEnd("m"), finished(fin(driver.FinishStop, "end_turn"))}},
	{"FIN-01", "finish on a custom payload without the capability", driver.StreamCapability{}, wrap(mod(custom(), func(p *driver.StreamPayload) { p.Finish = fin(driver.FinishStop, "") }))},
	{"FIN-02", "reason outside the union", finishCaps, []driver.StreamPayload{runStarted(), finished(fin("end_turn", "end_turn"))}},
	{"FIN-02", "empty reason", driver.StreamCapability{}, []driver.StreamPayload{runStarted(), finished(fin("", "end_turn"))}},
	{"FIN-03", "usage on run.error", finishCaps, []driver.StreamPayload{runStarted(), mod(failed(driver.FailureProviderError, nil), func(p *driver.StreamPayload) { p.Usage = &driver.Usage{InputTokens: 1} })}},
	{"FIN-03", "stop reason beside an error", finishCaps, []driver.StreamPayload{runStarted(), failed(driver.FailureProviderError, fin(driver.FinishStop, "end_turn"))}},
	{"FIN-03", "reason error on run.finished", finishCaps, []driver.StreamPayload{runStarted(), finished(fin(driver.FinishError, "overloaded_error"))}},
	{"FIN-04", "incomplete run.error with an error finish", finishCaps, []driver.StreamPayload{runStarted(), failed(driver.FailureIncomplete, fin(driver.FinishError, ""))}},
}

var finishStreamConforming = []streamFixture{
	{"FIN-01", "one finish on the terminal", finishCaps, []driver.StreamPayload{runStarted(), textStart("m"), textContent("m", "hi"), textEnd("m"), finished(fin(driver.FinishToolCalls, "tool_use"))}},
	{"FIN-01", "no finish without the capability", driver.StreamCapability{}, wrap()},
	{"FIN-02", "every member of the union on a success", finishCaps, []driver.StreamPayload{runStarted(), finished(fin(driver.FinishUnknown, "new_reason"))}},
	{"FIN-03", "provider error with an error finish and no usage", finishCaps, []driver.StreamPayload{runStarted(), failed(driver.FailureProviderError, fin(driver.FinishError, "overloaded_error"))}},
	{"FIN-04", "incomplete without a finish", finishCaps, []driver.StreamPayload{runStarted(), textStart("m"), textEnd("m"), failed(driver.FailureIncomplete, nil)}},
}

func init() {
	streamViolations = append(streamViolations, finishStreamViolations...)
	streamConforming = append(streamConforming, finishStreamConforming...)
	// Every member of the union but error is a successful finish.
	for _, r := range driver.FinishReasons {
		if r != driver.FinishError {
			streamConforming = append(streamConforming, streamFixture{"FIN-02", "success with " + string(r), finishCaps, []driver.StreamPayload{runStarted(), finished(fin(r, "x"))}})
		}
	}
	respViolations = append(respViolations, finishRespViolations...)
	respConforming = append(respConforming, finishRespConforming...)
}

// noCheckpoint leaves a Response without its valid checkpoint, as every
// failed run is.
func noCheckpoint(r *driver.Response) { r.Checkpoint = nil }

var finishRespViolations = []respFixture{
	{"FIN-02", "response reason outside the union", &testCodec{}, nil, func(r *driver.Response) { r.Finish = fin("max_tokens", "max_tokens") }},
	{"FIN-03", "response failure with a stop reason", nil, nil, func(r *driver.Response) {
		noCheckpoint(r)
		r.Failure = &driver.RunFailure{Code: driver.FailureProviderError, ErrorType: "overloaded_error", Message: "Overloaded"}
		r.Finish = fin(driver.FinishStop, "end_turn")
	}},
	{"FIN-03", "response provider error with usage", nil, nil, func(r *driver.Response) {
		noCheckpoint(r)
		r.Failure = &driver.RunFailure{Code: driver.FailureProviderError, ErrorType: "api_error", Message: "Internal server error"}
		r.Usage = &driver.Usage{InputTokens: 10}
	}},
	{"FIN-03", "response reason error without a failure", &testCodec{}, nil, func(r *driver.Response) { r.Finish = fin(driver.FinishError, "") }},
	{"FIN-04", "response incomplete with an error finish", nil, nil, func(r *driver.Response) {
		noCheckpoint(r)
		r.Failure = &driver.RunFailure{Code: driver.FailureIncomplete, Message: "stream ended without message_stop"}
		r.Finish = fin(driver.FinishError, "")
	}},
}

var finishRespConforming = []respFixture{
	{"FIN-02", "response with a union reason", &testCodec{}, nil, func(r *driver.Response) { r.Finish = fin(driver.FinishLength, "max_tokens") }},
	{"FIN-03", "provider error with an error finish and no usage", nil, nil, func(r *driver.Response) {
		noCheckpoint(r)
		r.Failure = &driver.RunFailure{Code: driver.FailureProviderError, ErrorType: "overloaded_error", Message: "Overloaded", HTTPStatus: 529}
		r.Finish = fin(driver.FinishError, "overloaded_error")
	}},
	{"FIN-03", "agent error keeps its usage", nil, nil, func(r *driver.Response) {
		noCheckpoint(r)
		r.Failure = &driver.RunFailure{Code: driver.FailureAgentError, Message: "max turns"}
		r.Usage = &driver.Usage{InputTokens: 10}
	}},
	{"FIN-04", "incomplete with usage and no finish", nil, nil, func(r *driver.Response) {
		noCheckpoint(r)
		r.Failure = &driver.RunFailure{Code: driver.FailureIncomplete, Message: "stream ended without message_stop"}
		r.Usage = &driver.Usage{InputTokens: 10}
	}},
}

type crossFixture struct {
	clause, name string
	cap          driver.StreamCapability
	payloads     []driver.StreamPayload
	resp         driver.Response
}

var crossViolations = []crossFixture{
	{"FIN-01", "response finish differs from the terminal's", finishCaps, []driver.StreamPayload{runStarted(), finished(fin(driver.FinishStop, "end_turn"))}, driver.Response{Finish: fin(driver.FinishStop, "stop_sequence")}},
	{"FIN-01", "response without the terminal's finish", finishCaps, []driver.StreamPayload{runStarted(), finished(fin(driver.FinishLength, "max_tokens"))}, driver.Response{}},
	{"FIN-01", "response finish the stream never carried", driver.StreamCapability{}, wrap(), driver.Response{Finish: fin(driver.FinishStop, "end_turn")}},
	{"FIN-04", "incomplete stream reported as a success", finishCaps, wrap(), driver.Response{}},
	{"FIN-04", "incomplete response without payloads", finishCaps, nil, driver.Response{Output: "partial"}},
}

var crossConforming = []crossFixture{
	{"FIN-01", "equal finishes", finishCaps, []driver.StreamPayload{runStarted(), finished(fin(driver.FinishContentFilter, "refusal"))}, driver.Response{Finish: fin(driver.FinishContentFilter, "refusal")}},
	{"FIN-01", "neither has a finish without the capability", driver.StreamCapability{}, wrap(), driver.Response{}},
	{"FIN-04", "incomplete failure without a finish", finishCaps, []driver.StreamPayload{runStarted(), failed(driver.FailureIncomplete, nil)}, driver.Response{Failure: &driver.RunFailure{Code: driver.FailureIncomplete, Message: "x"}}},
}

func TestFinishClauses(t *testing.T) {
	for _, f := range crossViolations {
		t.Run(f.clause+"/caught/"+strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			vs := CheckFinish(f.cap, f.payloads, f.resp)
			if !vs.Has(f.clause) {
				t.Fatalf("%s not reported; got:\n%s", f.clause, vs)
			}
			for _, v := range vs {
				if v.Index >= len(f.payloads) || v.Index < -1 {
					t.Errorf("violation index %d out of range: %s", v.Index, v)
				}
			}
		})
	}
	for _, f := range crossConforming {
		t.Run(f.clause+"/passes/"+strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			vs := CheckFinish(f.cap, f.payloads, f.resp)
			vs = append(vs, CheckStream(f.cap, f.payloads)...)
			vs = append(vs, CheckResponse(f.resp, nil, nil)...)
			if len(vs) != 0 {
				t.Fatalf("false positive:\n%s", vs)
			}
		})
	}
}

// TestFinishViolationPositions: a stream finding names the payload, a
// cross finding the terminal.
func TestFinishViolationPositions(t *testing.T) {
	vs := CheckStream(finishCaps, []driver.StreamPayload{runStarted(), mod(textStart("m"), func(p *driver.StreamPayload) { p.Finish = fin(driver.FinishStop, "") }), textEnd("m"), finished(fin(driver.FinishStop, ""))})
	if len(vs) != 1 || vs[0].Clause != "FIN-01" || vs[0].Index != 1 {
		t.Fatalf("got %v, want one FIN-01 at #1", vs)
	}
	vs = CheckFinish(finishCaps, []driver.StreamPayload{runStarted(), textStart("m"), textEnd("m"), finished(fin(driver.FinishStop, "end_turn"))}, driver.Response{Finish: fin(driver.FinishLength, "max_tokens")})
	if len(vs) != 1 || vs[0].Index != 3 || vs[0].Message != "run.finished has finish stop (end_turn) but Response.Finish is length (max_tokens); they are the same value" {
		t.Fatalf("got %v", vs)
	}
}
