package driver

// FinishReason says why a provider stopped generating. It is a closed union:
// every provider's native value maps to exactly one of the constants below,
// and each parser documents its mapping table. The provider's own spelling
// travels beside it in Finish.Raw, so nothing is lost by the mapping.
type FinishReason string

// The FinishReason union. A new provider value that no table maps yet is
// FinishUnknown (with the value in Raw), never a guess.
const (
	// FinishStop: the model ended its turn on its own, or hit a stop
	// sequence.
	FinishStop FinishReason = "stop"
	// FinishLength: an output-token limit (or the context window) cut the
	// generation short.
	FinishLength FinishReason = "length"
	// FinishToolCalls: the model stopped to have tools called.
	FinishToolCalls FinishReason = "tool_calls"
	// FinishContentFilter: a safety or policy filter stopped or withheld the
	// output, including a refusal the provider reports as a stop reason.
	FinishContentFilter FinishReason = "content_filter"
	// FinishError: the provider reported an error; it is the only reason a
	// failed stream carries.
	FinishError FinishReason = "error"
	// FinishOther: a documented provider reason with no closer member
	// (a paused turn, a recitation block, ...); Raw says which.
	FinishOther FinishReason = "other"
	// FinishUnknown: a provider value this parser does not know.
	FinishUnknown FinishReason = "unknown"
)

// FinishReasons lists the union in declaration order.
var FinishReasons = []FinishReason{
	FinishStop, FinishLength, FinishToolCalls, FinishContentFilter,
	FinishError, FinishOther, FinishUnknown,
}

// Valid reports whether r is a member of the union.
func (r FinishReason) Valid() bool {
	switch r {
	case FinishStop, FinishLength, FinishToolCalls, FinishContentFilter,
		FinishError, FinishOther, FinishUnknown:
		return true
	}
	return false
}

// Success reports whether a stream that ended with r reached its terminal
// normally: every member but FinishError. A stream whose finish says
// length, tool_calls, content_filter, other or unknown is a successful
// stream (the finish says why it stopped) and carries no Failure.
func (r FinishReason) Success() bool { return r.Valid() && r != FinishError }

// Finish is a normalized finish: the union member and the provider's own
// value exactly as it arrived ("end_turn", "MAX_TOKENS", "incomplete:
// max_output_tokens"); Raw is empty only when the provider sent none.
//
// The rules (adaptertest FIN-*), the same for every provider whose
// StreamCapability.Finish is true:
//   - a successful run carries exactly one Finish: on its run.finished
//     payload and, equal to it, on Response.Finish;
//   - a run that failed on a provider error carries no Usage, and a Finish
//     only with Reason FinishError;
//   - a run that ended without its terminal and without an error
//     (incomplete) is a failure with no Finish.
//
// Parsers of protocols that report a finish only sometimes (Claude Code's
// stop_reason) leave Capability.Finish false and set Finish where the
// protocol gave one; the rules above then do not apply.
type Finish struct {
	Reason FinishReason `json:"reason"`
	Raw    string       `json:"raw,omitempty"`
}
