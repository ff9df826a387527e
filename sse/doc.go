// Package sse reads and writes Server-Sent Events (text/event-stream), the
// streaming format of the Anthropic Messages, OpenAI Responses and Chat
// Completions APIs and of everything that imitates them.
//
// # Faces
//
// One state machine has two faces. Reader pulls from an io.Reader
// (Next, or the All iterator); Decoder is pushed input with Write and Close
// and calls a function for every frame. Feeding the input one byte at a time
// or in one piece gives the same frames. Writer writes events for servers.
//
// # Rules
//
// Decoding follows the WHATWG HTML "Parsing an event stream" rules:
//
//   - One UTF-8 byte order mark at the very start of the stream is removed.
//   - Lines end with CRLF, LF or a lone CR, mixed freely, including a CRLF
//     split across two reads. A CR that is the last byte received so far is
//     held until the next byte (or the end of input) shows whether an LF
//     follows, so that Raw is exact; on a stream that ends lines with a
//     lone CR, an event is therefore delivered when the next byte arrives.
//   - A line starting with ":" is a comment (keep-alives such as ": ping").
//   - Otherwise the field name is the text before the first ":" and the
//     value the text after it, with one leading space removed. A line
//     without ":" is a field with an empty value. Names are case-sensitive.
//   - "data" values are joined with "\n"; "event" sets the event name; "id"
//     sets the last event ID unless the value contains NUL, and the ID
//     persists across events; "retry" takes ASCII digits only
//     (milliseconds); other fields are ignored.
//   - A blank line dispatches the event, unless no data field was seen:
//     a block of comments, or only "event:", "id:" or "retry:" lines,
//     dispatches nothing (Options.Spans shows it as a non-event frame).
//   - At the end of input an unterminated final event is delivered with
//     Frame.Incomplete set, because providers do end streams without the
//     blank line; Options.DiscardIncomplete gives the WHATWG behaviour of
//     discarding it (reported as ErrIncomplete). A last line without a line
//     terminator still counts as a line.
//
// Unlike the WHATWG rules (and like every Go SSE library), bytes are not
// decoded to text: invalid UTF-8 is passed through untouched, never replaced
// with U+FFFD, and a multi-byte character split across reads comes out
// intact. The event name is left "" when there is no "event" field, rather
// than "message".
//
// # Raw bytes and positions
//
// Every Frame carries Raw, its exact input bytes including line terminators
// and the blank line, its byte Offset and its 1-based Line. With
// Options.Spans the bytes that belong to no event (the BOM, comment-only
// blocks, lone blank lines, field-only blocks, skipped oversized events)
// come as frames too, so the Raw of all frames concatenated is the input.
// Options.Tee receives every byte before it is decoded.
//
// # Limits
//
// Options.MaxEventSize (default DefaultMaxEventSize, 32 MiB) bounds the raw
// size of one block. A larger block is reported as an *Error wrapping
// ErrEventTooLarge at its first byte, skipped to its blank line (its fields
// have no effect), and decoding goes on. Whatever the input, the input
// buffer stays within twice the limit plus 128 KiB and the joined data of a
// multi-line event within the input buffer's size, so a Reader holds at most
// about four times the limit. Work is linear in the input whatever the read
// sizes: no byte is scanned twice while an event grows, and buffers grow by
// doubling. Reader.Reset and Decoder.Reset reuse grown buffers for the next
// stream.
//
// # Buffer lifetimes
//
// Reader.Next returns a pointer to the Reader's own Frame, and a Decoder
// passes its emit function a pointer to its own: the decoder fills the
// same Frame for every frame, so that handing one out copies nothing. The
// pointer, and Frame.Data and Frame.Raw, which point into the decoder's
// buffers, are valid until the next call to Reader.Next or Reset, or until
// a Decoder's emit function returns. With an error the frame is nil.
// Frame.Clone makes an owned copy. At the end of a stream (Next
// returning io.EOF, Decoder.Close) the buffers go to a package-level pool
// for the next Reader or Decoder, unless it is reused through Reset, so a
// slice kept past its validity may show another stream's bytes. Frame.Event and Frame.ID are
// ordinary strings; known event names are reused, so steady-state decoding
// allocates nothing per event.
//
// # Errors
//
// Decoding errors are *Error values with the offset and line of the
// offending block, for example
//
//	sse: line 12 (offset 3456): event too large (limit 1024 bytes) starting "data: ..."
//
// and they unwrap to ErrEventTooLarge or ErrIncomplete. They are not fatal
// (IsRecoverable reports true): the next call goes on with the stream.
// Errors of the underlying reader and of Tee pass through unchanged and are
// sticky.
//
// What Next returns with an error, what All does when the loop breaks
// (nothing: the Reader and its source stay as they are), and Reset's
// signature are the same in sse, ndjson and jsonrpc; package ndjson's doc
// writes that agreement down once ("The verbs sse, ndjson and jsonrpc
// share").
//
// # Concurrency
//
// Reader, Decoder and Writer are not safe for concurrent use. The package
// starts no goroutines.
package sse
