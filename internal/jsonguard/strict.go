package jsonguard

import (
	"encoding/binary"
	"math/bits"
)

// Strict readers for the event fast paths of the API parsers: one pass
// over input not yet validated that validates what it reads exactly as
// [Check] does and hands the caller each member or element as it goes, so
// that the common shape of an event is validated and walked in one scan
// instead of Check's followed by a walk. They accept a subset of what
// Check accepts: when one returns an end, the bytes up to it are a valid
// JSON value (no deeper than the depth it was given) that Check, with any
// limit at least that deep, accepts as one value ending there. They
// return -1 for invalid input and whenever the caller's function declines
// (returns -1), which is how a fast path leaves a shape it does not take
// to the full path. Whitespace is JSON's; the caller checks what follows
// a value, as for every value.

// StrictMembers reads the object at b[i] ('{'): for each member it calls
// fn with the name literal (quotes included; a name with an escape
// declines, -1) and the index of the value's first byte (i < len(b)); fn
// returns the index just past the value, or -1 to decline. StrictMembers
// returns the index just past the object, or -1 when fn declined or the
// object is not valid JSON around its values.
func StrictMembers(b []byte, i int, fn func(name []byte, i int) int) int {
	i = strictWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	return StrictMembersFrom(b, i, fn)
}

