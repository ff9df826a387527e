// Package claude parses the output of Claude Code run as
//
//	claude -p --output-format stream-json --verbose [--include-partial-messages]
//	       [--input-format stream-json --permission-prompt-tool stdio]
//
// into the driver contract: transcript items, lifecycle-checked stream
// payloads, the exact terminal, usage, failure and a resume checkpoint that
// is valid only when it is safe. It also types the control protocol of
// --input-format stream-json: the CLI's control_request lines (ControlRequest,
// with the DecisionRequest a driver hands to driver.DecisionCapableSink) and
// encoders for every line a host writes on stdin (EncodeUserMessage,
// EncodeAllow, EncodeDeny, EncodeControlError, EncodeInterrupt,
// EncodeInitialize).
//
// A Parser is a pure state machine: New, Feed every ndjson.Frame of stdout
// in order, Finish once. Parse does it over finished readers. It starts no
// goroutines and is not safe for concurrent use.
//
// # Capability
//
// Native and Reasoning are always true: stream-json is a formal protocol,
// and thinking blocks are formal content in both modes (without partial
// messages a thinking block arrives whole, as one reasoning lifecycle).
// With Options.PartialMessages (the CLI's --include-partial-messages)
// TokenLevel and ToolCallArgs are true: text and thinking come from
// text_delta / thinking_delta events, tool input from input_json_delta.
// Without it every lifecycle is coarse: one delta per text block, a tool
// start with its complete Args. HITL is Options.ControlProtocol: only then
// does the CLI ask the host (can_use_tool) instead of deciding itself.
//
// # Mapping
//
// Every stdout line is one JSON object with a "type"; all but the control
// lines carry session_id and uuid. Scope: lines of a subagent carry
// parent_tool_use_id, the id of the Task/Agent tool call that spawned it;
// it becomes the ScopeID of their payloads and items, with
// ParentToolCallID = that call and ParentScopeID = the scope the call was
// made in, so subagent lifecycles never collide with the root's. Only a
// root result ends the run. Observed in the recordings of 2.0.50, 2.1.328
// (corpus/claude) and the public captures of 2.0.25 and 2.1.7:
//
//	wire line / event                 stream payloads                        transcript items
//	system/init                       run.started (ThreadID = session_id)    init (Model, SessionID; cwd, version, permission mode in Metadata)
//	system/api_retry                  claude/system.api_retry (Raw)          system "API retry 1/10 ..."
//	system/status, thinking_tokens    claude/system.<subtype> (Raw)          none (progress ticks, one per request or thinking delta)
//	system/task_started               step.started "task <task_id>" + claude/system.task_started   system (ToolUseID)
//	system/task_notification          step.finished "task <task_id>" + claude/system.task_notification   system
//	system/<other subtype>            claude/system.<subtype> (Raw)          system (Subtype, Data = the line)
//	assistant text block              text.start/content/end (coarse)¹       assistant (Text, Model, Metadata message_id; Data citations)
//	assistant thinking block          reasoning.start/content/end (coarse)¹  thinking (Text; Metadata signature)
//	assistant redacted_thinking       claude/block.redacted_thinking¹        system "redacted thinking block" (Data data)
//	assistant tool_use, server_tool_use, mcp_tool_use
//	                                  tool_call.start (complete Args) + end¹ tool_call (ToolName, ToolUseID, Input)
//	assistant *_tool_result block     tool_call.result¹                      tool_result
//	assistant with error (synthetic "API Error: ..." message, model <synthetic>)
//	                                  claude/api_error (Raw)                 failure (Text; Metadata code, api_error_status)
//	assistant unknown block           claude/block.<type> (Raw)              system (Subtype block.<type>, Data = the block)
//	user tool_result block            tool_call.result {content, is_error}   tool_result (ToolUseID, Text flattened, IsError)
//	user text / string content        none (the driver never replays input)  user (Metadata synthetic/replay when flagged)
//	stream_event message_start        none (opens the scope's message; a new id abandons the previous one)
//	stream_event content_block_start  text/thinking: text.start / reasoning.start; tool_use: tool_call.start (no Args);
//	                                  *_tool_result: tool_call.result; redacted_thinking and unknown: claude/block.<type>
//	stream_event text_delta           text.content                           none (the snapshot line gives the item)
//	stream_event thinking_delta       reasoning.content                      none
//	stream_event input_json_delta     tool_call.args                         none
//	stream_event signature_delta      none (the snapshot carries the signature)
//	stream_event citations_delta, unknown delta   claude/delta.<type> (Raw)
//	stream_event content_block_stop   text.end / reasoning.end / tool_call.end
//	stream_event message_delta        none (usage, stop reason)
//	stream_event message_stop, ping   none
//	stream_event error                claude/stream_event.error              system
//	stream_event <unknown>            claude/stream_event.<type> (Raw)
//	result (root)                     run.finished (Usage) or run.error at Finish   result (Text, Usage, CostUSD, Subtype, IsError, Errors; Data model_usage, permission_denials, structured_output)
//	result with parent_tool_use_id    claude/result                          result in the subagent scope (never the terminal)
//	rate_limit_event                  claude/rate_limit_event (Raw)          system "rate limit <status> (<type>)"
//	control_request can_use_tool      hitl.requested (HITL) or claude/control_request   system (or question for AskUserQuestion)
//	control_request hook_callback, mcp_message, other   claude/control_request (SDK callbacks)   system
//	control_cancel_request            hitl.resolved aborted (when pending)   system
//	host answer (Resolve, FeedInput)  hitl.resolved approved/rejected/...    system control_resolved
//	control_response (to the host)    none (the host knows what it asked)    system
//	conversation_reset                claude/conversation_reset              system; later lines may carry the new session id
//	transcript_mirror                 claude/transcript_mirror               none (SDK-internal)
//	any other type                    claude/<type> (Raw = the line)         none; counted in Metadata["unknown"]
//	not JSON, no type, bad shape      claude/malformed                       stdout (verbatim) or system malformed; poisons the checkpoint
//	session_id differs from before    claude/malformed                       system malformed; poisons the checkpoint
//	any line after the root result    claude/malformed                       system malformed; poisons the checkpoint
//	  in one-shot mode (a second result, a late tool_use: one-shot runs one turn; under
//	  ControlProtocol each result closes its own turn and the last is the terminal)
//
// ¹ With partial messages the stream comes from the stream_event lines and
// the complete "snapshot" assistant line that follows each block (observed
// before its content_block_stop) yields only the transcript item: it is
// matched to the first unconfirmed streamed block of the same type in that
// message (a tool call to the streamed call with its id). A snapshot block that was not streamed drives the stream
// coarsely, and a message whose snapshot came first ignores later events.
// Lifecycle ids: text and thinking "<message id>:<block index>", tools their
// tool_use id; the emitter gives a reused id a "#n" suffix.
//
// A streamed block no snapshot confirmed (an attempt that failed
// mid-stream and was retried: its deltas are already on stdout) is recorded
// when its message is abandoned (the scope's next message_start, or Finish)
// as an assistant or thinking item with Delta set and
// Metadata["unconfirmed"]="true". Output never comes from deltas.
//
// # Success, Output, Failure
//
// The CLI's verdict is the root result, and it is not the subtype alone:
//
//	subtype                  is_error  observed                                        here
//	success                  false     normal end (every version)                      success
//	success                  true      API failure: 2.1.328 HTTP 400 (terminal_reason   agent_error, message = result text
//	                                   api_error, exit 1); 2.0.50 disconnect
//	error_during_execution   true      2.1.328 interrupt or SIGINT (terminal_reason     cancelled
//	                                   aborted_streaming, result null, errors [...])
//	error_during_execution   false     2.0.50 interrupt (no terminal_reason)            not a success (cancelled when the host cancelled)
//	error_max_turns, error_max_budget_usd, ... (documented, is_error not reliable)      agent_error
//
// Success is subtype "success" AND is_error present and false. Output is the
// success result's "result" string (the authoritative final text); on any
// other result Output is empty and the text is the Failure's message.
// Failure precedence: the outcome's infrastructure error, cancellation,
// timeout; then an unsuccessful result (cancelled when terminal_reason is
// aborted_*); then a signal, a non-zero exit, a missing result. A success
// result with a non-zero exit still fails.
//
// # Usage
//
// Usage is the root result's "usage": the turn's API usage summed over its
// requests by the CLI (per turn, not per session), mapped as the API's
// usage is (the table in parsers/anthropic): InputTokens is the whole
// prompt, input_tokens + cache_read_input_tokens +
// cache_creation_input_tokens (disjoint in the Anthropic API),
// CachedInputTokens the cache reads, CacheWriteInputTokens the cache
// writes; the CLI reports no thinking count, so ReasoningTokens stays 0.
// "modelUsage" (camelCase, keyed by model) is cumulative
// for the session and includes subagents' and helper models' calls; it is
// kept in the result item's Data["model_usage"], never summed into Usage.
// total_cost_usd is the result item's CostUSD. Without a result, Usage is
// the sum over distinct root message ids of the last usage each reported:
// assistant lines repeat their message's usage once per block and are never
// summed. EstimatedCostMilli is left zero.
//
// # Finish
//
// The root result's stop_reason (2.1.x writes it; 2.0.x does not) is the
// Finish of a successful run, on run.finished and Response.Finish, mapped
// by the Anthropic table of parsers/anthropic (end_turn and stop_sequence
// stop, max_tokens length, tool_use tool_calls, refusal content_filter,
// pause_turn other, ...). A run without one, and every failed run, has no
// Finish (a failure excludes any finish but error, adaptertest FIN-03), so
// Capability.Finish is false: the rules of exactly one finish do not apply.
//
// # Checkpoint
//
// The resume id is the root result's top-level session_id (what --resume
// takes). The checkpoint is Valid only when the outcome is clean (exit 0,
// no signal, timeout, cancellation or error), there is no failure, no line
// was malformed and no framing error was fed, a root success result was
// seen, its session_id is non-empty and equal to the id every other line
// announced (a conversation_reset legitimately changes it), and Codec
// round-trips the state with a non-empty guard. Otherwise it is returned
// with Valid false and the reason in Metadata["checkpoint"], or nil when no
// session id was seen at all. The init line's id alone never qualifies.
//
// # Surprising protocol facts
//
//   - With --input-format stream-json the first stdout line is the
//     control_response to the host's initialize, before system/init; control
//     lines carry no session_id.
//   - One assistant line per content block, each repeating the message id
//     and usage; with partial messages the snapshot line of a block arrives
//     before that block's content_block_stop.
//   - 2.1.328 interleaves system/status ("requesting") before each request
//     and system/thinking_tokens between thinking deltas, and wraps a
//     long-running Bash call in system/task_started and task_notification
//     lines (task_type local_bash) between the tool_use and its result.
//   - An interrupt (control_request interrupt) ends the turn with a user
//     line "[Request interrupted by user]" and an error_during_execution
//     result. After SIGINT the CLI exits 0, and the result is a race:
//     2.1.328 wrote it in one recording and stopped after the interrupted
//     user line in the next; 2.0.50 writes none. Only the host knows it
//     cancelled (Outcome.Cancelled): the stream may just stop.
//   - A mid-stream SSE error is retried by 2.1.328 with a synthetic user
//     line (isSynthetic) asking the model to resume; the partial attempt's
//     snapshot stays in the transcript; 2.0.50 instead ended with
//     success and the partial text as the result.
//   - A dropped connection is retried with a system/api_retry line
//     (2.1.328); 2.0.50 reported an API error.
//   - 2.0.50 loses the end of a large stdout: the stream stops mid-line
//     with exit 0 (corpus big-text: after 66,760 bytes in one recording,
//     80,760 in the next); that is a malformed line and no result.
//   - The API failure is a synthetic assistant message with "error",
//     "is_api_error_message", model "<synthetic>" and an id that is a UUID.
//   - result carries 2.1.328 additions (terminal_reason, api_error_status,
//     subagent_stats, model_usage_since_last_result, result_index); unknown
//     fields are ignored, secondary fields are decoded leniently.
//
// # Decoding
//
// Each line is decoded once, by segmentio/encoding behind the depth guard
// (the package's one JSON library), into the typed shapes of wire.go: a
// line's content blocks, tool inputs and tool results are decoded with it,
// not kept as raw JSON and decoded again. stream_event, assistant and user
// lines that begin with their "type" take a fast path that decodes the
// type and session id with the line; other lines are peeked for them
// first. On the fast path member names match as the decoder matches them
// (letter case aside), on the general path exactly: the two differ only
// for a line that spells session_id in other letter cases. What is passed
// through whole, the Raw of a custom payload and the Data of an unmapped
// block, is built from the line's bytes when it is kept.
//
// # Control protocol
//
// ControlRequest.DecisionRequest maps can_use_tool to a DecisionRequest
// (plan_review for ExitPlanMode, question for AskUserQuestion, permission
// otherwise), and ControlRequest.Answer, or Parser.Resolve which also emits
// the hitl.resolved audit payload, encodes the control_response to write.
// A control_cancel_request withdraws a pending request: do not answer it.
package claude
