package ndjson

import (
	"errors"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/internal/quote"
)

// Decode decodes the frame's Data into v with
// github.com/segmentio/encoding/json, after checking that it nests at
// most DefaultMaxDepth levels (without recursion, so that hostile input
// cannot overflow the stack). Semantics are encoding/json's: struct fields
// match keys case-insensitively, the last duplicate key wins, invalid
// UTF-8 becomes U+FFFD, and decoded strings and json.RawMessage values are
// copies (they stay valid after the frame's buffer is reused).
//
// Errors are *LineError with the frame's line: for a syntax error (or
// nesting over the limit) Offset and Column locate the offending byte and
// Err is a *jsonguard.SyntaxError; for a value that does not fit v, Err is
// the decoder's error (such as *json.UnmarshalTypeError) and Offset is the
// start of the line. Blank and BOM frames fail with "unexpected end of
// JSON input".
func (f Frame) Decode(v any) error {
	return f.DecodeDepth(v, DefaultMaxDepth)
}

// DecodeDepth is Decode with a nesting limit of maxDepth levels (zero or
// less means DefaultMaxDepth).
func (f Frame) DecodeDepth(v any, maxDepth int) error {
	err := jsonguard.Unmarshal(f.Data, v, maxDepth)
	if err == nil {
		return nil
	}
	e := &LineError{Line: f.Line, Offset: f.Offset, Err: err}
	var se *jsonguard.SyntaxError
	if errors.As(err, &se) {
		e.Offset += int64(se.Offset)
		e.Column = se.Offset + 1
		if se.Offset < len(f.Data) && !errors.Is(err, jsonguard.ErrTooDeep) {
			rest := f.Data[se.Offset:]
			e.excerpt = quote.Bytes(rest[:min(len(rest), excerptSize)], excerptSize)
			if len(rest) > excerptSize {
				e.excerpt += "..."
			}
		}
	}
	return e
}

// Type returns the value of the top-level "type" member when Data is a
// JSON object and that member is a string: the discriminator of Codex exec
// and Claude stream-json events. It does not decode the line; see Peek for
// the rules.
func (f Frame) Type() ([]byte, bool) { return jsonguard.PeekString(f.Data, "type", nil) }

// Method returns the value of the top-level "method" member, the
// discriminator of JSON-RPC requests and notifications. See Peek.
func (f Frame) Method() ([]byte, bool) { return jsonguard.PeekString(f.Data, "method", nil) }

// Peek returns the decoded value of the top-level member key when Data is
// a JSON object and that member is a string, without decoding the line.
//
//   - Only top-level members count: a "type" inside a nested object
//     (such as Claude's "message":{"type":"message",...}) is skipped.
//   - Names compare exactly after unescaping ("t\u0079pe" is "type",
//     "Type" is not).
//   - With duplicate names the last wins, as in Decode; if that last value
//     is not a string, ok is false.
//   - A line that is not an object gives ok false.
//
// The result aliases Data (valid as long as Data) unless the value holds
// escapes or invalid UTF-8; then it is decoded into a new slice (the only
// case that allocates). Peek does not validate the line: on invalid JSON
// the result is unspecified, and Decode reports the error. Whenever Decode
// into a map[string]any succeeds, Peek agrees with it.
func (f Frame) Peek(key string) ([]byte, bool) { return jsonguard.PeekString(f.Data, key, nil) }
