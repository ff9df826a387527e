// Package gemini parses the Gemini API's streaming answer,
// models/{model}:streamGenerateContent?alt=sse on the Gemini Developer API
// (generativelanguage) and on Vertex AI (aiplatform), into the driver
// contract: text and reasoning lifecycles, tool calls, one finish, one
// usage, and typed errors.
//
// # The wire
//
// Every SSE event is `data: <one GenerateContentResponse>` followed by a
// blank line, usually with CRLF line ends; there are no event names, no
// ids and no terminal event: the stream ends with the body. Each response
// holds candidates[].content.parts[] (the new parts since the last
// event), a finishReason on the candidate's last event, and usageMetadata,
// a running snapshot repeated on every event. An HTTP error is a
// pretty-printed JSON body {"error": {code, message, status, details}},
// even when the response says Content-Type: text/event-stream.
//
// A Parser is the pure state machine: [New], then [Parser.Feed] for each
// sse.Frame (and [Parser.FeedError] for the reader's errors), or
// [Parser.FeedJSON] for a body that is not SSE, then [Parser.Finish].
// [Parse] takes the HTTP status, the content type and the body and sniffs
// the framing; [ParseResponse] takes an *http.Response.
//
// Decoding is one hand-written walk over JSON that jsonguard.Check has
// validated (see wire.go): members are matched by their exact names, every
// member this parser does not map is kept with its value (as a custom
// payload gemini/<name> with the value in Raw, emitted when its bytes
// change, so a value repeated on every chunk appears once), and a known
// member of the wrong JSON type is kept the same way and counted as a
// problem. Data that is not JSON is a malformed event: a stdout transcript
// item and a gemini/malformed payload with its line and byte offset; the
// stream goes on.
//
// # Parts
//
//	part                          payloads                                    transcript item
//	text                          text.start/content/end; consecutive text   assistant (the block's whole text,
//	                              parts are one block                         thought_signature in Data)
//	text + thought: true          reasoning.start/content/end                 thinking (likewise)
//	text "" + thoughtSignature    nothing: the signature goes to the open    -
//	                              block's item, else gemini/thoughtSignature  system "thought signature"
//	functionCall {name, args}     tool_call.start with complete Args, then    tool_call (Input = args,
//	                              tool_call.end at once (the client runs it)  thought_signature in Data)
//	functionCall {name,           tool_call.start without Args; fragments    tool_call (Input = the assembled
//	  willContinue: true} then    {partialArgs, willContinue} are assembled;  args, Metadata streamed_args)
//	  fragments, then {}          the fragment without willContinue ends it:
//	                              one tool_call.args (the JSON text), end
//	functionResponse (model role) tool_call.result of the call it answers     tool_result (provider_executed)
//	                              (its id, else the latest pending call of
//	                              its name): a server-side (MCP) tool ran
//	executableCode                tool_call.start "code_execution", Args      tool_call (provider_executed)
//	                              {language, code}
//	codeExecutionResult           tool_call.end of that call, Result          tool_result (Text = output,
//	                              {outcome, output, provider_executed}        IsError unless OUTCOME_OK)
//	inlineData, fileData          gemini/inlineData, gemini/fileData (Raw)    system, value in Data
//	anything else                 gemini/<member> with the part in Raw        system, value in Data; counted
//
// A part of another kind closes the open text or thought block, so text,
// a call and more text are two text blocks; Output is the text of
// candidate 0 concatenated in stream order with nothing added between
// blocks. Message ids are "text-N" and "thought-N", N counting blocks from
// 1; other candidates (candidateCount > 1) prefix them with "cI-" and only
// candidate 0 feeds Output.
//
// Function call ids: the API sends functionCall.id only sometimes (Gemini
// 3 models assign ids; Gemini 2.x and Vertex send none). A call without
// one gets "call-N", N counting the candidate's function calls from 1 in
// stream order (server ids count too), so the id is stable: the same
// bytes give the same ids under any chunking and on every run. A
// synthesized id is ours: it must not be sent back to the API (send the
// functionResponse by name, as the SDKs do). Code execution ids are
// "code-N" likewise.
//
// # Finish
//
// The run's finish is candidate 0's last finishReason (a server-side
// tool's call can carry STOP and be followed by its response and more
// text, so the stream is read to its end, and the last value wins); Raw
// is the value as sent.
//
//	finishReason                         FinishReason     why
//	STOP                                 stop             the model ended its turn
//	STOP with a function call no         tool_calls       Gemini has no tool-use reason of its own; a
//	  functionResponse answered                           turn that ends in client calls waits for them
//	MAX_TOKENS                           length           maxOutputTokens reached
//	SAFETY, BLOCKLIST,                   content_filter   a safety or policy filter withheld the
//	  PROHIBITED_CONTENT, SPII,                           output (terms blocklist, prohibited
//	  IMAGE_SAFETY,                                       content, personal data)
//	  IMAGE_PROHIBITED_CONTENT
//	RECITATION, IMAGE_RECITATION         other            stopped for reproducing a source: not a
//	                                                      safety judgement (the union names
//	                                                      recitation as other)
//	LANGUAGE                             other            an unsupported language
//	MALFORMED_FUNCTION_CALL,             other            the model produced an invalid or
//	  UNEXPECTED_TOOL_CALL,                               undeclared call; the response itself is
//	  TOO_MANY_TOOL_CALLS,                                complete, so it is not a provider error
//	  MISSING_THOUGHT_SIGNATURE                           (the caller decides to retry)
//	OTHER, IMAGE_OTHER, NO_IMAGE,        other            documented reasons with no closer member
//	  MALFORMED_RESPONSE
//	FINISH_REASON_UNSPECIFIED, any       unknown          not a value this table knows
//	  other value
//	(none; promptFeedback.blockReason)   content_filter   the prompt was blocked before any
//	                                                      candidate; Raw is "blockReason: <value>"
//
// Success and failure: a stream with a finishReason (or a prompt block) is
// a success, whatever the reason. Since the API has no terminal event, a
// body cut off after the event that carried the finishReason (and before
// any later one, as a server-side tool's second turn) cannot be told from
// a complete one unless the read itself failed. Failures, in this order: cancellation
// and timeout (Outcome); an error object, in an event or as the body
// (provider_error: ErrorType is error.status such as "RESOURCE_EXHAUSTED",
// Message is error.message, HTTPStatus the response's status, code and
// details in Metadata; the finish is error with Raw = the status); a
// status outside 200..299 without an error object (provider_error,
// ErrorType "http_<status>"); a read error of the body (incomplete, the
// stream broke off: this wins over an earlier finishReason, since the
// rest of the stream is unknown); and a stream that ended without any
// finishReason, prompt block or error (incomplete). A provider error
// carries no Usage.
//
// # Usage
//
// usageMetadata is a snapshot: each one with at least one count replaces
// the previous (Vertex AI sends {trafficType} alone until the last event,
// which is not a report). Per the driver's one meaning of Usage:
//
//	Usage field         from                                            why
//	InputTokens         promptTokenCount + toolUsePromptTokenCount      every input token: promptTokenCount
//	                                                                    already includes the cached content;
//	                                                                    the tool-use prompt (code execution,
//	                                                                    search, URL context results) is input
//	                                                                    billed beside it
//	CachedInputTokens   cachedContentTokenCount                         the cache reads among them
//	CacheWriteInputTokens  (never set)                                  Gemini reports no cache writes: a
//	                                                                    cache is created by its own request
//	OutputTokens        candidatesTokenCount + thoughtsTokenCount       every generated token: the API counts
//	                                                                    thoughts apart from candidates
//	ReasoningTokens     thoughtsTokenCount                              the reasoning among them
//
// so InputTokens + OutputTokens is totalTokenCount. The usageMetadata the
// Usage comes from is kept whole (details per modality, trafficType,
// serviceTier) in the result item's Data["usageMetadata"]; a provider
// error has neither.
//
// # Kept metadata
//
// groundingMetadata, citationMetadata, urlContextMetadata, safetyRatings,
// logprobs and any other candidate member go out as gemini/<name> payloads
// (Raw holds the value and the candidate index) when they change, and
// candidate 0's last grounding, citation, URL-context and safety values
// are in the result item's Data. promptFeedback goes out the same way;
// modelVersion is Response.Model; responseId is run.started's RunID and
// Metadata["response_id"]; createTime (Vertex AI) is
// Metadata["create_time"]. Response.RawStreams.Terminal is the last event
// that carried a finishReason ("finishReason"), a prompt block
// ("promptFeedback") or an error ("error"), byte for byte.
package gemini
