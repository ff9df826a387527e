package apistream

import (
	"bytes"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// Append writes val to sb and returns the written bytes as a string that
// shares sb's buffer: a Builder never changes bytes it has written, so the
// string stays valid as sb grows, and a delta costs no allocation of its
// own. The model-API parsers keep a stream's text (the Output, a block's
// text, a call's arguments) this way and hand the returned piece on as
// the delta.
//
// sb grows by doubling. Left to append, a Builder past 256 bytes grows by
// a quarter at a time, which for a long answer allocates and copies about
// five times its final size (measured on a 250 KB Output: 1.16 MB
// allocated); doubling allocates at most twice the final size.
func Append(sb *strings.Builder, val []byte) string {
	n := sb.Len()
	if sb.Cap()-n < len(val) {
		sb.Grow(len(val)) // a Builder's Grow makes room for 2*cap + len(val)
	}
	sb.Write(val)
	return sb.String()[n:]
}

// AppendLiteral is Append of the decoded text of the JSON string literal
// lit (quotes included, validated by the caller's framing): a literal
// without escapes is its bytes when they are valid UTF-8, the rest is
// decoded into scratch first (jsonguard.AppendString: invalid UTF-8
// becomes U+FFFD). It returns the text, a substring of sb's contents, and
// scratch for the next call.
func AppendLiteral(sb *strings.Builder, scratch, lit []byte) (string, []byte) {
	in := lit[1 : len(lit)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return Append(sb, in), scratch
	}
	scratch = jsonguard.AppendString(scratch[:0], lit)
	return Append(sb, scratch), scratch
}

// Output is a stream's Output: the assistant's text deltas concatenated in
// stream order. Each block of text (a content block, an output item, a
// candidate's text part run) is a [Span] of it, so a block's text is not
// copied a second time while its deltas come in a row (always, in
// practice); a block whose deltas interleave with another's keeps its own
// copy from then on.
//
// Its bytes are never changed once written (as a strings.Builder's), so
// the strings it hands out share them; it grows by doubling (see Append).
// A parser may decode a delta straight into its free capacity ([Room]).
type Output struct{ buf []byte }

// Span is one block's text, a range of its Output or its own copy. The
// zero Span is an empty block.
type Span struct {
	start, end int
	has, owned bool
	own        strings.Builder
}

// Room returns the Output's free capacity, at least n bytes of it, as an
// empty slice: bytes appended to it (a delta decoded there, say by
// jsonguard.AppendLiteral) and given to [Output.Append] become the
// Output's without a copy. Until then they are not part of the Output,
// and the next Room or Append may write over them.
func (o *Output) Room(n int) []byte {
	if cap(o.buf)-len(o.buf) < n {
		b := make([]byte, len(o.buf), max(2*cap(o.buf), len(o.buf)+n))
		copy(b, o.buf)
		o.buf = b // the strings handed out keep the old bytes
	}
	return o.buf[len(o.buf):len(o.buf)]
}

// Append adds val to the Output as the next text of s and returns it as a
// string sharing the Output's buffer (the delta to hand on). A val that
// is already in place, appended to what Room returned, is not copied.
func (o *Output) Append(s *Span, val []byte) string {
	if len(val) == 0 {
		return ""
	}
	n := len(o.buf)
	switch {
	case s.owned:
		s.own.Write(val)
	case !s.has:
		s.start, s.has = n, true
	case s.end != n:
		// Another block's text came in between: s keeps its own copy.
		s.owned = true
		s.own.WriteString(o.String()[s.start:s.end])
		s.own.Write(val)
	}
	if cap(o.buf)-n < len(val) || &o.buf[:n+1][n] != &val[0] {
		copy(o.Room(len(val))[:len(val)], val)
	}
	o.buf = o.buf[:n+len(val)]
	s.end = len(o.buf)
	return unsafe.String(&o.buf[n], len(val))
}

// Text returns the text s received.
func (o *Output) Text(s *Span) string {
	if s.owned {
		return s.own.String()
	}
	if !s.has {
		return ""
	}
	return o.String()[s.start:s.end]
}

// String returns the whole Output.
func (o *Output) String() string { return unsafe.String(unsafe.SliceData(o.buf), len(o.buf)) }

// Len returns the Output's length in bytes.
func (o *Output) Len() int { return len(o.buf) }

// Reset empties the Output (a response restarted); Spans of it must not be
// used afterwards. Its memory is not reused: the strings handed out keep
// it.
func (o *Output) Reset() { o.buf = nil }