// StrictMembersFrom is StrictMembers from the middle of an object: b[i]
// is where a member's name must start, after the opening brace or a
// separating comma (and whitespace) that the caller read. It lets a
// caller that knows the members before i valid (the same bytes as an
// object it read before) go on without reading them again.
func StrictMembersFrom(b []byte, i int, fn func(name []byte, i int) int) int {
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		j := nameEnd(b, i)
		if j < 0 {
			return -1
		}
		name := b[i:j]
		if i = strictWS(b, j); i >= len(b) || b[i] != ':' {
			return -1
		}
		if i = strictWS(b, i+1); i >= len(b) {
			return -1
		}
		if j = fn(name, i); j <= i {
			return -1
		}
		if i = strictWS(b, j); i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = strictWS(b, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// nameEnd returns the end of the string literal at b[i] when it is valid
// and holds no escape (what StringEnd reports as ok and not escaped), or
// -1. Member names are short: the first 32 bytes are looked at here,
// eight at a time, where the first special byte (strSpecialMask) being the
// closing quote decides; a longer name is left to StringEnd. (Claude's
// usage names, cache_creation_input_tokens and the like, run to 27 bytes.)
func nameEnd(b []byte, i int) int {
	j := i + 1
	for n := 0; n < 4 && j+8 <= len(b); n++ {
		if m := strSpecialMask(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			if k := j + bits.TrailingZeros64(m)>>3; b[k] == '"' {
				return k + 1
			}
			return -1 // a backslash or a control byte
		}
		j += 8
	}
	end, escaped, ok := StringEnd(b, i)
	if !ok || escaped {
		return -1
	}
	return end
}

// StrictElements is [StrictMembers] for the array at b[i] ('['): fn gets
// the index of each element's first byte (i < len(b)).
func StrictElements(b []byte, i int, fn func(i int) int) int {
	i = strictWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		if i >= len(b) {
			return -1
		}
		j := fn(i)
		if j <= i {
			return -1
		}
		if i = strictWS(b, j); i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = strictWS(b, i+1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// StrictValue validates the JSON value at b[i] (i < len(b)), nested at
// most depth deep (an object or array counting one, so depth 0 takes only
// a scalar); it returns the index just past the value, or -1 when it is
// invalid or deeper. Member names with an escape decline (-1), as in
// StrictMembers.
func StrictValue(b []byte, i, depth int) int {
	switch b[i] {
	case '"':
		return StrictString(b, i)
	case '{':
		if depth <= 0 {
			return -1
		}
		return StrictMembers(b, i, func(_ []byte, i int) int { return StrictValue(b, i, depth-1) })
	case '[':
		if depth <= 0 {
			return -1
		}
		return StrictElements(b, i, func(i int) int { return StrictValue(b, i, depth-1) })
	case 't':
		return literalEnd(b, i, "true")
	case 'f':
		return literalEnd(b, i, "false")
	case 'n':
		return literalEnd(b, i, "null")
	}
	return StrictNumber(b, i)
}

// StrictString returns the end of the valid string literal at b[i] (as
// [StringEnd] validates it), or -1.
func StrictString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	end, _, ok := StringEnd(b, i)
	if !ok {
		return -1
	}
	return end
}

// StrictNumber returns the end of the JSON number at b[i] (-?int frac?
// exp? as RFC 8259 writes it), or -1.
func StrictNumber(b []byte, i int) int {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j >= len(b):
		return -1
	case b[j] == '0':
		j++
	case b[j] >= '1' && b[j] <= '9':
		j = digitsEnd(b, j+1)
	default:
		return -1
	}
	if j < len(b) && b[j] == '.' {
		k := digitsEnd(b, j+1)
		if k == j+1 {
			return -1
		}
		j = k
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		k := digitsEnd(b, j)
		if k == j {
			return -1
		}
		j = k
	}
	return j
}

// StrictUint reads the JSON number at b[i] when it is a non-negative
// integer of at most nine digits without fraction or exponent; end is -1
// otherwise (n is then 0).
func StrictUint(b []byte, i int) (n, end int) {
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		n = n*10 + int(b[j]-'0')
		j++
	}
	if j == i || j-i > 9 || b[i] == '0' && j-i > 1 {
		return 0, -1
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return 0, -1
	}
	return n, j
}

// HasLiteral reports whether b holds lit at i (what follows is the
// caller's to check).
func HasLiteral(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// literalEnd returns the end of lit at b[i], or -1.
func literalEnd(b []byte, i int, lit string) int {
	if !HasLiteral(b, i, lit) {
		return -1
	}
	return i + len(lit)
}

// digitsEnd returns the index of the first byte at or after i that is not
// an ASCII digit, or len(b).
func digitsEnd(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// strictWS is SkipWS with the common cases, no whitespace or one space,
// decided without a loop.
func strictWS(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	if i+1 < len(b) && b[i] == ' ' && b[i+1] > ' ' {
		return i + 1
	}
	return skipWS(b, i)
}

// StrictMemo is [StrictValue] for a run of objects that repeat members
// byte for byte, as a stream's usage object does from event to event
// (Gemini's usageMetadata repeats its prompt counts and details while the
// other counts grow). It remembers the last object it took and where its
// members lie; a member of the next object whose bytes, from its name to
// the end of its value, are those of the remembered object's member at
// the same index (the n-th member of each) is not read again: those bytes
// were validated then. Every other byte is read as StrictValue reads it,
// so Object takes an object only when StrictValue would take it ending at
// the same place; it may decline where StrictValue takes (a remembered
// number followed by more digits, which it leaves to the caller's full
// path). The zero StrictMemo is ready to use; it is not safe for
// concurrent use.
type StrictMemo struct {
	prev  []byte // the last object taken, from '{' to '}'
	spans []int  // per member of prev: the offsets of its name's start and its value's end
	next  []int  // the same for the object being read
	depth int    // the depth prev was read at
}

// Object reads the object at b[i] ('{'), nested at most depth deep (the
// object counting one), as StrictValue(b, i, depth) does; it returns the
// index just past the object, or -1.
func (m *StrictMemo) Object(b []byte, i, depth int) int {
	if depth <= 0 || i >= len(b) || b[i] != '{' {
		return -1
	}
	if depth != m.depth {
		m.prev, m.spans, m.depth = m.prev[:0], m.spans[:0], depth
	}
	o := i
	m.next = m.next[:0]
	j := strictWS(b, i+1)
	if j < len(b) && b[j] == '}' {
		return m.took(b, o, j)
	}
	for k := 0; ; k++ {
		s, e := j, -1
		if 2*k+1 < len(m.spans) {
			ps, pe := m.spans[2*k], m.spans[2*k+1]
			if n := pe - ps; s+n <= len(b) && string(b[s:s+n]) == string(m.prev[ps:pe]) {
				e = s + n
			}
		}
		if e < 0 {
			if s >= len(b) || b[s] != '"' {
				return -1
			}
			ne := nameEnd(b, s)
			if ne < 0 {
				return -1
			}
			if j = strictWS(b, ne); j >= len(b) || b[j] != ':' {
				return -1
			}
			if j = strictWS(b, j+1); j >= len(b) {
				return -1
			}
			if e = StrictValue(b, j, depth-1); e < 0 {
				return -1
			}
		}
		m.next = append(m.next, s-o, e-o)
		if j = strictWS(b, e); j >= len(b) {
			return -1
		}
		switch b[j] {
		case ',':
			j = strictWS(b, j+1)
		case '}':
			return m.took(b, o, j)
		default:
			return -1
		}
	}
}

// took remembers the object b[o:j+1] that Object took and returns its end.
func (m *StrictMemo) took(b []byte, o, j int) int {
	m.prev = append(m.prev[:0], b[o:j+1]...)
	m.spans, m.next = m.next, m.spans
	return j + 1
}

// PlainInt parses tok, a JSON number already validated or read by a
// strict reader, when it is an integer without fraction or exponent of at
// most 18 digits (which always fits an int64); ok is false otherwise.
func PlainInt(tok []byte) (n int64, ok bool) {
	neg := len(tok) > 0 && tok[0] == '-'
	if neg {
		tok = tok[1:]
	}
	if len(tok) == 0 || len(tok) > 18 {
		return 0, false
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
