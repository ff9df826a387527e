// Package openai parses the two OpenAI streaming wire formats into the
// driver contract, in one pass: the Responses API stream (POST
// /v1/responses, "stream": true) and the Chat Completions stream (POST
// /v1/chat/completions, "stream": true), which is also what Azure OpenAI,
// OpenRouter, Groq, DeepSeek, Mistral, xAI, Together, vLLM, Ollama, LM
// Studio and the other OpenAI-compatible servers send, each with its own
// deviations. One package holds both because they share everything but the
// event shapes: the input (HTTP status, content type, body), the error
// objects, the usage fields, the emitter and the Response; [Options.Format]
// picks one, or [Auto] detects it from the first event.
//
// # Use
//
// Frame the body with sse, call [Parser.Feed] for every frame and
// [Parser.FeedError] for every framing error, then [Parser.Finish] with the
// outcome of the exchange. A body that is not an event stream (the JSON
// error of a non-2xx response, a non-streamed JSON response) goes to
// [Parser.FeedBody] instead. [Parse] does all of that from the HTTP status,
// the content type and the body, and keeps the exact body in
// RawStreams.Stdout; [ParseHTTP] takes an *http.Response. A Parser is a
// plain state machine: no goroutines, not safe for concurrent use.
//
// # Capability
//
// [Capability] is fixed: Native, TokenLevel (text arrives in deltas),
// Reasoning (summaries, raw reasoning text, reasoning_content), ToolCallArgs
// (arguments arrive in fragments), Finish (both formats always say why
// generation stopped); not HITL.
//
// # Output and transcript
//
// Output is the assistant's text deltas concatenated in stream order, with
// nothing added between messages or content parts (as the SDKs accumulate
// them). Refusal text is not part of it: it travels as the custom kind
// <provider>/refusal and as an assistant item with Metadata refusal=true.
// With n > 1 every Chat choice is its own message (MessageID
// "<chunk id>:<index>", items with Metadata choice=<index>); Output and the
// run's Finish are those of the choice with the lowest index (choice 0:
// what the SDKs' first choice is), the other choices' finishes are in their
// items.
//
// Transcript items: init (Model; Responses: SessionID = the response id,
// the handle of previous_response_id; Chat: Metadata id = the completion
// id), then per item as it completes: thinking (one per reasoning part),
// assistant (a message's whole text; annotations in Data, phase in
// Metadata), tool_call (Input = the parsed arguments; arguments that are
// not valid JSON, such as a call cut by max_output_tokens, stay the raw
// string with IsError and Metadata invalid_arguments, never handed on as a
// valid call), tool_result (provider-executed tools only), failure (an
// error event, Metadata code), stdout (a malformed event, Metadata
// malformed, line and offset).
//
// # Responses mapping
//
// Items are keyed by output_index, then item_id: GitHub Copilot's
// Responses endpoint rotates item_id between the events of one item.
// Custom kinds are "openai-responses/<event type>" with the whole event in
// Raw. sequence_number counts a response's events; the last one is
// Metadata sequence_number. A number that is not the previous one plus
// one (a gap, a repeat, a step back) is reported to Options.Unpaired at
// the event, as are events for an item no output_item.added announced and
// items not done when the terminal came; the first number may be any (a
// resumed stream starts after starting_after). Vercel's trimmed fixtures
// (public/vercel-openai-responses-phase) show such gaps.
//
//	event                                      StreamPayloads                     TranscriptItems
//	response.created                           run.started RunID = response.id    init
//	response.in_progress, response.queued      openai-responses/<type> {status}   —
//	output_item.added message                  —                                  —
//	output_text.delta                          text.content (opens text.start)    —
//	output_text.done, content_part.*           — (their text only when no delta   —
//	                                           carried it: proxies that send
//	                                           only whole parts)
//	output_text.annotation.added               openai-responses/<type>            (Data annotations)
//	refusal.delta / .done                      openai-responses/refusal           —
//	output_item.done message                   text.end                           assistant; refusal
//	reasoning_summary_text.delta               reasoning.content, one lifecycle   —
//	                                           per summary part ("<id>:<n>")
//	reasoning_text.delta (raw CoT)             reasoning.content ("<id>:text:<n>")
//	output_item.done reasoning                 reasoning.end; with               thinking per part (encrypted_content
//	                                           encrypted_content: openai-         in the last one's Data)
//	                                           responses/reasoning.encrypted_content
//	output_item.added function_call,           tool_call.start ToolCallID =       —
//	custom_tool_call, local_shell_call,        call_id, Name = the function (or
//	shell_call, apply_patch_call,              the type without _call)
//	computer_call, mcp_approval_request
//	function_call_arguments.delta,             tool_call.args                     —
//	custom_tool_call_input.delta,
//	apply_patch_call_operation_diff.delta,
//	shell_call_command.delta
//	output_item.done of those                  tool_call.end                      tool_call (function_call: parsed
//	                                                                              arguments; custom: the input text;
//	                                                                              others: the action or operation)
//	output_item.added web_search_call,         tool_call.start (Name web_search,  —
//	file_search_call, code_interpreter_call,   file_search, code_interpreter,
//	image_generation_call, mcp_call,           image_generation, the MCP tool,
//	mcp_list_tools, tool_search_call           mcp_list_tools, tool_search)
//	their progress events (web_search_call.    openai-responses/<type>            —
//	searching, ..., partial_image);
//	mcp_call_arguments.delta,                  tool_call.args
//	code_interpreter_call_code.delta
//	output_item.done of those                  tool_call.end Result = the item    tool_call (action, arguments or code;
//	                                                                              Metadata executed_by=provider),
//	                                                                              tool_result Data {item}
//	output item of another type                openai-responses/item.<type>       — (counted in Metadata unknown)
//	response.completed / .incomplete           run.finished Usage, Finish         —
//	response.failed, error                     run.error (provider_error)         failure
//	another event type                         openai-responses/<type>            — (counted)
//
// The terminal's response.output completes every item the stream did not
// (a server that sends only the final snapshot, or an item whose .done
// never came), so the items and Output are the same either way.
//
// # Chat Completions mapping
//
// Custom kinds are "openai-chat/<name>". Every chunk's choices are read in
// order; each choice is one message.
//
//	chunk member                                StreamPayloads                   TranscriptItems
//	first chunk id, model                       run.started RunID = id           init
//	delta.reasoning_content, delta.reasoning    reasoning.content; the block     thinking when text or a call
//	(reasoning_content wins: providers that     ends when text or a call starts  follows, or the choice ends
//	send both send the text twice)
//	delta.content (a string, or text parts)     text.content                     assistant at the choice's end
//	delta.refusal                               openai-chat/refusal              assistant Metadata refusal
//	delta.tool_calls[], legacy function_call    tool_call.start/args/end         tool_call at the choice's end
//	finish_reason                               closes the choice's lifecycles   the choice's items
//	usage, x_groq.usage                         run.finished Usage               —
//	error (top level), event: error             run.error (provider_error)       failure
//	a chunk with no choices and no usage        openai-chat/chunk (or /extra     —
//	(Azure's prompt_filter_results)             without choices), whole in Raw
//	choices[].content_filter_results (Azure)    openai-chat/content_filter       assistant Data content_filter_results
//	                                            when a category is filtered      (each value once while it repeats;
//	                                                                             a system item when no text came)
//	data: [DONE]                                the terminal                     —
//
// Tool calls are assembled per choice; the providers disagree on how:
//   - OpenAI numbers calls by index, with id, type and function.name on the
//     first fragment and only argument pieces after it; Anthropic's
//     compatible endpoint starts at index 1 after a text block and sends
//     empty argument fragments;
//   - a fragment with an id belongs to the call with that id; an id not
//     seen before opens a new call even at an index in use (providers that
//     number every parallel call 0);
//   - a fragment without an id belongs to the latest call at its index,
//     or, without an index either (providers that omit it), to the
//     choice's latest call;
//   - a whole call may come in one fragment (Groq); later fragments may
//     repeat the type and an empty name (Mistral): the first non-empty name
//     stays; arguments may be a JSON value instead of a string (some local
//     servers): its text is used.
//
// A call is opened (tool_call.start) once its name is known; argument
// pieces that came first are sent with it.
//
// # Terminal, success and failure
//
// Responses: response.completed or response.incomplete is the terminal of
// a successful run; response.failed (with or without an error event before
// it) and an error event alone are provider errors. api.openai.com sends
// no [DONE] on this API; OpenRouter appends one, which is ignored.
//
// Chat: data: [DONE] is the terminal. Several providers end the stream
// without it (and the vercel/ai recordings strip it); a finish_reason
// received for the Output choice is then authoritative and the run is a
// success (Metadata done_sentinel=absent). A stream with neither is
// incomplete. The Terminal payload is the chunk that carried the Output
// choice's finish_reason.
//
// An error chunk (a top-level "error" object beside or instead of the
// choices, OpenRouter), an "event: error" frame (Groq, which then closes)
// and a non-2xx response are provider errors: FailureProviderError with
// ErrorType = the error's code when it is a string ("rate_limit_exceeded",
// "insufficient_quota", "tool_use_failed"), else its type
// ("invalid_request_error"); Message; HTTPStatus = the response's status
// (Options.HTTPStatus for an in-stream error); type, code, param and a
// status_code the object names in Metadata. The first error is the run's;
// a later finish_reason does not undo it. The run then has Finish
// {error, <code>} and no Usage. A body that ends before its terminal is
// FailureIncomplete, whose message says what was open (a message, or the
// arguments of which call); Outcome.Err (a read error) makes it
// incomplete too, unless the terminal had arrived.
//
// # Finish mapping
//
//	Responses                                  Finish
//	response.completed, no client tool call    stop, raw "completed"
//	response.completed with a client tool      tool_calls, raw "completed": the model stopped to
//	call (function_call, custom_tool_call,     have them run; mcp_approval_request counts, since the
//	local_shell_call, shell_call,              turn waits for the client's answer; provider-executed
//	apply_patch_call, computer_call,           tools do not, they already ran
//	mcp_approval_request)
//	response.incomplete max_output_tokens      length, raw "incomplete: max_output_tokens"
//	response.incomplete content_filter         content_filter, raw "incomplete: content_filter"
//	response.incomplete, another reason        unknown, raw "incomplete: <reason>"
//	status cancelled (background responses)    other, raw "cancelled"
//	response.failed / error                    error (with the failure)
//
//	Chat finish_reason                         Finish (raw = the value)
//	stop; eos, end_turn, stop_sequence         stop (the last three from compatibles that pass
//	                                           their own value through)
//	length; max_tokens, model_length,          length
//	max_output_tokens,
//	model_context_window_exceeded
//	tool_calls; function_call (legacy),        tool_calls
//	tool_use
//	content_filter; safety, sensitive,         content_filter
//	refusal
//	error (OpenRouter)                         a provider error, ErrorType "error", unless an
//	                                           error object said more
//	abort, cancelled, pause_turn, recitation,  other
//	insufficient_system_resource
//	anything else                              unknown
//	[DONE] with no finish_reason               unknown, raw ""
//
// A refusal does not change the finish: OpenAI reports it as content
// (refusal parts, delta.refusal) beside finish_reason stop / status
// completed, and the Finish keeps the provider's own judgement; the
// refusal text is in the transcript.
//
// # Usage mapping
//
// Usage has one meaning for every provider (see driver.Usage); it covers
// the one request the body answers. A report replaces the one before it,
// never adds to it: providers that send cumulative usage on every chunk
// (Groq in x_groq, several local servers) end with the last one.
//
//	driver.Usage             Responses                                Chat
//	InputTokens              input_tokens                             prompt_tokens
//	CachedInputTokens        input_tokens_details.cached_tokens       prompt_tokens_details.cached_tokens;
//	                                                                  DeepSeek prompt_cache_hit_tokens
//	CacheWriteInputTokens    input_tokens_details.cache_write_tokens  prompt_tokens_details.cache_write_tokens
//	                         (OpenAI reports none)                    (OpenRouter), cache_creation_tokens
//	OutputTokens             output_tokens                            completion_tokens
//	ReasoningTokens          output_tokens_details.reasoning_tokens   completion_tokens_details.reasoning_tokens
//
// OpenAI's input and output counts already include the cached and the
// reasoning tokens (as do DeepSeek's prompt_tokens, the hit plus the miss
// tokens), so no sum is needed; the names of either API are read in both
// (compatible Responses servers use prompt_tokens). A usage object with
// neither an input nor an output count (null, {}) is no report. Usage is
// only reported with a successful finish: a failed or incomplete run has
// none.
//
// # Robustness
//
// Every frame's data is validated (jsonguard.Check: syntax and a depth
// limit) before it is read; a frame that is not a JSON object, or breaks
// the protocol (an event after the terminal, a second [DONE]), is a
// malformed event: a stdout item and a <provider>/malformed payload with
// the line and byte offset, and parsing goes on. An sse framing error (an
// event over the size limit) is the same. Comments (": OPENROUTER
// PROCESSING"), empty data lines, event: lines that disagree with the JSON
// type (the type wins) and unknown members carry nothing. Numbers may come
// as floats and strings may carry escapes anywhere; members of the wrong
// type count as absent.
package openai
