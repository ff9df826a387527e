// Package adaptertest is the executable form of the driver streaming
// contract: validators that judge any stream, run and response, and
// TestDriver, the conformance suite for whole drivers.
//
// The validators need no *testing.T. They are the oracle of agentwire's own
// unit tests, fuzz targets and the `agentwire check` command, and they are
// pure functions over recorded values:
//
//   - CheckStream(capability, payloads): the lifecycle grammar, EVT-01..14,
//     and the finish rules a payload sequence shows, FIN-01..04;
//   - CheckRun(events, response): raw chunks, item events and the
//     transcript mirror, RUN-01..04 with TRN-01..04 per item;
//   - CheckResponse(response, runErr, codec): checkpoint safety, the
//     Failure invariant, Output layering, codec round trip and the terminal
//     payload, RSP-01..05, and the finish rules a Response shows;
//   - CheckFinish(capability, payloads, response): the finish rules that
//     need both, or the capability (FIN-01, FIN-04).
//
// Checker is the same validators run incrementally: a sink that judges
// each emission as it arrives, keeping only the state the clauses need
// (lifecycles by id, the last terminal, chunk digests, item references),
// so a long run is judged without being recorded. The batch functions are
// a Checker's state machines given a recorded sequence: one
// implementation.
//
// TestDriver(t, factory, opts...) judges a whole driver in the style of
// testing/fstest.TestFS: descriptor, configuration, capability truthfulness,
// optional probes and the session codec hermetically, and with WithLiveRun
// (plus WithResumeRun and WithCancelRun) real runs through every validator.
// Verify is the same suite without a *testing.T.
//
// Each Violation carries its clause ID, the index of the offending payload,
// event or item (-1 for the input as a whole) and a message. RecordingSink
// records a driver's emissions in order and answers decisions from a script.
//
// # Clause catalogue
//
// The IDs are stable: a clause keeps its ID and meaning for the life of the
// module, and new rules get new IDs. The section is that of
// shared/spec/driver-streaming-contract.md; "SPC" is
// shared/spec/stream-protocol-contract.md (the model-API streams), whose
// rules driver.Finish states.
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
//	FIN-01  exactly one finish on success: with Capability.Finish run.finished carries
//	        a Finish; no payload but the terminal carries one; Response.Finish equals
//	        the terminal's                                                             SPC
//	FIN-02  every Finish, on a payload or the Response, has a Reason in the
//	        FinishReason union                                                         SPC
//	FIN-03  an error excludes usage and any finish but error: run.error has no Usage
//	        and a Finish only of reason error; a Failure comes with no other reason,
//	        a provider_error Failure with no Usage; reason error only with a failure   SPC
//	FIN-04  an incomplete stream is a failure: with Capability.Finish a run without a
//	        Finish has a Failure; an incomplete Failure (and its run.error) has no
//	        Finish                                                                     SPC
//
// Driver-level clauses, checked by TestDriver and Verify:
//
//	DRV-01  the factory returns a driver; Descriptor Type and DisplayName are set      1
//	DRV-02  Descriptor is equal across calls and across instances                      1
//	CFG-01  ValidateConfig(nil) accepts the captured configuration and never panics    1, 3
//	CFG-02  the configuration given with WithConfig is accepted                         1
//	CFG-03  (opt-in) a configuration of a foreign type is rejected                      1
//	CAP-01  SupportsResume iff a non-nil codec with a stable Name; resume-capable
//	        drivers have a stable, non-empty SessionConfigFingerprint                   9
//	CAP-02  Skills.Supported iff SkillSupport, with an ephemeral or persistent mode     1
//	CAP-03  CheckEnvironment: DriverType, a known Status, Healthy iff pass, check codes  1
//	CAP-04  ListModels succeeds with non-empty IDs                                       1
//	CAP-05  DetectModel succeeds with a non-empty (or the expected) model               1
//	CAP-06  GetProfile: DriverType; a supported profile has Dir and Source              1
//	CAP-07  GetQuota: DriverType; every window has a Label                              1
//	CAP-08  the config schema has unique, non-empty names and the required fields       1
//	CAP-09  ListSkills on an empty catalogue: DriverType, nothing selected              1
//	CAP-10  StreamCapability is equal across calls and instances                       2
//	CAP-11  Process.Persistent requires ProcessLifecycleDriver                          1
//	SO-01   structured output: WorksWith* needs a mechanism; a mechanism needs
//	        WorksWithRun                                                               1
//	SES-01  the codec Name is non-empty and stable                                      9
//	SES-02  ToParams(nil) is zero; FromParams(zero) is nil                               9
//	SES-03  ToParams keeps ResumeID and every Data entry and sets a DisplayID            9
//	SES-04  ToParams(FromParams(p)) == p                                                9
//	SES-05  the guard is non-empty, stable and equal for equivalent params               9
//	SES-06  (opt-in) changing a guard key changes the guard                              9
//	SES-07  nil and zero inputs never panic the codec                                    9
//	SES-08  (opt-in) required keys survive both directions                               9
//	SES-09  (live) a checkpoint's profile_fingerprint is ProfilePayload.SessionFingerprint()  9
//	LIV-01  (live) the run succeeds: no error, exit 0, no signal, timeout or Failure    12
//	LIV-02  (live) the Output, trimmed, is the expected one ("OK" for the default)      12
//	LIV-03  (live) a resume-capable driver's successful run leaves a valid checkpoint   9, 12
//	LIV-04  (live, opt-in) a second run resuming that checkpoint succeeds with a valid
//	        checkpoint                                                                 9, 12
//	LIV-05  (live, opt-in) after a cancel, Run returns within the bound, leaves no
//	        goroutine behind and no valid checkpoint                                    4, 11
//
// The same table is available to programs as Clauses.
package adaptertest

