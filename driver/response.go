package driver

import "encoding/json"

// Response is the complete result of one run, formed from a single parse of
// the provider's formal protocol. Live events never replace it.
type Response struct {
	// Output is the final assistant-facing text. It never contains raw
	// stdout or stderr, the Summary, or terminal JSON.
	Output string `json:"output,omitempty"`
	// Summary is a short formal summary when the protocol has one; it is
	// empty otherwise and never falls back to Output.
	Summary string `json:"summary,omitempty"`
	// RawStreams is the complete, untruncated process output.
	RawStreams *RawStreams `json:"raw_streams,omitempty"`
	// Transcript equals, item by item, the RunEventItem events emitted.
	Transcript []TranscriptItem `json:"transcript,omitempty"`
	// Usage is filled only from what the provider reported; nil means not
	// observed, which is different from zero.
	Usage *Usage `json:"usage,omitempty"`
	// Finish is the normalized reason the provider stopped, when the
	// protocol reports one; see Finish for the rules.
	Finish *Finish `json:"finish,omitempty"`
	// Checkpoint is the resume state; see Checkpoint for when it is Valid.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	// StructuredOutput is the resolved structured value, if one was requested.
	StructuredOutput *StructuredOutput `json:"structured_output,omitempty"`
	// RuntimeServices are services the driver actually observed; host
	// declarations are never echoed back as evidence.
	RuntimeServices []RuntimeServiceReport `json:"runtime_services,omitempty"`
	// Failure is a structured business failure. See RunFailure.
	Failure *RunFailure `json:"failure,omitempty"`
	// ExitCode, Signal and TimedOut are the observed process outcome.
	ExitCode int    `json:"exit_code,omitempty"`
	Signal   string `json:"signal,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
	// Provider and Model name what actually ran, when the protocol said so.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Metadata holds driver facts such as the transport used.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// RawStreams is the complete raw output of a run: every byte the process
// wrote to stdout and stderr, without substitution or line rewriting, and the
// provider's terminal event when one was recognized. A reader that decodes
// stdout tees it before decoding, and the snapshot is taken only after the
// readers, the process wait and the stderr collector have all finished.
type RawStreams struct {
	Stdout   string           `json:"stdout,omitempty"`
	Stderr   string           `json:"stderr,omitempty"`
	Terminal *TerminalPayload `json:"terminal,omitempty"`
}

// TerminalPayload is the provider's official terminal event exactly as
// recognized. Event is the provider-native name ("result", "turn.completed",
// "turn/completed", ...). JSON is the exact JSON value the parser recognized,
// never synthesized from Output, Summary, the transcript, or nested JSON.
// A Response has no TerminalPayload when no official terminal was observed.
type TerminalPayload struct {
	Event string          `json:"event,omitempty"`
	JSON  json.RawMessage `json:"json,omitempty"`
}

// Usage is normalized token accounting with one meaning for every provider.
// A nil *Usage means "not reported", which is different from zero.
//
//   - InputTokens: every input token of the request(s), cache reads and
//     cache writes included (Anthropic reports them apart: its
//     input_tokens + cache_read_input_tokens + cache_creation_input_tokens);
//   - CachedInputTokens: the cache reads among InputTokens;
//   - CacheWriteInputTokens: the cache writes among InputTokens;
//   - OutputTokens: every generated token, reasoning included;
//   - ReasoningTokens: the reasoning tokens among OutputTokens.
//
// A repeated or cumulative report of the same figures replaces the earlier
// one, never adds to it. Each parser documents whether its figures cover one
// turn or the whole session, and its mapping from the provider's fields.
type Usage struct {
	InputTokens           int   `json:"input_tokens,omitempty"`
	OutputTokens          int   `json:"output_tokens,omitempty"`
	CachedInputTokens     int   `json:"cached_input_tokens,omitempty"`
	CacheWriteInputTokens int   `json:"cache_write_input_tokens,omitempty"`
	ReasoningTokens       int   `json:"reasoning_tokens,omitempty"`
	EstimatedCostMilli    int64 `json:"estimated_cost_milli,omitempty"`
}

// StructuredOutput is a structured value the run produced. Source says which
// mechanism produced it; RawJSON is the exact provider value.
type StructuredOutput struct {
	Format           string                 `json:"format,omitempty"`
	Source           StructuredOutputSource `json:"source,omitempty"`
	RawJSON          json.RawMessage        `json:"raw_json,omitempty"`
	Value            any                    `json:"value,omitempty"`
	Valid            bool                   `json:"valid,omitempty"`
	ValidationErrors []string               `json:"validation_errors,omitempty"`
	SchemaHash       string                 `json:"schema_hash,omitempty"`
}

// StructuredOutputSource is the structured-output mechanism in use.
type StructuredOutputSource string

// The structured-output mechanisms.
const (
	StructuredOutputNative         StructuredOutputSource = "native"
	StructuredOutputPromptValidate StructuredOutputSource = "prompt_validate"
)

// RuntimeServiceReport is one runtime service the driver observed.
type RuntimeServiceReport struct {
	ID       string            `json:"id,omitempty"`
	Name     string            `json:"name,omitempty"`
	URL      string            `json:"url,omitempty"`
	Status   string            `json:"status,omitempty"`
	Health   string            `json:"health,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}
