// Package appserver parses a Codex `app-server` session — JSON-RPC 2.0
// as newline-delimited JSON over stdio — into the driver contract: a
// lifecycle-checked StreamPayload stream, transcript items, the exact
// turn/completed terminal, per-turn usage and a checkpoint that is valid
// only when it is safe.
//
// The parser is a pure state machine: [Parser.Feed] takes the server's
// messages (stdout) in wire order as jsonrpc.Frames, [Parser.FeedClient]
// optionally the client's (stdin) so that responses pair with requests,
// [Parser.FeedError] framing errors, and [Parser.Finish] the process
// outcome. [Parse] and [ParseSession] run it over a finished capture. It
// starts no goroutine; the connection itself (jsonrpc/conn) belongs to
// the driver.
//
// # Scope: which messages belong to this run
//
// A session may carry several threads (subagents, forks) and a resumed
// thread's earlier turns. This run's thread id comes from a formal,
// top-level protocol id: Options.ThreadID, else the result.thread.id of
// the first thread/start, thread/resume or thread/fork response, else the
// params.thread.id of the first thread/started. Its turns come from the
// result.turn.id of turn/start responses and from turn/started of the
// same thread. A notification whose params.threadId names another thread,
// or whose params.turnId names a turn that is not one of this run's, is
// kept in the audit only — a custom payload appserver/<method> with
// Raw["scope"]="other" and one system transcript item per other
// thread/turn — and never touches this run's lifecycles, output, usage or
// terminal. Notifications without ids (configWarning, account/*) are
// session-wide and in scope.
//
// Without the client side, responses are recognised by the shape of their
// result (a "thread" object, a "turn" object); with it (FeedClient), by
// the method of the request with the same id. Client and server ids are
// two separate spaces: the client's initialize and the server's first
// approval request both have id 0.
//
// # Mapping
//
//	message                                   payloads                                  transcript
//	-------                                   --------                                  ----------
//	thread/start|resume|fork response         (sets the thread)                         init (SessionID, Model)
//	thread/started                            (sets the thread if unknown)              -
//	turn/start response, turn/started         run.started{ThreadID,TurnID}; step.started "turn"
//	item/started agentMessage                 text.start (MessageID = item id)          -
//	item/agentMessage/delta                   text.content                              -
//	item/completed agentMessage               text.content (whole text, if no delta)    assistant (Metadata phase)
//	                                          + text.end
//	item/started reasoning                    reasoning.start                           -
//	item/reasoning/summaryTextDelta, textDelta reasoning.content                        -
//	item/completed reasoning                  reasoning.end                             thinking (content, else summary, joined by \n)
//	item/completed userMessage                -                                         user (text inputs joined)
//	item/started commandExecution             tool_call.start Name "shell",             tool_call
//	                                          Args{command,cwd}
//	item/completed commandExecution           tool_call.end Result{status,exit_code,     tool_result (Text output, IsError
//	                                          output,duration_ms}                        for failed/declined)
//	fileChange                                tool "file_change", Args{changes[path,kind]}, Result{status,changes}
//	mcpToolCall                               tool "mcp/<server>/<tool>", Args = arguments, Result{status,result,error}
//	dynamicToolCall                           tool <tool>, Args = arguments, Result{status,content_items,success}
//	webSearch / imageView / imageGeneration   tool "web_search" {query} / "image_view" {path} / "image_generation"
//	collabAgentToolCall (collabToolCall)      tool "collab_agent" {tool,prompt,receiver_thread_ids}
//	plan, contextCompaction, entered/         appserver/<item type> with the raw item   system (on completion)
//	exitedReviewMode, hookPrompt, unknown
//	item types (e.g. sleep)
//	server request (id any, often 0):         hitl.requested{RequestID = id token,      system "approval requested: ..."
//	item/commandExecution|fileChange/          Kind permission|question, Source
//	requestApproval, permissions, user input,  appserver/<method>, ToolCallID item id,
//	elicitation, legacy exec/patch approvals   Payload params, Choices}
//	client answer (FeedClient) or             hitl.resolved{Result, Choice}             system "approval <choice>: ..."
//	serverRequest/resolved
//	thread/tokenUsage/updated                 - (Usage, see below)                      -
//	codex/event/token_count (v1)              appserver/<method> (Usage, see below)     -
//	error (willRetry true)                    appserver/error                           system (Metadata will_retry)
//	error (willRetry false)                   appserver/error                           failure (Metadata code)
//	configWarning, deprecationNotice          appserver/<method>                        system
//	error response to a client request        -                                         failure (Metadata code, method)
//	turn/completed (this run's turn)          open items closed; step.finished "turn";  result (Subtype status, IsError,
//	                                          the terminal at Finish                    Usage) at Finish
//	any other method (thread/status/changed,  appserver/<method> with Raw{method,params} -
//	account/rateLimits/updated, turn/diff/
//	updated, turn/plan/updated, item/*/
//	outputDelta, codex/event/* ...)
//	invalid line, line too long, bad params   appserver/malformed                       stdout (Metadata malformed)
//
// Custom payloads that arrive before run.started (configWarning and other
// session notices precede thread/start's response) are held back and
// emitted right after it, so run.started carries the thread and turn ids.
// At most 256 are held: a stream that sends more before the run's ids are
// known (a flood of notifications without a handshake) gets run.started
// without them then, and its payloads stream from there in order; the
// ids still reach the Response and the checkpoint.
//
// # Capability
//
// Native, TokenLevel, Reasoning and HITL, not ToolCallArgs: see
// [Capability]. Command output deltas are results, not arguments; they
// stay custom payloads (appserver/item/commandExecution/outputDelta).
//
// # Terminal and failure
//
// turn/completed of this run's turn is the only terminal: Terminal.Event
// is "turn/completed" and Terminal.JSON the exact bytes of that message
// line. With several turns in one session (turn/start twice) the last
// one's turn/completed is the terminal; with the client side fed, a
// turn/start that got no response also fails the run (the session ended
// before its last turn; without the client side this cannot be seen). Its turn.status decides:
// "completed" succeeds, "failed" fails with turn.error.message,
// "interrupted" fails with code cancelled. An `error` notification is
// never a terminal (with willRetry it is only a notice); items that got
// a start or deltas but no item/completed (an interrupted or failed turn,
// a retried stream) are closed before the terminal. The payload terminal
// (run.finished or run.error) is emitted by Finish, once, last.
//
// # Usage
//
// thread/tokenUsage/updated is the usage source (turn/completed has
// none); builds before it (0.58.0) report usage only in the v1
// notification codex/event/token_count, whose msg.info carries the same
// two figures in snake_case (total_token_usage, last_token_usage; info is
// null in a session's first one). The total is the thread's running
// total — for a resumed thread it covers the whole thread, earlier
// sessions included — and last is the last model call only. Neither is
// the turn's usage. The parser reports, per turn, the increase of total
// over the turn: the total of the turn's last update minus the thread
// total before the turn, which is the last total seen before it, or, for
// the first turn of the process, the first update's total minus its last.
// (0.58.0 repeats the previous turn's report when a turn begins, so the
// first report of a turn alone would count the previous call again.)
// Response.Usage sums this run's turns (Metadata usage_scope "turn"); the
// thread totals are in Metadata thread_input_tokens / thread_output_tokens.
// Input tokens include cached input tokens, as the server reports them.
// The two sources are never added: once a thread/tokenUsage/updated is
// seen, token_count is ignored (still kept as a custom payload).
//
// # Checkpoint
//
// Checkpoint.State.ResumeID (and DisplayID) is this run's thread id, the
// id thread/resume takes; Data is Options.SessionData. Valid is true only
// when the outcome is clean (exit 0, no signal, timeout, cancellation or
// error), there is no Failure, no malformed line or framing error was
// seen, this run's last turn/completed had status "completed", and Codec
// round-trips the state with a non-empty guard fingerprint. Otherwise
// Metadata["checkpoint"] says why.
//
// # Approvals
//
// The server asks for approvals with server-to-client requests whose ids
// count from 0 per session. [Parser.TakeApprovals] hands them to the
// driver as [Approval] values carrying a driver.DecisionRequest for
// driver.DecisionCapableSink, and [Approval.Answer] encodes the host's
// answer as the response line ({"id":<exact id>,"result":{"decision":
// "accept"|"decline"|"cancel"|...}}). The answer, fed back with
// FeedClient, becomes hitl.resolved; without the client side,
// serverRequest/resolved resolves the request with Result "answered"
// (the decision is then unknown). The hitl payloads are audit only.
// Requests about another thread or turn (a subagent's) are handed out too,
// with Approval.OtherScope set, because the server waits for every
// answer; they produce no hitl payload of this run.
//
// # Protocol facts worth knowing (codex 0.169.0 recordings)
//
//   - No "jsonrpc" member on any message, either way.
//   - The thread/start response precedes thread/started; the turn/start
//     response precedes turn/started; configWarning and
//     remoteControl/status/changed precede both.
//   - Every notification carries an "emittedAtMs" member beside params.
//   - Approval order: item/started (status inProgress) → the request →
//     the client's answer → serverRequest/resolved → item/completed.
//   - A retried model stream (error with willRetry true) starts a new
//     agentMessage item; the abandoned one never gets item/completed.
//   - turn/completed.turn.items is populated in 0.169.0 (an items summary)
//     and is not re-emitted.
//   - codex 0.58.0 sends v2 notifications without threadId/turnId, no
//     item/agentMessage/delta and no turn/completed (its turns end with the
//     legacy codex/event/task_complete, kept as a custom payload): a 0.58.0
//     session yields a terminal and a valid checkpoint only with
//     Options.LegacyTurnEnd, which takes task_complete (failed after a
//     codex/event/error) or turn_aborted as the turn end. 0.58.0 numbers
//     every turn "0" (or "1"), approves commands with the legacy
//     execCommandApproval request (decisions approved/denied), and reports
//     usage only in codex/event/token_count (see Usage).
//
// # Limits
//
// Framing limits are jsonrpc's (64 MiB lines, 512 levels of nesting).
// The parser keeps per item a few flags (not texts: deltas are streamed,
// the transcript takes item/completed's text) and per approval its
// request, so memory grows with the number of items and requests, not
// with their size. A Frame given to Feed is not retained.
package appserver