// Clause is one row of the clause catalogue.
type Clause struct {
	ID      string `json:"id"`
	Rule    string `json:"rule"`
	Section string `json:"section"`
}

// Clauses is the clause catalogue: the validator clauses, then the
// driver-level clauses of TestDriver.
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
	{"FIN-01", "exactly one finish on success: with Capability.Finish run.finished carries a Finish; no payload but the terminal carries one; Response.Finish equals the terminal's", "SPC"},
	{"FIN-02", "every Finish, on a payload or the Response, has a Reason in the FinishReason union", "SPC"},
	{"FIN-03", "an error excludes usage and any finish but error: run.error has no Usage and a Finish only of reason error; a Failure comes with no other reason, a provider_error Failure with no Usage; reason error only with a failure", "SPC"},
	{"FIN-04", "an incomplete stream is a failure: with Capability.Finish a run without a Finish has a Failure; an incomplete Failure (and its run.error) has no Finish", "SPC"},
	{"DRV-01", "the factory returns a driver; Descriptor Type and DisplayName are set", "1"},
	{"DRV-02", "Descriptor is equal across calls and across instances", "1"},
	{"CFG-01", "ValidateConfig(nil) accepts the captured configuration and never panics", "1, 3"},
	{"CFG-02", "the configuration given with WithConfig is accepted", "1"},
	{"CFG-03", "(opt-in) a configuration of a foreign type is rejected", "1"},
	{"CAP-01", "SupportsResume iff a non-nil codec with a stable Name; resume-capable drivers have a stable, non-empty SessionConfigFingerprint", "9"},
	{"CAP-02", "Skills.Supported iff SkillSupport, with an ephemeral or persistent mode", "1"},
	{"CAP-03", "CheckEnvironment: DriverType, a known Status, Healthy iff pass, check codes", "1"},
	{"CAP-04", "ListModels succeeds with non-empty IDs", "1"},
	{"CAP-05", "DetectModel succeeds with a non-empty (or the expected) model", "1"},
	{"CAP-06", "GetProfile: DriverType; a supported profile has Dir and Source", "1"},
	{"CAP-07", "GetQuota: DriverType; every window has a Label", "1"},
	{"CAP-08", "the config schema has unique, non-empty names and the required fields", "1"},
	{"CAP-09", "ListSkills on an empty catalogue: DriverType, nothing selected", "1"},
	{"CAP-10", "StreamCapability is equal across calls and instances", "2"},
	{"CAP-11", "Process.Persistent requires ProcessLifecycleDriver", "1"},
	{"SO-01", "structured output: WorksWith* needs a mechanism; a mechanism needs WorksWithRun", "1"},
	{"SES-01", "the codec Name is non-empty and stable", "9"},
	{"SES-02", "ToParams(nil) is zero; FromParams(zero) is nil", "9"},
	{"SES-03", "ToParams keeps ResumeID and every Data entry and sets a DisplayID", "9"},
	{"SES-04", "ToParams(FromParams(p)) == p", "9"},
	{"SES-05", "the guard is non-empty, stable and equal for equivalent params", "9"},
	{"SES-06", "(opt-in) changing a guard key changes the guard", "9"},
	{"SES-07", "nil and zero inputs never panic the codec", "9"},
	{"SES-08", "(opt-in) required keys survive both directions", "9"},
	{"SES-09", "(live) a checkpoint's profile_fingerprint is ProfilePayload.SessionFingerprint()", "9"},
	{"LIV-01", "(live) the run succeeds: no error, exit 0, no signal, timeout or Failure", "12"},
	{"LIV-02", "(live) the Output, trimmed, is the expected one (OK for the default prompt)", "12"},
	{"LIV-03", "(live) a resume-capable driver's successful run leaves a valid checkpoint", "9, 12"},
	{"LIV-04", "(live, opt-in) a second run resuming that checkpoint succeeds with a valid checkpoint", "9, 12"},
	{"LIV-05", "(live, opt-in) after a cancel, Run returns within the bound, leaves no goroutine behind and no valid checkpoint", "4, 11"},
}
