// Package jsonguard protects JSON decoding of untrusted bytes and peeks at
// top-level discriminators without decoding.
//
// # Why a guard
//
// github.com/segmentio/encoding/json has no nesting limit. Its parser
// recurses once per array or object level, so a single line of a few MB of
// '[' overflows the goroutine stack: a fatal runtime error that recover
// cannot catch. Every decode of untrusted bytes must therefore pass
// [CheckDepth] first; [Unmarshal] does that and then calls segmentio.
//
// # Functions
//
//   - [CheckDepth] is the fast pre-check: it proves that the nesting depth
//     of b, as any JSON parser would see it, is at most maxDepth. It is
//     conservative only in one direction: it never accepts input deeper
//     than maxDepth. It does not validate syntax (segmentio does that).
//   - [Check] is a complete, non-recursive validator of one JSON value
//     (RFC 8259 grammar, encoding/json's acceptance rules) with the same
//     depth limit. It reports the first error with its byte offset and an
//     encoding/json style message. [Unmarshal] uses it on the error path
//     only, so the happy path pays for no second scan.
//   - [Unmarshal] is CheckDepth + segmentio Unmarshal, with syntax errors
//     rewritten to a positioned [*SyntaxError].
//   - [PeekString] returns a top-level string member of an object (the
//     "type" or "method" discriminator) without decoding the value.
//
// None of these functions recurse. CheckDepth, Check (up to [StackDepth]
// levels) and PeekString (when the value has no escapes) allocate nothing
// except the error they return.
//
// # Depth
//
// The depth of a value is the number of arrays and objects that enclose the
// innermost byte: "1" has depth 0, "[1]" depth 1, `{"a":[{}]}` depth 3.
// [DefaultMaxDepth] (512) is far above anything a provider writes (Claude
// and Codex events nest fewer than 20 levels) and far below the depth at
// which segmentio overflows the default 1 GiB maximum stack (millions of
// levels). segmentio uses a few hundred bytes of stack per level, so 512
// levels cost well under 1 MiB of stack.
//
// # How Check is fast, and why its errors are exact
//
// [Check], [CheckMembers], [CheckIndex] and [Members.Check] run two
// paths over the same grammar (check):
//
//   - The fast path (walk) only decides that the input is valid, making
//     the member calls as it goes. Its strings end where a stage-1 index
//     says (strMasks: per 64-byte block, a word marking the quotes,
//     backslashes and control bytes, built 32 bytes at a time with AVX2
//     on amd64 (16 with SSE2 on a CPU without it) and eight at a time
//     with exact SWAR tests elsewhere, over a window of 32 blocks that
//     moves forward as the scan does, so its memory is fixed): a string
//     costs a bit scan per special byte, with the escapes checked at
//     their backslash as [StringEnd] checks them. It keeps the kinds of
//     up to 63 open containers in one word, and its loop makes no call,
//     so that its state stays in registers: what needs a call (filling
//     the masks, a string they do not end in line, a member call) leaves
//     the loop and comes back to where it was.
//   - On anything the fast path does not accept (any error, or nesting
//     deeper than 63), the exact path (checkExact, the complete
//     validator with its messages) runs from the start and gives the
//     result: the first error, with its offset and message, or the
//     acceptance of a deep value.
//
// The results are identical because both paths implement one grammar and
// read the same bytes in the same order: the fast path gives up at the
// first point where the exact path could differ, and before that point
// both made the same member calls, so the exact path skips that many
// calls and goes on making the rest. checkref_test.go holds the whole to
// a reference validator (FuzzCheckReference), and the string index to
// StringEnd.
package jsonguard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"

	"github.com/segmentio/encoding/json"
)

// DefaultMaxDepth is the nesting limit used when a maxDepth argument is
// zero or negative.
const DefaultMaxDepth = 512

// StackDepth is the deepest nesting [Check] tracks without allocating.
// A larger maxDepth still works; Check then allocates one bit per level.
const StackDepth = 64 * 64

// ErrTooDeep is wrapped by the [*SyntaxError] returned for input nested
// deeper than the limit.
var ErrTooDeep = errors.New("exceeded max depth")

// SyntaxError describes the first problem found in a JSON value.
//
// Offset is the byte offset in the checked slice of the offending byte, or
// len(b) when the input ends early. Msg reads like encoding/json's
// messages, for example "invalid character 'x' after object key". Err is
// [ErrTooDeep] for a depth violation and nil otherwise.
type SyntaxError struct {
	Offset int
	Msg    string
	Err    error
}

