package adaptertest

import (
	"github.com/agentwire/agentwire/driver"
)

// The finish and error rules of the model-API streams (FIN-01 to FIN-04,
// shared/spec/stream-protocol-contract.md and driver.Finish). CheckStream
// applies the rules a payload sequence shows on its own, CheckResponse
// those a Response shows on its own, and CheckFinish those that need both
// (or the capability): a Response's Finish equal to the terminal's, and a
// successful run of a Finish-reporting protocol that reports none.

// checkFinishPayload applies the FIN rules to payload i of a stream.
func (s *streamState) checkFinishPayload(i int, p *driver.StreamPayload) {
	c := &s.c
	if p.Finish != nil {
		if !p.Finish.Reason.Valid() {
			c.add("FIN-02", i, "%s carries finish reason %q, which is not in the FinishReason union", p.Kind, p.Finish.Reason)
		}
		if !p.Kind.IsTerminal() {
			c.add("FIN-01", i, "%s carries a Finish; only the terminal payload may", p.Kind)
		}
	}
	switch p.Kind {
	case driver.StreamRunFinished:
		if p.Finish == nil && s.cap.Finish {
			c.add("FIN-01", i, "run.finished without a Finish although the capability reports one on every successful run")
		}
		if p.Finish != nil && p.Finish.Reason == driver.FinishError {
			c.add("FIN-03", i, "run.finished with finish reason error; an error is a run.error")
		}
	case driver.StreamRunError:
		if p.Usage != nil {
			c.add("FIN-03", i, "run.error carries Usage; a failed run reports none beside its error")
		}
		if p.Finish != nil && p.Finish.Reason != driver.FinishError {
			c.add("FIN-03", i, "run.error carries finish reason %q; only error may accompany a failure", p.Finish.Reason)
		}
		if p.Error != nil && p.Error.Code == driver.FailureIncomplete && p.Finish != nil {
			c.add("FIN-04", i, "run.error of an incomplete stream carries a Finish; an incomplete stream has none")
		}
	}
}

// checkFinishResponse applies the FIN rules a Response shows on its own.
func checkFinishResponse(c *collector, resp driver.Response) {
	fin, f := resp.Finish, resp.Failure
	if fin != nil && !fin.Reason.Valid() {
		c.add("FIN-02", -1, "Response.Finish reason %q is not in the FinishReason union", fin.Reason)
	}
	if f == nil {
		if fin != nil && fin.Reason == driver.FinishError {
			c.add("FIN-03", -1, "Response.Finish is error but there is no Failure")
		}
		return
	}
	if fin != nil && fin.Reason != driver.FinishError {
		c.add("FIN-03", -1, "Response has a Failure (%s) and finish reason %q; only error may accompany a failure", f.Code, fin.Reason)
	}
	if f.Code == driver.FailureProviderError && resp.Usage != nil {
		c.add("FIN-03", -1, "Response has a provider_error Failure and Usage; a provider error reports no usage beside it")
	}
	if f.Code == driver.FailureIncomplete && fin != nil {
		c.add("FIN-04", -1, "Response of an incomplete stream carries a Finish; an incomplete stream has none")
	}
}

// CheckFinish applies the finish rules that need the capability or the
// stream and the Response together: with capability.Finish a Response
// without a Failure carries a Finish (a stream that never said why it
// stopped is incomplete, a failure: FIN-04), and when payloads are given
// Response.Finish equals the Finish of their terminal payload (FIN-01,
// reported at the terminal's index). Payload-only and Response-only rules
// are CheckStream's and CheckResponse's.
func CheckFinish(capability driver.StreamCapability, payloads []driver.StreamPayload, resp driver.Response) Violations {
	f := finishState{terminal: -1}
	for i := range payloads {
		f.payload(i, &payloads[i], Place{})
	}
	var c collector
	f.check(&c, capability, resp)
	return c.out
}

// finishState is what CheckFinish needs of a stream: its last terminal
// payload, where it was emitted.
type finishState struct {
	terminal int // index of the last terminal payload, -1 before one
	kind     driver.StreamKind
	finish   *driver.Finish
	place    Place
}

func (f *finishState) payload(i int, p *driver.StreamPayload, at Place) {
	if p.Kind.IsTerminal() {
		f.terminal, f.kind, f.finish, f.place = i, p.Kind, p.Finish, at
	}
}

func (f *finishState) check(c *collector, capability driver.StreamCapability, resp driver.Response) {
	if capability.Finish && resp.Failure == nil && resp.Finish == nil {
		c.add("FIN-04", -1, "the run has neither a Finish nor a Failure; a stream that did not reach its terminal is incomplete, a failure")
	}
	if f.terminal >= 0 && !sameFinish(f.finish, resp.Finish) {
		c.at = f.place
		c.add("FIN-01", f.terminal, "%s has finish %s but Response.Finish is %s; they are the same value", f.kind, finishString(f.finish), finishString(resp.Finish))
	}
}

func sameFinish(a, b *driver.Finish) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func finishString(f *driver.Finish) string {
	if f == nil {
		return "none"
	}
	if f.Raw == "" {
		return string(f.Reason)
	}
	return string(f.Reason) + " (" + f.Raw + ")"
}
