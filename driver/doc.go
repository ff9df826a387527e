// Package driver is the agentwire driver SPI: the vocabulary shared by
// drivers, provider parsers, the adaptertest conformance suite and the
// agentwire command. It imports only the standard library, so a third-party
// driver can depend on it without pulling in anything else.
//
// # The contract in brief
//
// A [Driver] executes one resolved invocation per [Driver.Run] call. While it
// runs it writes operational [RunEvent] values through [EventSink.Emit] and,
// when [Request.Streaming] is true, normalized [StreamPayload] values through
// [EventSink.EmitStream]. From the same single parse of the provider's formal
// protocol it returns a [Response] whose layers are complete and mutually
// consistent:
//
//   - the stream obeys the lifecycle grammar documented on [StreamKind]
//     (one run.started first, one terminal last, every text, reasoning, tool
//     and step lifecycle closed before the terminal, nothing after it);
//   - every [RunEventItem] emitted equals [Response.Transcript], item by item
//     and in order (the transcript mirror);
//   - [Response.RawStreams] holds the complete, untruncated stdout and stderr
//     and, when one was recognized, the provider's exact terminal event;
//   - a [Checkpoint] is Valid only under every condition of [Checkpoint]'s
//     documentation (clean exit, explicit successful terminal, top-level
//     resume id, codec round trip).
//
// The package adaptertest turns these rules into validators with stable
// clause IDs (EVT-*, RUN-*, TRN-*, RSP-*).
//
// # Wire form
//
// The data types carry JSON tags in snake_case with omitempty. That encoding
// is agentwire's wire form: golden files under corpus/ and the JSON output of
// the agentwire command print these types with encoding/json, so renaming a
// tag is a breaking change to every committed golden.
package driver
