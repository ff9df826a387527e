// Package codex parses the JSONL stream `codex exec --json` writes to
// stdout (`--experimental-json` is the same output) into the driver
// contract, in one pass: transcript items, StreamPayloads when streaming,
// the exact terminal event, usage, the failure and a checkpoint that is
// valid only when it is safe.
//
// # Use
//
// Frame stdout with ndjson, call [Parser.Feed] for every frame and
// [Parser.FeedError] for every framing error, then [Parser.Finish] with the
// process outcome. [Parse] does all of that over a finished capture and
// fills the raw streams. A Parser is a plain state machine: no goroutines,
// not safe for concurrent use.
//
// # Capability
//
// [Capability] is fixed: Native (a formal event protocol), Reasoning
// (reasoning summaries are items), not TokenLevel (an agent message
// arrives whole, in item.completed), not ToolCallArgs (a tool item's first
// event carries the complete call), not HITL (exec is non-interactive; a
// command refused by the sandbox policy is a declined command_execution).
//
// # Mapping
//
// Built from the recordings in corpus/codex (codex 0.58.0 and 0.169.0
// against the mock Responses server) and the public 0.46.0 captures in
// testdata/public; the shapes of items no recording has yet (mcp_tool_call,
// web_search, todo_list, collab_tool_call, plan) follow
// codex-rs/exec/src/exec_events.rs. Ids are the item's "id" (item_N,
// numbered per process). Custom kinds are "codex/<name>" with the whole
// event (or item) in Raw.
//
//	wire event / item              StreamPayloads                              TranscriptItems
//	thread.started {thread_id}     run.started ThreadID (codex/thread.started  init SessionID
//	                               if a warning already started the run)
//	turn.started                   step.started "turn"                         —
//	item.* agent_message           text.start, text.content (whole text),     assistant Text (non-empty text)
//	                               text.end, all on item.completed
//	item.* reasoning               reasoning.start/content/end, likewise       thinking Text
//	item.* command_execution       tool_call.start Name "command_execution"    tool_call Input {command};
//	                               Args {command}; tool_call.end Result        tool_result Text=aggregated_output,
//	                               {status, exit_code, output}                 Data {status, exit_code},
//	                                                                           IsError on failed/declined or exit≠0
//	item.* file_change             tool_call.start Args {changes[]{path,kind,  tool_call; tool_result Data
//	                               diff?}}; end Result {status, changes}       {status, changes}, IsError on failed
//	item.* mcp_tool_call           tool_call.start Args {server, tool,         tool_call; tool_result Text = the
//	                               arguments}; end Result {status, result,     result's text blocks (or the error
//	                               error}                                      message), IsError when error is set
//	item.* web_search              tool_call.start Args {query, action};       tool_call; tool_result
//	                               end Result {query, action}
//	item.updated of an open tool   codex/item.updated                          —
//	item.* todo_list               codex/todo_list on every event              system (completed only): "[x] step"
//	                                                                           lines, Data {items}
//	item.* error (a warning)       codex/error_item                            system Text=message (completed only)
//	item.* other types             codex/<item type> (collab_tool_call, plan,  system "codex item <type>" (completed
//	                               anything newer)                             only), Data {event}
//	turn.completed {usage}         step.finished "turn"; run.finished Usage    result Subtype turn.completed, Usage
//	                               at Finish                                   as reported, Data {usage: extra fields}
//	turn.failed {error.message}    step.finished "turn"; run.error at Finish   result Subtype turn.failed, IsError,
//	                                                                           Text and Errors = message
//	error {message}                codex/error                                 system Text=message
//	other event types              codex/<type> (item.plan.delta,              system "codex event <type>",
//	                               request_user_input, anything newer)         Data {event}
//	malformed line, framing error  codex/malformed {error, line, offset, text} stdout Text=line (or the error),
//	                                                                           Metadata {malformed, line, offset}
//	blank line                     —                                           —
//
// A tool item seen first as item.completed (file_change in 0.46.0) opens
// and closes its call on that event. Lifecycles of different items
// interleave freely; Finish closes whatever is still open (a cut-off
// stream) before the one terminal payload. An item id used again after
// its item.completed gets a new lifecycle "id#2" (and is malformed).
//
// # Which events end a run
//
// turn.completed is the success terminal and turn.failed the failure
// terminal; one exec process runs one turn, so nothing may follow them. A
// top-level error event is NOT a terminal: codex sends it for retry notices
// ("Reconnecting... 1/5") on runs that then complete, and before
// turn.failed on runs that fail; its message is kept for the Failure of a
// run that ends without a terminal. An interrupted turn (SIGINT) writes no
// terminal line at all: the outcome comes from the process.
//
// The terminal payload is emitted only by Finish, which knows the process
// outcome: a turn.completed followed by a non-zero exit is a run.error.
// Response.RawStreams.Terminal is the turn.completed or turn.failed line,
// byte for byte.
//
// # Output, Summary, Usage
//
// Output is the text of the last completed agent_message (the CLI's own
// --output-last-message), also on a failed run. Summary is always empty:
// the protocol has no summary. Usage is what turn.completed reported:
// input_tokens (including cached), cached_input_tokens, output_tokens,
// summed by codex over the model requests of the turn; never summed again
// here. What the figures cover depends on the release, and the recorded
// resume case shows it: codex 0.58.0 reports the process's own requests
// (run 2 of a resumed thread: 100 in / 10 out, like run 1), codex 0.169.0
// reports the thread's running total (the app-server-backed exec copies
// tokenUsage.total; run 2: 200 / 20). Options.UsageTotals selects the
// reading; by default the thread reading applies when the usage object has
// cache_write_input_tokens, which only the app-server-backed releases
// write. For thread totals the checkpoint stores them (the codex.usage.*
// Data keys); given that state as Options.Resume, the parser reports this
// run's share, the difference (run 2 of 0.169.0: 100 / 10). When it cannot
// (no stored totals, another thread, totals that went down, as after a
// compaction) it reports the totals and Metadata["usage_scope"] says
// "thread_total" instead of "run". The turn.completed transcript item
// always keeps the figures as reported. Newer fields
// (cache_write_input_tokens, reasoning_output_tokens) have no Usage field
// and stay in that item's Data.
//
// # Checkpoint
//
// The checkpoint's ResumeID and DisplayID are the thread_id of the
// top-level thread.started event: the only place codex names the thread.
// It is Valid only when all of these hold: the process exited 0 with no
// signal, timeout, cancellation or error; no Failure; no malformed line or
// framing error; turn.completed was seen; when resuming, codex announced
// the same thread; and [Codec] round-trips the state with a non-empty
// guard. Otherwise it is returned with Valid false and the reason in
// Metadata["checkpoint"]; without a thread.started there is none.
//
// Malformed means: a line that is not JSON, not an object with a string
// "type", or does not fit its event's shape (wrong types, missing required
// members: thread_id, item, item type, item id, usage, a message); a
// second thread.started or turn.started; thread.started after other
// events; items (other than error warnings) before thread.started; an item
// that changes type or has events after its completion; any line after
// the terminal. A leading byte order mark is not malformed: it is skipped
// and kept in the raw stream, as every parser does (package ndjson). Each is kept as a stdout item and
// parsing goes on. Unknown event and item types are not malformed: codex
// adds them over time. They are counted in Metadata["unknown"]; an unknown
// event type is a custom payload codex/<type> only (no transcript item, so
// that a flood of them keeps the transcript short), an unknown item type a
// custom payload and, on completion, a system item.
//
// # Decoding and speed
//
// Each line goes once through a hand-written walk (fastdecode.go) that
// validates it as jsonguard.Check does, reads its "type" and, for the item
// events that carry nearly all the bytes, decodes the item where it
// stands: a string without escapes is found with one vectorized scan and
// copied once; one with escapes is decoded into a buffer allocated at its
// final size. A line outside the shape codex writes (a case variant or a
// duplicate of a member name, a value of another type, invalid JSON) is
// left to ndjson.Frame.Type and the reflective decoder, so encoding/json's
// rules stay the only semantics; a differential fuzz target
// (FuzzItemDecode) holds the walk to them. BenchmarkParse measures the
// whole of Parse (framing, the tee that keeps stdout, parsing, a counting
// sink) on a synthetic 26 MB, 20,003-line session; see bench/README.md.
//
// # Surprising protocol facts
//
//   - stdout carries only JSONL; every human-readable line ("Reading
//     additional input from stdin...", errors before the session starts)
//     goes to stderr. So a non-JSON stdout line is malformed, never a
//     banner to skip.
//   - agent_message and reasoning items have no item.started: the text
//     arrives complete, however many deltas the model streamed (the
//     recordings stream seven).
//   - Empty reasoning summaries are dropped by codex; an empty
//     agent_message is possible and yields a lifecycle without content and
//     no transcript item.
//   - web_search items serialize two "id" members (the item id, then the
//     provider's search id, through a flattened struct); JSON decoding keeps
//     the last, so the provider id is the lifecycle id. Both events of one
//     search carry the same pair, so the lifecycle stays paired.
//   - An error item (a warning) may come before thread.started.
//   - 0.169 adds cache_write_input_tokens and reasoning_output_tokens to
//     usage; 0.58 and 0.46 do not. Usage is process-scoped in 0.58 and
//     thread-scoped in 0.169 (see above).
//   - A transient upstream failure is retried inside the turn: an error
//     event "Reconnecting... 1/N", then the same agent message may be
//     completed again under a new item id (stream-error recording), then
//     either turn.completed or a second error and turn.failed. Output is
//     the last completed message.
//   - SIGINT (cancel recording) ends the process with no terminal line,
//     with exit code 1 in 0.169.0 but exit code 0 in 0.58.0: a clean exit
//     is no proof of success, only turn.completed is. The agent message
//     completed before the signal stays in the transcript and Output.
//   - A failed turn exits 1 after turn.failed, the message repeated from
//     the error event before it.
package codex
