// Package anthropic parses the Anthropic Messages API stream (POST
// /v1/messages with "stream": true; Vertex AI's and Amazon Bedrock's
// streaming endpoints send the same events) into the driver contract: one
// pass, a pure state machine over the frames of package sse, with the
// finish and usage rules of driver.Finish and driver.Usage.
//
// A Parser is fed sse.Frames (New, Feed, FeedError, Finish); Parse runs a
// whole body through it and ParseHTTP takes an *http.Response. The input
// is the HTTP status, the content type and the body (Options.HTTPStatus,
// Options.ContentType): a status outside 200-299, or a media type other
// than text/event-stream, makes the body a document (the API's JSON error
// body), parsed whole in Finish into the typed error.
//
// # Events
//
//	event                        stream payloads                          transcript
//	message_start                run.started (RunID = message id)         init (Model, message_id)
//	content_block_start text     text.start "<message id>:<index>"        -
//	  text_delta                 text.content                             -
//	  citations_delta            anthropic/citation (the citation)        -
//	content_block_stop text      text.end                                 assistant (Text, Data citations)
//	content_block_start thinking reasoning.start "<message id>:<index>"   -
//	  thinking_delta             reasoning.content                        -
//	  signature_delta            -                                        -
//	content_block_stop thinking  reasoning.end                            thinking (Data signature)
//	redacted_thinking            anthropic/block.redacted_thinking        system (Data data)
//	tool_use, server_tool_use,   tool_call.start (id, name)               -
//	mcp_tool_use
//	  input_json_delta           tool_call.args (non-empty fragments)     -
//	content_block_stop call      tool_call.end                            tool_call (Input)
//	*_tool_result                tool_call.result for tool_use_id         tool_result (Data content)
//	message_delta                -                                        -
//	message_stop                 run.finished (Finish, Usage)             result (Usage, stop_reason)
//	error                        run.error (provider_error)               result (IsError)
//	ping                         -                                        -
//	another event                anthropic/<event> with the exact data    - (counted in Metadata["unknown"])
//	another block                anthropic/block.<type> with the exact data   system
//	another delta                anthropic/delta.<type> with the exact data   -
//
// A call's input is its input_json_delta fragments concatenated and parsed
// at content_block_stop; fragments may be empty (the first usually is),
// and a call with no fragment, or only empty ones, takes the block's own
// input ({} when that is empty). Input that is not a JSON object is kept
// as the raw string with IsError and Metadata["invalid_input"], never
// handed on as a valid call. A start whose input is already a non-empty
// object carries it as complete Args (and no tool_call.args follow).
//
// Server tools (server_tool_use for web search, web fetch, code execution,
// ...; mcp_tool_use) are calls the provider executes: the same tool_call
// lifecycle, Metadata["provider_executed"] on the transcript item, and the
// *_tool_result block that follows becomes its tool_call.result (with
// is_error when the result content's type ends in "_error" or the block
// says is_error) and a tool_result item.
//
// Output is the text deltas of the message concatenated in stream order,
// with no separator between blocks, as the SDKs accumulate them. A failed
// stream's Output is what it had produced.
//
// # Judgement calls on the stream
//
//   - The JSON "type" decides what an event is, as in the SDKs, which
//     decode the data by it; an SSE event name that is set and differs is
//     counted as malformed (Metadata) but the event is applied.
//   - A second message_start with another id, or with the same id once
//     blocks began, is a restart spliced into the stream (a server-side
//     retry): the first attempt's open blocks are closed and kept in the
//     transcript with Metadata["abandoned"], an anthropic/message_start
//     payload marks the restart, and the message, its Output and its usage
//     start again, as the SDKs replace their snapshot. A repeat of the
//     same id before any block is a duplicate; only its usage counts.
//   - message_stop is the terminal; anything after it (but a ping) is
//     malformed and not applied. So is anything after an error event.
//   - Deltas for an index that was never started open a text or thinking
//     block (malformed, content kept); a delta that does not fit its block
//     (text_delta on a tool call) is malformed.
//   - ping, comments and blank lines carry nothing: the framing keeps their
//     bytes, the parser emits nothing for them.
//   - A last event without its blank line (sse.Frame.Incomplete) is applied
//     like any other: a message_stop there still ends the stream well.
//   - The terminal's JSON (Response.RawStreams.Terminal) is the event's data
//     trimmed of whitespace, exact bytes of the body; a terminal whose data
//     was split over several data lines has none (and counts as
//     malformed).
//
// # Finish reasons
//
// Every stream that reached message_stop is a success, whatever its stop
// reason; its Finish maps the stop_reason of the last message_delta:
//
//	stop_reason                      FinishReason     why
//	end_turn                         stop
//	stop_sequence                    stop             the stop sequence is in Metadata["stop_sequence"]
//	max_tokens                       length
//	model_context_window_exceeded    length           the context window, not max_tokens, cut the output
//	                                                  short: the same "generation was truncated"
//	tool_use                         tool_calls
//	refusal                          content_filter   the model declined for policy reasons; the
//	                                                  classifier's stop_details stay in the result
//	                                                  item's Data
//	pause_turn                       other            a long server-tool turn was paused; the client
//	                                                  sends the response back to continue it. Not
//	                                                  tool_calls: there is no client tool to run; not
//	                                                  stop: the turn is not over
//	compaction                       other            (beta) the server compacted the context and paused,
//	                                                  to be continued the same way: neither finished
//	                                                  nor truncated
//	anything else                    unknown          Raw keeps it
//	(none before message_stop)       unknown          Raw is empty
//
// The failures (driver.Finish's rules, adaptertest FIN-*): an error event
// (provider_error with the error's type and message and
// Options.HTTPStatus) and a document body (provider_error with its status
// and, from a JSON error body, type, message and request_id) carry the
// Finish {error, <error type>} ("error" when the error has no type) and no
// Usage, the same as the openai and gemini parsers; a cancelled or
// timed-out exchange, and a stream that ended without message_stop and
// without an error (incomplete, never a success), carry no Finish.
//
// # Usage
//
// message_start.message.usage gives the first figures; message_delta's
// usage replaces every member it carries (output_tokens there is the
// running total, and newer API versions repeat the input members), so a
// figure is never summed:
//
//	driver.Usage              Anthropic usage
//	InputTokens               input_tokens + cache_read_input_tokens + cache_creation_input_tokens
//	CachedInputTokens         cache_read_input_tokens
//	CacheWriteInputTokens     cache_creation_input_tokens
//	OutputTokens              output_tokens (thinking included, as Anthropic bills it)
//	ReasoningTokens           output_tokens_details.thinking_tokens, when reported
//
// Anthropic's input_tokens counts only the uncached part of the prompt,
// which is why the cache members are added. The figures cover one
// response (one request). server_tool_use (web_search_requests, ...) and
// iterations have no Usage member; they stay in the result item's
// Data["message_delta"]. A provider error reports no Usage; an incomplete,
// cancelled or timed-out stream reports what message_start and any
// message_delta had said.
//
// # Speed
//
// Text, thinking, signature and argument deltas and block stops in the
// API's own byte layout are recognised without a general JSON decode
// (fast.go); every other event, and any delta laid out differently, goes
// through jsonguard.Unmarshal into typed structs. Both paths give the same
// result for the same event.
package anthropic
