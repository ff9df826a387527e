// Package adaptertest is the executable form of the driver streaming
// contract: validators that judge any stream, run and response, and (in a
// later issue) TestDriver, the conformance suite for whole drivers.
//
// The validators need no *testing.T. They are the oracle of agentwire's own
// unit tests, fuzz targets and the `agentwire check` command, and they are
// pure functions over recorded values:
//
//   - CheckStream(capability, payloads): the lifecycle grammar, EVT-01..14;
//   - CheckRun(events, response): raw chunks, item events and the
//     transcript mirror, RUN-01..04 with TRN-01..04 per item;
//   - CheckResponse(response, runErr, codec): checkpoint safety, the
//     Failure invariant, Output layering, codec round trip and the terminal
//     payload, RSP-01..05.
//
// Each Violation carries its clause ID, the index of the offending payload,
// event or item (-1 for the input as a whole) and a message. RecordingSink
// records a driver's emissions in order and answers decisions from a script.
//
// # Clause catalogue
//
// The IDs are stable: a clause keeps its ID and meaning for the life of the
// module, and new rules get new IDs. The section is that of
// shared/spec/driver-streaming-contract.md.
//
//	ID      rule                                                                      §
//	EVT-01  run.started is emitted exactly once, and first                             5
//	EVT-02  exactly one terminal (run.finished | run.error), last; nothing after it;
//	        run.error carries an Error with a message                                  5
//	EVT-03  text: MessageID set; an id opens once; content and end only while open     5
//	EVT-04  text.content has a non-empty Delta                                         5
//	EVT-05  tool: start has ToolCallID and Name and opens once; args and end only
//	        while open, args with a non-empty Delta; result only for a started id      5
//	EVT-06  reasoning: as EVT-03 and EVT-04                                            5
//	EVT-07  step: Name set; step.finished matches an open step.started                 5
//	EVT-08  every payload has a canonical or custom <provider>/<event> kind; hitl.*
//	        carry their envelope; stream.dropped carries Raw["dropped_count"]          5
//	EVT-09  Role is the zero value (assistant) on every payload                        5.1
//	EVT-10  Sequence, Seq and Timestamp are zero                                       5.2
//	EVT-11  no text, reasoning, tool or step lifecycle is open at the terminal         5
//	EVT-12  capability negatives: no reasoning.* without Reasoning, no
//	        tool_call.args without ToolCallArgs, no hitl.* without HITL                2, 5
//	EVT-13  run.* payloads carry no MessageID or ToolCallID                            5
//	EVT-14  tool identity is (ScopeID, ToolCallID): parent coordinates stable, no
//	        self-parent, no args after a start with complete Args, one result per id   5
//	RUN-01  chunk events name stdout or stderr, event types are known, and the chunks
//	        of a stream concatenate to its RawStreams bytes                            6, 8
//	RUN-02  item events carry an Item                                                  6
//	RUN-03  RunEvent.Seq is zero                                                       5.2
//	RUN-04  the item events equal Response.Transcript, item by item and in full        6
//	TRN-01  known kind; assistant, thinking, user, stdout, stderr, system, summary,
//	        question and failure items have Text                                       6
//	TRN-02  tool_call items have a ToolName                                            6
//	TRN-03  tool_result items have a ToolUseID                                         6
//	TRN-04  only assistant and thinking items may be Delta                             6
//	RSP-01  a Valid checkpoint has a State with a ResumeID, exit code 0, no signal,
//	        timeout, Failure or Run error, and a recognized terminal event             7, 9
//	RSP-02  Failure has a Message; HumanDecision is set exactly for
//	        decision_rejected and decision_timeout                                     7
//	RSP-03  Output contains neither raw stdout, raw stderr nor the terminal JSON;
//	        Summary never repeats Output                                               7
//	RSP-04  a Valid checkpoint round-trips losslessly through the driver's codec,
//	        which guards it with a non-empty deterministic fingerprint                 9
//	RSP-05  a terminal payload has its provider event name and valid JSON              8
//
// The same table is available to programs as Clauses.
package adaptertest

// Clause is one row of the clause catalogue.
type Clause struct {
	ID      string `json:"id"`
	Rule    string `json:"rule"`
	Section string `json:"section"`
}

// Clauses is the clause catalogue, in ID order.
var Clauses = []Clause{
	{"EVT-01", "run.started is emitted exactly once, and first", "5"},
	{"EVT-02", "exactly one terminal (run.finished or run.error), last; nothing after it; run.error carries an Error with a message", "5"},
	{"EVT-03", "text: MessageID set; an id opens once; content and end only while open", "5"},
	{"EVT-04", "text.content has a non-empty Delta", "5"},
	{"EVT-05", "tool: start has ToolCallID and Name and opens once; args and end only while open, args with a non-empty Delta; result only for a started id", "5"},
	{"EVT-06", "reasoning: as EVT-03 and EVT-04", "5"},
	{"EVT-07", "step: Name set; step.finished matches an open step.started", "5"},
	{"EVT-08", "every payload has a canonical or custom <provider>/<event> kind; hitl.* carry their envelope; stream.dropped carries Raw[dropped_count]", "5"},
	{"EVT-09", "Role is the zero value (assistant) on every payload", "5.1"},
	{"EVT-10", "Sequence, Seq and Timestamp are zero", "5.2"},
	{"EVT-11", "no text, reasoning, tool or step lifecycle is open at the terminal", "5"},
	{"EVT-12", "capability negatives: no reasoning.* without Reasoning, no tool_call.args without ToolCallArgs, no hitl.* without HITL", "2, 5"},
	{"EVT-13", "run.* payloads carry no MessageID or ToolCallID", "5"},
	{"EVT-14", "tool identity is (ScopeID, ToolCallID): parent coordinates stable, no self-parent, no args after a start with complete Args, one result per id", "5"},
	{"RUN-01", "chunk events name stdout or stderr, event types are known, and the chunks of a stream concatenate to its RawStreams bytes", "6, 8"},
	{"RUN-02", "item events carry an Item", "6"},
	{"RUN-03", "RunEvent.Seq is zero", "5.2"},
	{"RUN-04", "the item events equal Response.Transcript, item by item and in full", "6"},
	{"TRN-01", "known kind; assistant, thinking, user, stdout, stderr, system, summary, question and failure items have Text", "6"},
	{"TRN-02", "tool_call items have a ToolName", "6"},
	{"TRN-03", "tool_result items have a ToolUseID", "6"},
	{"TRN-04", "only assistant and thinking items may be Delta", "6"},
	{"RSP-01", "a Valid checkpoint has a State with a ResumeID, exit code 0, no signal, timeout, Failure or Run error, and a recognized terminal event", "7, 9"},
	{"RSP-02", "Failure has a Message; HumanDecision is set exactly for decision_rejected and decision_timeout", "7"},
	{"RSP-03", "Output contains neither raw stdout, raw stderr nor the terminal JSON; Summary never repeats Output", "7"},
	{"RSP-04", "a Valid checkpoint round-trips losslessly through the driver's codec, which guards it with a non-empty deterministic fingerprint", "9"},
	{"RSP-05", "a terminal payload has its provider event name and valid JSON", "8"},
}