func (e *SyntaxError) Error() string { return e.Msg }

// Unwrap returns e.Err.
func (e *SyntaxError) Unwrap() error { return e.Err }

// CheckDepth reports whether b nests deeper than maxDepth (zero or less
// means [DefaultMaxDepth]). It returns nil when the depth is within the
// limit, and a [*SyntaxError] wrapping [ErrTooDeep] otherwise, whose Offset
// is the '[' or '{' that went past the limit.
//
// Strings are skipped with JSON's escape rules, so brackets inside strings
// do not count. CheckDepth does not validate anything else: on invalid
// JSON it still never accepts a prefix that a parser would see as deeper
// than the limit, because up to the first syntax error its count is exact,
// and a parser stops at that error.
//
// Cost: nothing for len(b) <= maxDepth; otherwise two vectorized byte
// counts, and a single exact pass only when b holds more than maxDepth
// opening brackets. It never allocates.
func CheckDepth(b []byte, maxDepth int) error {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	// The depth cannot exceed the number of opening brackets, which cannot
	// exceed the length.
	if len(b) <= maxDepth {
		return nil
	}
	if bytes.Count(b, lbrack)+bytes.Count(b, lbrace) <= maxDepth {
		return nil
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = skipString(b, i+1) - 1
		case '[', '{':
			depth++
			if depth > maxDepth {
				return tooDeep(i)
			}
		case ']', '}':
			// A closer at depth 0 is a syntax error; a parser stops there.
			// Clamping keeps the count an upper bound of what any parser
			// that got past it could see.
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

var (
	lbrack = []byte{'['}
	lbrace = []byte{'{'}
)

func tooDeep(i int) *SyntaxError {
	return &SyntaxError{Offset: i, Msg: ErrTooDeep.Error(), Err: ErrTooDeep}
}

// skipString returns the index just past the closing quote of the string
// whose contents start at b[i], or len(b)+1 if it is not terminated. A
// quote preceded by an odd run of backslashes is escaped. The first 32
// bytes are searched eight at a time for a quote or a backslash (a
// backslash escapes the byte after it), which ends most strings (member
// names, short values) without a call; the rest of a longer one is left
// to the vectorized quote search (bytes.IndexByte), where each backslash
// run is examined once, so the cost is linear.
func skipString(b []byte, i int) int {
	for n := 0; n < 4 && i+8 <= len(b); n++ {
		m := quoteOrBackslash(binary.LittleEndian.Uint64(b[i:]))
		if m == 0 {
			i += 8
			continue
		}
		j := i + bits.TrailingZeros64(m)>>3
		if b[j] == '"' {
			return j + 1
		}
		if i = j + 2; i > len(b) {
			return len(b) + 1
		}
	}
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b) + 1
		}
		q := i + j
		k := q
		for k > i && b[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// quoteOrBackslash marks, with its top bit, the bytes of x that are a
// quote or a backslash, as strSpecialMask does (the lowest mark is exact).
func quoteOrBackslash(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((q-ones)&^q | (bs-ones)&^bs) & highs
}

// Unmarshal decodes b into v with github.com/segmentio/encoding/json after
// [CheckDepth] proved the depth is within maxDepth (zero or less means
// [DefaultMaxDepth]). Errors:
//   - input that is not exactly one JSON value (optionally surrounded by
//     whitespace), or is too deep: a [*SyntaxError] with the offset of the
//     first problem, as [Check] reports it;
//   - a value that does not fit v: segmentio's error, for example
//     *json.UnmarshalTypeError, unchanged.
//
// A nil map[string]any or interface{} target is decoded by an exact-size
// decoder of this package (segmentio gives every object room for 64
// members); the result is the same.
//
// Decoding follows encoding/json: struct fields match keys
// case-insensitively, the last duplicate key wins, invalid UTF-8 and lone
// surrogates in strings become U+FFFD, strings and RawMessage are copied.
func Unmarshal(b []byte, v any, maxDepth int) error {
	if err := CheckDepth(b, maxDepth); err != nil {
		if serr := Check(b, maxDepth); serr != nil {
			return serr // the first error in input order
		}
		return err
	}
	// Decoding into a nil map[string]any or a nil interface{} (a payload's
	// Raw) takes the exact-size decoder; a value float64 cannot hold goes
	// on to segmentio for its usual error.
	switch p := v.(type) {
	case *map[string]any:
		if p != nil && *p == nil && firstByte(b) == '{' {
			if err := Check(b, maxDepth); err != nil {
				return err
			}
			if m, err := decodeAny(b); err == nil {
				*p = m.(map[string]any)
				return nil
			}
		}
	case *any:
		if p != nil && *p == nil {
			if err := Check(b, maxDepth); err != nil {
				return err
			}
			if x, err := decodeAny(b); err == nil {
				*p = x
				return nil
			}
		}
	}
	err := json.Unmarshal(b, v)
	if err != nil {
		// Syntax errors take precedence over type errors, as in
		// encoding/json, and get an exact position. This second pass runs
		// only on failure.
		if serr := Check(b, maxDepth); serr != nil {
			return serr
		}
	}
	return err
}

// firstByte returns the first byte of b that is not JSON whitespace, or 0.
func firstByte(b []byte) byte {
	if i := skipWS(b, 0); i < len(b) {
		return b[i]
	}
	return 0
}

// Check reports whether b is exactly one JSON value, optionally surrounded
// by whitespace, nested at most maxDepth deep (zero or less means
// [DefaultMaxDepth]). It returns nil or the first problem as a
// [*SyntaxError]. It accepts exactly what encoding/json's Valid accepts
// when maxDepth is 10000 (encoding/json's own limit); like Valid, it does
// not reject invalid UTF-8 inside strings (decoders replace it with
// U+FFFD).
//
// Check is a loop over an explicit stack of one bit per level; it never
// recurses and allocates only on error or when maxDepth > [StackDepth].
func Check(b []byte, maxDepth int) error { return check(b, maxDepth, nil, nil, nil) }

// CheckMembers is [Check] that also reports the members of the top-level
// value when it is an object: fn gets each member's name (the string
// literal, quotes and escapes as written) and its value's exact bytes, in
// order, as the one validating pass reaches the end of the value. It costs
// what Check costs, so a decoder that reads top-level members need not
// walk the bytes a second time.
//
// fn may be called for members before a later syntax error is found: what
// it records means something only when CheckMembers returns nil. For a top
// level that is not an object fn is never called.
func CheckMembers(b []byte, maxDepth int, fn func(name, value []byte)) error {
	return check(b, maxDepth, fn, nil, nil)
}

// MaxLevels is the deepest level [CheckIndex] records members of.
const MaxLevels = 4

// Entry is a member [CheckIndex] records, as offsets into the checked
// bytes b: its level (1 for the members of the top-level object, 2 for
// the members of the objects that are their values or elements of arrays
// that are, and so on: a level for each object or array around the
// member), the offset of the '{' of the object it belongs to, its name
// b[NS:NE] (the string literal, quotes and escapes as written) and its
// value b[VS:VE], exactly.
type Entry struct {
	Level, Obj, NS, NE, VS, VE int32
}

// Index is where [CheckIndex] records the members it finds.
type Index struct {
	// Levels[l-1] are the members recorded at level l, in the order the
	// validating pass reaches the end of their values: the members of an
	// object in order, each after the members of the objects inside its
	// value. VE increases strictly along each level's entries and across
	// all of them (merged by VE, they are the order of the pass), and the
	// members of one object are consecutive entries of their level's (the
	// members between them, inside their values, are deeper), so the
	// first entry of a level that ends after an object starts is its
	// first member when the object's members are at that level.
	// CheckIndex truncates them first and reuses their memory.
	Levels [MaxLevels][]Entry
	// Max, when positive, bounds the entries of levels 2 and deeper: past
	// it they are not recorded and Overflow is set (the level-1 entries
	// are all kept), so that the index's memory stays small whatever a
	// line holds.
	Max int
	// Overflow is set by CheckIndex when it left entries out: past Max,
	// or all of them for a b longer than math.MaxInt32.
	Overflow bool
	nested   int // entries of levels 2 and deeper
}

// reset empties x for a new check.
func (x *Index) reset() {
	for l := range x.Levels {
		x.Levels[l] = x.Levels[l][:0]
	}
	x.Overflow, x.nested = false, 0
}

// add records the member of the object at b[obj] at level (1 to
// MaxLevels) whose name is b[ns:ne] and whose value is b[vs:ve].
func (x *Index) add(level, obj, ns, ne, vs, ve int) {
	if level > 1 {
		if x.Max > 0 && x.nested >= x.Max {
			x.Overflow = true
			return
		}
		x.nested++
	}
	l := &x.Levels[level-1]
	*l = append(*l, Entry{int32(level), int32(obj), int32(ns), int32(ne), int32(vs), int32(ve)})
}

// CheckIndex is [CheckMembers] for the members of every object within
// the first levels levels of a top-level object (at most [MaxLevels]),
// recorded in x (see [Entry] and [Index]) as the one validating pass
// reaches the end of each value. It costs what Check costs, plus an
// append per member; a decoder that reads a few nested members need not
// walk the bytes again. A b longer than math.MaxInt32, out of an Entry's
// reach, is checked with nothing recorded and Overflow set.
//
// As for CheckMembers, what x holds means something only when CheckIndex
// returns nil, and nothing is recorded for a top level that is not an
// object.
func CheckIndex(b []byte, maxDepth, levels int, x *Index) error {
	x.reset()
	if levels <= 0 {
		return check(b, maxDepth, nil, nil, nil)
	}
	if len(b) > math.MaxInt32 {
		x.Overflow = true
		return check(b, maxDepth, nil, nil, nil)
	}
	return check(b, maxDepth, nil, nil, &nesting{levels: min(levels, MaxLevels), idx: x})
}

// nesting is CheckIndex's hook: the members of the objects at levels 1
// to levels go to idx.
type nesting struct {
	levels int
	idx    *Index
}

// checkExact is check's exact path (see the package doc), the whole
// grammar with every error: Check and CheckMembers, and with m non-nil
// Members.Check: the
// offsets of every top-level member are appended to m.next, and a member
// whose bytes, and the byte after them, are those of the previous
// object's member at the same index (m.prev, m.ends, checked with the same
// maxDepth) is not scanned again. From the state in which a top-level key
// starts, the check of a member reads only the member's bytes and the one
// byte after its value (a number or a literal ends at it), so on the same
// bytes it takes the same path as it did in m.prev: it reaches the end of
// the value without an error, having called fn for nothing but this
// member; check goes on after the value in the state it would have
// reached.
//
// With nest (CheckIndex; never with m, whose skipped members are not
// scanned; fn is then nil) the members of the objects down to
// nest.levels are recorded in nest.idx as their values end, the top
// level's included.
//
// The first skip calls of fn or records in nest.idx are not made: they are the calls
// the fast path (walk) already made before it gave up, since up to that
// point both read the same bytes with the same grammar.
func checkExact(b []byte, maxDepth int, fn func(name, value []byte), m *Members, nest *nesting, skip int) error {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	var small [StackDepth / 64]uint64
	stack := small[:]
	if maxDepth > StackDepth {
		stack = make([]uint64, (maxDepth+63)/64)
	}
	// The grammar is a loop over three states, each a label: value (a value
	// starts at b[i]), after (a value ended before b[i]) and key (an object
	// key starts at b[i]); the innermost container's kind is inObj, the
	// outer ones' kinds are bits of stack. A goto between labels costs
	// nothing, where a state variable costs a dispatch per token.
	var (
		depth int
		inObj bool
		c     byte
		j     int
		err   error
		ok    bool
		ns    int // with hook: where the current top-level member's name starts
		ne    int // with hook: where it ends
		vs    int // with hook: where its value starts
		k     int // with m: the index of the current top-level member
		// With nest, per level from 2: where the current member's name
		// starts and ends, where its value starts, where its object starts.
		dns, dne [MaxLevels + 1]int
		dv       [MaxLevels + 1]int
		do       [MaxLevels + 1]int
		// The string scan's index of b (stage 1).
		sm strMasks
	)
	i := skipWS(b, 0)
	hook := (fn != nil || m != nil || nest != nil) && i < len(b) && b[i] == '{'
	deep := hook && nest != nil && m == nil
	top := i
	levels := 1
	if deep {
		levels = nest.levels
	}

value:
	if i >= len(b) {
		return unexpectedEnd(len(b))
	}
	if hook && depth == 1 {
		vs = i
	} else if deep && depth <= levels && inObj {
		dv[depth] = i
	}
	switch c = b[i]; c {
	case '"':
		if j, ok = sm.end(b, i); !ok {
			_, err = scanString(b, i)
			return err
		}
		i = j
	case '{', '[':
		depth++
		if depth > maxDepth {
			return tooDeep(i)
		}
		w, bit := uint(depth-1)/64, uint64(1)<<(uint(depth-1)%64)
		inObj = c == '{'
		if inObj {
			stack[w] |= bit
			if deep && depth <= levels {
				do[depth] = i
			}
		} else {
			stack[w] &^= bit
		}
		if i = ws(b, i+1); i >= len(b) {
			return unexpectedEnd(len(b))
		}
		if inObj {
			if b[i] == '}' {
				i++
				goto closed
			}
			goto key
		}
		if b[i] == ']' {
			i++
			goto closed
		}
		goto value
	case 't':
		if j, err = scanLiteral(b, i, "true"); err != nil {
			return err
		}
		i = j
	case 'f':
		if j, err = scanLiteral(b, i, "false"); err != nil {
			return err
		}
		i = j
	case 'n':
		if j, err = scanLiteral(b, i, "null"); err != nil {
			return err
		}
		i = j
	default:
		if c != '-' && (c < '0' || c > '9') {
			return invalidChar(b, i, "looking for beginning of value")
		}
		if j, err = scanNumber(b, i); err != nil {
			return err
		}
		i = j
	}
	if hook && depth == 1 {
		topMember(fn, m, nest, b, top, ns, ne, vs, i, &skip)
	} else if deep && depth <= levels && inObj {
		nestMember(nest, depth, do[depth], dns[depth], dne[depth], dv[depth], i, &skip)
	}
	goto after

closed: // the container at depth closed before b[i]
	depth--
	inObj = depth > 0 && isObject(stack, depth)
	if hook && depth == 1 {
		topMember(fn, m, nest, b, top, ns, ne, vs, i, &skip)
	} else if deep && depth > 1 && depth <= levels && inObj {
		nestMember(nest, depth, do[depth], dns[depth], dne[depth], dv[depth], i, &skip)
	}

after:
	i = ws(b, i)
	if depth == 0 {
		if i < len(b) {
			return invalidChar(b, i, "after top-level value")
		}
		return nil
	}
	if i >= len(b) {
		return unexpectedEnd(len(b))
	}
	c = b[i]
	if inObj {
		switch c {
		case ',':
			i = ws(b, i+1)
			goto key
		case '}':
			i++
			goto closed
		}
		return invalidChar(b, i, "after object key:value pair")
	}
	switch c {
	case ',':
		i = ws(b, i+1)
		goto value
	case ']':
		i++
		goto closed
	}
	return invalidChar(b, i, "after array element")

key:
	if i >= len(b) {
		return unexpectedEnd(len(b))
	}
	if b[i] != '"' {
		return invalidChar(b, i, "looking for beginning of object key string")
	}
	if hook && depth == 1 && m != nil {
		if k < len(m.ends)/4 {
			e := m.ends[4*k : 4*k+4 : 4*k+4]
			if l := e[3] + 1 - e[0]; l <= len(b)-i && string(b[i:i+l]) == string(m.prev[e[0]:e[3]+1]) {
				// The member the previous object had here.
				ns, ne, vs = i, i+e[1]-e[0], i+e[2]-e[0]
				i += e[3] - e[0]
				k++
				topMember(fn, m, nest, b, top, ns, ne, vs, i, &skip)
				goto after
			}
		}
		k++
	}
	if j, ok = sm.end(b, i); !ok {
		_, err = scanString(b, i)
		return err
	}
	if hook && depth == 1 {
		ns, ne = i, j
	} else if deep && depth <= levels {
		dns[depth], dne[depth] = i, j
	}
	if i = ws(b, j); i >= len(b) {
		return unexpectedEnd(len(b))
	}
	if b[i] != ':' {
		return invalidChar(b, i, "after object key")
	}
	i = ws(b, i+1)
	goto value
}

// topMember reports the top-level member whose name is b[ns:ne] and whose
// value is b[vs:ve], of the object at b[obj]: to fn or nest's index (level 1),
// and with m its offsets to m.next. While *skip is positive it counts a
// call down instead of making it (see checkExact).
func topMember(fn func(name, value []byte), m *Members, nest *nesting, b []byte, obj, ns, ne, vs, ve int, skip *int) {
	if m != nil {
		m.next = append(m.next, ns, ne, vs, ve)
	}
	if fn == nil && nest == nil {
		return
	}
	if *skip > 0 {
		*skip--
		return
	}
	if nest != nil {
		nest.idx.add(1, obj, ns, ne, vs, ve)
	} else {
		fn(b[ns:ne], b[vs:ve])
	}
}

// nestMember records the member of the object at b[obj] at level whose
// name is b[ns:ne] and whose value is b[vs:ve], or while *skip is positive
// counts a record down.
func nestMember(nest *nesting, level, obj, ns, ne, vs, ve int, skip *int) {
	if *skip > 0 {
		*skip--
		return
	}
	nest.idx.add(level, obj, ns, ne, vs, ve)
}

// ws is skipWS with the common case, no whitespace at all, decided
// without a loop.
func ws(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	return skipWS(b, i)
}

func isObject(stack []uint64, depth int) bool {
	d := uint(depth - 1)
	return stack[d/64]&(1<<(d%64)) != 0
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// hasStrSpecial reports whether any of the eight bytes in x is a quote, a
// backslash or a control character (< 0x20).
func hasStrSpecial(x uint64) bool { return strSpecialMask(x) != 0 }

// strSpecialMask marks, with its top bit, each of the eight bytes of x
// (little-endian) that is a quote, a backslash or a control character,
// with the SWAR tests of "Bit Twiddling Hacks": a byte b is zero in v when
// (v-1) borrows into its top bit while b's own top bit is clear. Bytes >=
// 0x80 never match. A borrow only runs upwards from a byte that matched,
// so the lowest marked byte is always a real match (the ones above it may
// be spurious): bits.TrailingZeros64(mask)/8 is the index of the first
// special byte.
func strSpecialMask(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	return quoteOrBackslash(x) | (x-ones*0x20)&^x&highs
}

// plainMask is strSpecialMask(x) | x&highs, the bytes a plain run ends at
// (the bytes >= 0x80 too), bit for bit, in fewer steps: a byte's top bit
// is set in (x-0x20s)&^x or in x exactly when it is set in (x-0x20s)|x.
func plainMask(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	return quoteOrBackslash(x) | (x-ones*0x20|x)&highs
}

// strSpecial marks the bytes a string scan must stop at: the quote, the
// backslash and the control characters.
var strSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

// scanString validates the string starting at the quote b[i] and returns
// the index just past its closing quote. A valid string (nearly always) is
// scanned by StringEnd, eight or sixteen bytes at a time; an invalid one
// is scanned again here, byte by byte, for the position of its error.
func scanString(b []byte, i int) (int, error) {
	if end, _, ok := StringEnd(b, i); ok {
		return end, nil
	}
	i++
	for {
		for i < len(b) && !strSpecial[b[i]] {
			i++
		}
		if i >= len(b) {
			return 0, unexpectedEnd(len(b))
		}
		switch c := b[i]; c {
		case '"':
			return i + 1, nil
		case '\\':
			i++
			if i >= len(b) {
				return 0, unexpectedEnd(len(b))
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k++ {
					if i >= len(b) {
						return 0, unexpectedEnd(len(b))
					}
					if !isHex(b[i]) {
						return 0, invalidChar(b, i, `in \u hexadecimal character escape`)
					}
					i++
				}
			default:
				return 0, invalidChar(b, i, "in string escape code")
			}
		default: // control character
			return 0, invalidChar(b, i, "in string literal")
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanNumber validates the number starting at b[i] ('-' or a digit) and
// returns the index just past it.
func scanNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
		if i >= len(b) {
			return 0, unexpectedEnd(len(b))
		}
		if !isDigit(b[i]) {
			return 0, invalidChar(b, i, "in numeric literal")
		}
	}
	if b[i] == '0' {
		i++
	} else {
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) {
			return 0, unexpectedEnd(len(b))
		}
		if !isDigit(b[i]) {
			return 0, invalidChar(b, i, "after decimal point in numeric literal")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) {
			return 0, unexpectedEnd(len(b))
		}
		if !isDigit(b[i]) {
			return 0, invalidChar(b, i, "in exponent of numeric literal")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, nil
}

func scanLiteral(b []byte, i int, lit string) (int, error) {
	for k := 1; k < len(lit); k++ {
		if i+k >= len(b) {
			return 0, unexpectedEnd(len(b))
		}
		if b[i+k] != lit[k] {
			return 0, invalidChar(b, i+k, "in literal "+lit+" (expecting "+quoteChar(lit[k])+")")
		}
	}
	return i + len(lit), nil
}

func unexpectedEnd(n int) *SyntaxError {
	return &SyntaxError{Offset: n, Msg: "unexpected end of JSON input"}
}

func invalidChar(b []byte, i int, context string) *SyntaxError {
	return &SyntaxError{Offset: i, Msg: "invalid character " + quoteChar(b[i]) + " " + context}
}

// quoteChar formats c like encoding/json does: a byte >= 0x80 is shown as
// the rune of the same value, so a stray BOM byte reads 'ï'.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}
