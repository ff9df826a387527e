// Package acp parses an Agent Client Protocol session — JSON-RPC 2.0 as
// newline-delimited JSON over stdio, spoken by Gemini CLI (--acp),
// opencode (opencode acp), GitHub Copilot CLI (--acp), Qwen Code (--acp)
// and any other ACP agent — into the driver contract: a
// lifecycle-checked StreamPayload stream, transcript items, the exact
// session/prompt response as the terminal, per-turn usage, a finish
// reason, and a checkpoint that is valid only when it is safe. The
// protocol is agentclientprotocol/agent-client-protocol's schema v1
// (schema/v1/schema.json, with the unstable additions of
// schema.unstable.json).
//
// The parser is a pure state machine: [Parser.Feed] takes the agent's
// messages (stdout) in wire order as jsonrpc.Frames, [Parser.FeedClient]
// optionally the client's (stdin) so that responses pair with requests
// and permission answers with the agent's requests, [Parser.FeedError]
// framing errors, and [Parser.Finish] the process outcome. [Parse] and
// [ParseSession] run it over a finished capture. It starts no goroutine;
// the connection belongs to the driver, which answers the agent's
// requests ([Parser.TakeRequests], [Request.Answer]) and writes the
// client's lines (AppendInitialize, AppendSessionNew, AppendSessionLoad,
// AppendPrompt, AppendCancel, AppendResult, AppendErrorResponse).
//
// # Which messages belong to this run
//
// This run's session is Options.SessionID, else the sessionId of the
// first session/new response, else the sessionId param of the client's
// session/load or session/resume (FeedClient). A session/update or agent
// request whose sessionId names another session is kept in the audit
// only: a custom payload acp/<kind or method> with Raw["scope"]="other"
// and one system item per other session. A loaded session's history,
// which the agent replays as session/update notifications before it
// answers session/load, is this run's input, not its output: those
// updates are custom payloads with Raw["scope"]="replay" and nothing
// else (Metadata replayed counts them). With the client side the
// session/load request marks the replay; without it, Options.Load. The
// specification has the agent replay before it answers session/load;
// Gemini CLI streams the history after its answer, so when the client
// side is fed live (the client's session/prompt not yet fed at the load
// response) the replay lasts until the client's session/prompt.
//
// Without the client side, responses are recognised by the shape of their
// result (protocolVersion: initialize; sessionId: session/new;
// stopReason: session/prompt), and an error response after the session
// is set up is taken as the prompt's; with the client side, by the method
// of the request with the same id. Client and agent ids are two separate
// spaces.
//
// # Mapping
//
//	message                                  payloads                                   transcript
//	-------                                  --------                                   ----------
//	initialize response                      acp/initialize {result}                    -
//	                                         (protocolVersion, agentCapabilities.
//	                                         loadSession, agentInfo: Metadata)
//	session/new response (sessionId),        run.started{ThreadID = session id}         init (SessionID, Model =
//	session/load|resume response                                                        models.currentModelId)
//	agent_message_chunk text                 text.start/content/end, MessageID =        assistant (the message's text)
//	                                         messageId or "message-N"
//	agent_thought_chunk text                 reasoning.start/content/end                thinking
//	user_message_chunk text                  -                                          user
//	chunk of another content type            acp/<kind> {update}                        -
//	(image, audio, resource)
//	tool_call, tool_call_update              tool_call.start Name = _meta.toolName      tool_call (Input, Metadata
//	                                         (Qwen Code), else kind, else "other";      kind, title; Data locations)
//	                                         Args = rawInput; opened when the call
//	                                         runs, ends or asks for permission
//	tool_call_update status in_progress or   acp/tool_call_update {update}              -
//	streamed content
//	tool_call_update completed|failed        tool_call.end Result{status, title,        tool_result (Text = the text
//	                                         output = rawOutput, content, locations,    content, IsError unless
//	                                         _meta}                                     completed)
//	plan, available_commands_update,         acp/<kind> {update}                        -
//	current_mode_update (Metadata mode),
//	config_option_update,
//	session_info_update, usage_update,
//	plan_update, plan_removed, notice,
//	compaction_update, compaction_summary_chunk
//	any other update kind                    acp/<kind> {update} (Metadata unknown)     -
//	session/request_permission               hitl.requested{RequestID = id, Kind        system "permission requested:
//	                                         permission, ToolCallID, Prompt = title,    <title>"
//	                                         Payload params, Choices = options}
//	the client's answer (FeedClient)         hitl.resolved{Result, Choice = optionId}   system "permission <option>: ..."
//	elicitation/create                       hitl.requested (Kind question)             system
//	fs/*, terminal/*                         acp/<method> {params}                      system "<method> <path or command>"
//	                                                                                    (and "<method> refused: ..." for an
//	                                                                                    error answer)
//	other agent requests and notifications   acp/<method> {params} (Metadata            -
//	(Qwen Code's craft/drainMidTurnQueue,    extensions for vendor methods, unknown
//	qwen/notify/*, _vendor/...)              otherwise)
//	session/prompt response                  open message and tool calls closed;        result (Subtype stopReason,
//	                                         the terminal at Finish                     Usage) at Finish
//	error response to session/prompt         the terminal                               failure (Metadata code, method)
//	error response to another request        -                                          failure
//	invalid line, line too long, bad         acp/malformed                              stdout (Metadata malformed,
//	update                                                                              line, offset)
//
// Every custom payload has Raw["count"], its number among the payloads
// of its kind, and the message's raw value; _meta members travel inside
// them unchanged. A message is a run of chunks of one kind and messageId:
// another messageId, another chunk kind, a tool call or the turn's end
// closes it. Custom payloads that arrive before run.started (the
// initialize response precedes the session) are held back and emitted
// right after it, so run.started carries the session id.
//
// # Terminal, finish and failure
//
// The response to session/prompt is the terminal: Terminal.Event is
// "session/prompt" and Terminal.JSON the exact bytes of that line; with
// several prompts in one session the last one's. Its stopReason decides:
//
//	stopReason          run                          Finish
//	end_turn            success                      stop
//	max_tokens          success                      length
//	max_turn_requests   success                      other
//	refusal             success                      content_filter
//	cancelled           failure, code cancelled      none
//	(another value)     success                      unknown (Metadata unknown)
//
// The run's failure is decided in this order. A run its caller stopped
// (Outcome.Cancelled, TimedOut) fails with code cancelled or timeout, and
// a prompt answered with stopReason cancelled with code cancelled, even
// when the stop went wrong too: an Outcome.Err that came with it (a
// process still holding the output pipes after the kill, a write to a
// closed stdin) goes to Metadata "error", leaves the checkpoint invalid
// and is returned by Finish, but does not make the cancellation an
// agent_error. Then a read or driver error (Outcome.Err) fails the run
// with code agent_error; a JSON-RPC error response to the prompt with
// code provider_error, ErrorType the JSON-RPC code ("-32603"), Message
// the error's message and Metadata data, and no usage, as for the model
// APIs; then a signal and a non-zero exit; a session without a prompt
// response fails with an error response to another request (initialize,
// session/new) if there was one, else as incomplete; with the client
// side fed, a session/prompt that got no response fails it as incomplete
// too.
//
// # Usage
//
// ACP has no one place for token counts; each agent reports them its own
// way, and the parser takes, per turn, the first of:
//
//	source                      agents                      meaning
//	result.usage                opencode, Copilot CLI       the turn's Usage (unstable schema)
//	result._meta.usage          (the same shape in _meta)   the turn's Usage
//	result._meta.quota          Gemini CLI                  token_count {input_tokens, output_tokens}: the
//	                                                        turn's model calls summed; input includes cached
//	                                                        input; output is candidatesTokenCount, which leaves
//	                                                        out thought tokens (Gemini CLI reports none)
//	update._meta.usage          Qwen Code                   one per model call, on an otherwise empty
//	                                                        agent_message_chunk; a turn's calls add up
//
// A later source of the same turn never adds to an earlier one: the
// prompt result's report replaces the turn's _meta.usage figures.
// Response.Usage sums the run's turns; Metadata usage_source says which
// sources were used. In the ACP Usage shape (inputTokens, outputTokens,
// thoughtTokens, cachedReadTokens, cachedWriteTokens, totalTokens) the
// schema does not say whether inputTokens counts the cache and
// outputTokens the thought tokens; the report's totalTokens does, and
// figures counted apart are added in (driver.Usage counts cache reads
// and writes among input, reasoning among output). usage_update (Copilot
// CLI) reports the context window (used, size) and the session's cost,
// not the turn's tokens: they go to Metadata context_used, context_size
// and cost, the last report replacing the earlier ones.
//
// # Checkpoint
//
// Checkpoint.State.ResumeID (and DisplayID) is this run's session id, the
// id session/load takes; Data is Options.SessionData. Valid is true only
// when the outcome is clean (exit 0, no signal, timeout, cancellation or
// error), there is no Failure, no malformed line or framing error was
// seen, the last prompt ended with a successful stopReason, the agent's
// initialize response advertised agentCapabilities.loadSession (an agent
// that cannot load a session gives no resume point), and Codec
// round-trips the state with a non-empty guard fingerprint. Otherwise
// Metadata checkpoint says why.
//
// # Protocol facts worth knowing (recordings of the four agents)
//
// Recorded from Gemini CLI 0.61.0, Copilot CLI 1.0.102 and Qwen Code
// 0.24.4 against a mock model server (corpus/acp):
//
//   - ACP has no tool name. Gemini CLI and Copilot CLI give only kind
//     ("execute") and a title (the command line, or the model's
//     description of it); Gemini CLI's toolCallId embeds its tool's name
//     (run_shell_command__run_shell_command_<ms>_0), which the parser does
//     not guess from; Qwen Code names it in _meta.toolName.
//   - Gemini CLI announces a shell call already in_progress, without
//     rawInput, its content the working directory; the completing update
//     carries content [] (the command's output is not in the protocol).
//     opencode announces it pending with rawInput {"cwd"} only (title
//     "bash") and sends the command with the in_progress update (title
//     the command), twice. Copilot CLI announces it pending with
//     rawInput, repeats it (with other members) in the permission request, streams the output as
//     cumulative content in tool_call_update (each replacing the last) and
//     ends with rawOutput holding the exit code. Qwen Code announces it
//     pending with rawInput {} ("phase":"preparing") and sends the input
//     with the permission request.
//   - Copilot CLI reports a failed model request (HTTP 400) as an
//     agent_message_chunk "Error: 400 ..." and ends the turn with
//     end_turn: at the protocol level the run succeeded. Gemini CLI
//     answers the prompt with a JSON-RPC error whose code is the HTTP
//     status (400) and whose message is the API's error body as a string;
//     Qwen Code with -32603 "Internal error".
//   - The usage places differ (see Usage): Gemini CLI result._meta.quota,
//     Copilot CLI result.usage plus usage_update (context window), Qwen
//     Code only _meta.usage on empty chunks (its prompt result's _meta has
//     qwen.branchPoint, no usage). Qwen Code replays the usage chunks with
//     the history of session/load; they are not counted. Copilot CLI and
//     Qwen Code count thoughtTokens among outputTokens (totalTokens =
//     inputTokens + outputTokens).
//   - Qwen Code calls the client with the vendor request
//     craft/drainMidTurnQueue during a turn, and sends its
//     available_commands_update (hundreds of KiB: 49 commands with their
//     _meta) after the prompt response: the terminal is not the last line.
//   - Every agent advertised loadSession. Qwen Code does not exit when its
//     stdin closes, nor Gemini CLI after a tool ran: a client stops them
//     with a signal, and that outcome, as every signal, leaves the
//     checkpoint invalid (contract §9).
//
// # Limits
//
// Framing limits are jsonrpc's (64 MiB lines, 512 levels of nesting). The
// parser keeps the text of the message being streamed (for its transcript
// item), per tool call its latest input, content and output until the
// call ends and a done marker after, and per agent request its params;
// memory grows with the number of calls and requests and the size of one
// message, not with the session. A Frame given to Feed is not retained.
package acp
