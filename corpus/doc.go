// Package corpus is the golden library: it loads recorded cases from any
// fs.FS, replays them through the provider parsers, builds the JSON document
// that is both the output of `agentwire parse --format json` and the golden
// format, and checks a whole corpus from a *testing.T under several
// chunkings (see Test).
//
// The directory holding this package is also agentwire's own corpus:
// recordings of the real CLIs under <provider>/<cli>@<version>/<case>/,
// written by the recorder (package corpus/record), each with a golden.json
// written by this package. `go test ./corpus/` replays all of them and
// `go test ./corpus/ -update` rewrites the goldens.
//
// # Cases
//
// A case is a directory holding stdout and meta.json, and optionally stderr,
// stdin (what was written to the CLI) and golden.json. The provider is the
// first element of the case's path that names a registered provider
// (package provider), else meta.json's "provider". A run of a multi-run
// case (<case>/run-N/, listed in the case-level meta.json's "runs")
// resumes the run listed before it: Case.Prev.
//
// # Replay
//
// Replay parses a case with its provider from the registry (provider.Lookup;
// corpus names no provider), with streaming on and the options a driver
// would have used for the recorded run: each of the provider's Switches
// read from meta.json (argv, version; Case.Settings overrides them), the
// client side (stdin) where the protocol has one, the HTTP status and
// content type of a model API's response (http_status, content_type), and
// for a resumed run the previous run's checkpoint state (provider.Input).
// What each provider makes of them is in its row of the registry and its
// parser's doc.
//
// SessionData holds driver.ParamCWD = meta.json's "cwd" (already scrubbed to
// "<SCRATCH>/work" by the recorder). The outcome is meta.json's exit_code,
// signal and timed_out; Cancelled when the recorder sent a signal or a
// protocol interrupt. Nothing volatile in meta.json (recorded, duration_ms)
// is used, so the document is a pure function of the recorded bytes.
//
// While feeding, Replay notes the byte offset and line of the frame that
// each emission came from (emissions made by Finish have the offset of the
// end of stdout), so a violation can be traced to the offending frame:
// Result.Findings. Besides the adaptertest violations, the findings hold
// three pseudo-clauses that are not part of the document: MALFORMED (input
// the parser reported as malformed), TRUNCATED (a malformed final line cut
// off without a newline: a killed process, not damage) and UNPAIRED (a
// provider message whose partner is missing, found by the parse). The parsers
// keep a damaged stream within the contract (they close what is open and
// keep bad lines as stdout items), so the validators alone cannot tell a
// capture with a line removed or a terminal duplicated from a good one;
// MALFORMED and UNPAIRED can, and `agentwire check` fails on them.
//
// # Golden replay
//
// Test (or TestDir) replays every case of a corpus in a *testing.T under the
// whole, per-line, 1-byte and random chunkings, and fails on any difference
// between them, any adaptertest violation, and any difference from
// golden.json (cmp.Diff of the JSON values, -want +got). With
// TestOptions.Update it writes golden.json instead. This package's own test
// wires that to the -update flag:
//
//	go test ./corpus/                 # replay the committed corpus
//	go test ./corpus/ -run TestCorpus -update   # rewrite the goldens
//
// A case whose violations are a known parser bug is listed in
// TestOptions.Known with the reason; it is skipped while the bug lasts.
//
// # The JSON document
//
// Document is printed with two-space indentation, no HTML escaping and a
// final newline (Document.Marshal): that exact text is golden.json.
//
//	{
//	  "provider": "<the provider's registry name>",
//	  "capability": {"native": b, "token_level": b, "reasoning": b, "tool_call_args": b, "hitl": b},
//	  "events": [ {"stream": StreamPayload} | {"item": TranscriptItem} | {"run_event": RunEvent}, ... ],
//	  "response": {
//	    "output": "...", "summary": "...",
//	    "transcript": [ TranscriptItem, ... ],
//	    "usage": {"input_tokens": n, "output_tokens": n, "cached_input_tokens": n} | null,
//	    "terminal": {"event": "turn.completed", "json": <exact terminal JSON value>} | null,
//	    "checkpoint": {"valid": b, "state": {"resume_id": "...", "display_id": "...", "data": {...}} | null} | null,
//	    "failure": {"code": "agent_error", "message": "..."} | null,
//	    "exit_code": n, "signal": "", "timed_out": b,
//	    "stdout_bytes": n, "stdout_sha256": "<hex>", "stderr_bytes": n
//	  },
//	  "violations": [ {"clause": "EVT-03", "index": n, "message": "..."}, ... ]
//	}
//
// "events" lists every sink call in emission order: stream payloads
// (driver.StreamPayload), transcript items (the Item of a RunEventItem) and any
// other operational RunEvent; chunk events are left out (the raw bytes are the
// case itself, summarized by stdout_bytes and stdout_sha256). StreamPayload,
// TranscriptItem and RunEvent appear in the driver package's snake_case JSON
// form, empty fields omitted. Every member of "response" is always present;
// usage, terminal, checkpoint and failure are null when the parser reported
// none. "violations" holds the adaptertest findings (CheckStream, CheckRun,
// CheckResponse) with index = the position in "events" of the offending
// payload or item, -1 when the finding concerns the run as a whole; it is []
// for a conforming run. "transcript" and "violations" are never null.
package corpus
