// Package geminicli parses the JSON lines Gemini CLI writes to stdout when
// run headless as
//
//	gemini -p "<prompt>" -o stream-json [--yolo] [--resume <session id>]
//
// into the driver contract, in one pass: transcript items, StreamPayloads
// when streaming, the exact terminal event, usage, the failure and a
// checkpoint that is valid only when it is safe. (Gemini CLI's --acp mode
// is ACP, another protocol; the model API it calls is parsers/gemini's.)
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
// [Capability] is fixed: Native, TokenLevel (assistant text arrives in
// "delta" message events, one per chunk of the model's stream), not
// Reasoning (the CLI never writes the model's thoughts to stream-json; the
// reasoning recording streams two thought parts and stdout shows none),
// not ToolCallArgs (tool_use carries the complete parameters), not HITL
// (headless mode does not ask: the approval mode decides, and without
// --yolo the tools that would need a confirmation are not even offered to
// the model), not Finish (no event carries the model's finish reason).
//
// # Mapping
//
// Built from the recordings in corpus/gemini-cli (Gemini CLI 0.61.0
// against the mock Gemini API) and the CLI's source of that release
// (packages/cli/src/nonInteractiveCli.ts, JsonStreamEventType). Every line
// is one JSON object with a "type" and a "timestamp" (ignored). Custom
// kinds are "gemini-cli/<name>".
//
//	wire event                        StreamPayloads                          TranscriptItems
//	init {session_id, model}          run.started ThreadID = session_id       init SessionID, Model
//	                                  (gemini-cli/init if something came first)
//	message role user {content}       — (the prompt, echoed)                  user Text (none if content is "")
//	message role assistant, delta     text.start (first chunk), text.content  assistant Text = the chunks joined,
//	                                  per chunk, text.end when any other      Model, when the message ends
//	                                  event comes (or at Finish)
//	message role assistant, no delta  text.start, content, end at once        assistant
//	message with another role         gemini-cli/message.<role> (Raw)         — (counted in Metadata["unknown"])
//	tool_use {tool_name, tool_id,     tool_call.start Name, Args =            tool_call ToolName, ToolUseID,
//	  parameters}                     parameters (complete)                   Input = parameters
//	tool_result {tool_id, status,     tool_call.end Result {status, output?,  tool_result ToolUseID, ToolName,
//	  output?, error? {type,message}} error? {type, message}}                 Text = error.message on error, else
//	                                                                          output; IsError unless status
//	                                                                          success; Data {status, error_type}
//	tool_result of no open tool_use   gemini-cli/tool_result (Raw)            tool_result (as above)
//	error {severity, message}         gemini-cli/error (Raw)                  system Text, Metadata {event: error,
//	                                                                          severity}
//	result {status, error?, stats}    run.finished Usage, or run.error, at    result Subtype = status, IsError
//	                                  Finish                                  unless success, Text and Errors =
//	                                                                          error.message, Metadata error_type,
//	                                                                          Usage, Data {stats}
//	other event types                 gemini-cli/<type> (Raw = the line)      — (counted in Metadata["unknown"])
//	malformed line, framing error     gemini-cli/malformed {error, line,      stdout Text = the line (or the
//	                                  offset, text}                           error), Metadata {malformed, line,
//	                                                                          offset}
//	blank line, leading BOM           —                                       —
//
// Assistant messages have no id on the wire: the parser numbers them
// "msg-1", "msg-2", ... in stream order; a message is the run of assistant
// chunks between two other events. Tool lifecycles use the CLI's tool_id
// (<tool>__<tool>_<Unix ms>_<n>: the model's call carried no id).
//
// # The result, Output, Failure
//
// result is the one terminal: nothing may follow it. The terminal payload
// is emitted only by Finish, which knows the process outcome.
// Response.RawStreams.Terminal is the result line, byte for byte.
//
// Output is the text of the last assistant message, which is what the
// CLI's -o json prints as "response" (the text after the last tool
// round); it is kept on a failed run too. Summary is always empty.
//
// Failure, in order of precedence: Outcome.Err, cancellation, timeout; a
// result whose status is not success (agent_error with error.message and
// ErrorType = error.type, the CLI's own error class such as "unknown" or
// "FatalTurnLimitedError"; cancelled for FatalCancellationError; when the
// result has no error member, the message of the error event before it);
// a signal; a non-zero exit after a success result; and a stream without
// a result, which is incomplete (FailureIncomplete), never a success.
//
// # Usage
//
// Usage comes from result.stats, the CLI's telemetry summed over every
// model request of this process (tool rounds included; a resumed run
// reports only its own requests: run 2 of the resume recording shows
// 100 in / 10 out, like run 1), never summed again here. The stats carry
// the API's usageMetadata summed, under other names:
//
//	Usage field         from                                  why
//	InputTokens         input_tokens (promptTokenCount)       every input token, cached included
//	CachedInputTokens   cached (cachedContentTokenCount)      the cache reads among them
//	OutputTokens        total_tokens - input_tokens, when     every generated token: output_tokens is
//	                    above output_tokens; else             candidatesTokenCount, without the thoughts,
//	                    output_tokens                         which only total_tokens counts
//	ReasoningTokens     total_tokens - input_tokens -         the thoughts (thoughtsTokenCount); the
//	                    output_tokens, when positive          stats do not split them from
//	                                                          toolUsePromptTokenCount, which the CLI's
//	                                                          main loop never incurs (it declares no
//	                                                          API-side tools)
//
// "input" (input_tokens - cached), duration_ms, tool_calls and the
// per-model figures ("models") stay in the result item's Data["stats"].
// The reasoning recording: total 190 = input 150 + output 15 + 25 thought
// tokens, so Usage is 150 in (50 cached) / 40 out (25 reasoning).
//
// # Checkpoint
//
// The resume id is init's session_id (what --resume takes; a resumed run
// announces the same id, as the resume recording shows; the result line
// carries none). The checkpoint is Valid only when the process exited 0
// with no signal, timeout, cancellation or error; there is no Failure; no
// line was malformed and no framing error was fed; a result with status
// success was seen; when resuming, init named the resumed session; and
// [Codec] round-trips the state with a non-empty guard. Otherwise it is
// returned with Valid false and the reason in Metadata["checkpoint"], or
// nil when no init was seen.
//
// Malformed means: a line that is not JSON, not an object with a string
// "type", or does not fit its event's shape (wrong member types, an init
// without session_id, a message without a string content, a tool event
// without tool_id, an unknown status); a second init, or init after other
// events; a tool_use whose id is still open; any line after the result.
// Each is kept as a stdout item with its line and byte offset, and parsing
// goes on. Unknown event types and message roles are not malformed.
//
// # Surprising protocol facts
//
//   - The model's thoughts never reach stream-json; only total_tokens
//     shows that there were any.
//   - A blocked answer (finishReason SAFETY, blocked recording) or a
//     stream that ends without a finishReason (stream-error: the API's
//     in-stream error object is not reported as such) gives an error event
//     and then a result with status "error" and no error member, and the
//     process exits 0: a clean exit is no proof of success.
//   - An API failure (HTTP 500 with general.maxAttempts 1, api-error) ends
//     with a result whose error is {"type":"unknown","message":"[API Error:
//     {...the API's error body...}]"} and all-zero stats, and the exit code
//     is the HTTP status modulo 256: 500 exits 244. A dropped connection
//     (disconnect) gives "[API Error: terminated]" and exit 1.
//   - SIGINT (cancel recording) ends the process with exit code 0 and no
//     result line: the stream just stops after the partial message. Only
//     the host knows it cancelled (Outcome.Cancelled); otherwise such a
//     stream is incomplete.
//   - A tool that fails (tool-failure: read_file of a missing file) is not
//     fatal: tool_result has status "error" with both an output ("File not
//     found.") and an error whose message names the absolute path, and the
//     run goes on to a success result.
//   - Gemini CLI loses the end of a large stdout, as Node programs that
//     exit with writes still queued on a pipe do: in big-output (a
//     tool_result line of about 390 KB) stdout stops mid-line, after
//     66,026, 196,608 and 328,170 bytes in three recordings, and the
//     process exits 0 though it went on to the next model request. The
//     cut line is malformed and there is no result: incomplete.
//   - Text before a tool call and the text after its result are two
//     assistant messages (two text lifecycles); Output is the second.
//   - With the default model "auto" the CLI first asks a router model
//     with a non-streaming generateContent request; the recordings pin
//     model.name in settings.json, and init names that model (it would
//     say "auto" otherwise).
package geminicli
