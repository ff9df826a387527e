package jsonguard

import "math/bits"

// fastDepth is the deepest nesting the fast path (walk) follows: the
// kinds of the open containers are the bits of one word, bit d for the
// container at depth d (bit 0, the top level's outside, stays clear, so
// that a shift by the depth needs no test: the kind at depth 0 reads as
// not an object). Deeper input goes to the exact path, which tracks up
// to StackDepth levels.
const fastDepth = 63

// check is Check, CheckMembers, CheckIndex (with nest) and Members.Check
// (with m), as described at checkExact: the fast path (walk) first, and
// when it does not accept b, the exact path, which finds the error, or
// accepts what the fast path gave up on (nesting deeper than fastDepth),
// without repeating the member calls the fast path made.
func check(b []byte, maxDepth int, fn func(name, value []byte), m *Members, nest *nesting) error {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	calls, ok := walk(b, maxDepth, fn, m, nest)
	if ok {
		return nil
	}
	if m != nil {
		m.next = m.next[:0]
	}
	return checkExact(b, maxDepth, fn, m, nest, calls)
}

// walk is check's fast path: the grammar of checkExact, with the same
// member calls in the same order, deciding only whether b is valid. It
// gives up (ok false) at the first byte the grammar rejects, at a
// container deeper than maxDepth or fastDepth, or at an invalid string,
// number or literal, having made calls member calls (those of the
// members whose values ended before that point, which checkExact would
// make too: up to there both read the same bytes the same way).
//
// It is checkExact's loop with less to carry per token: the open
// containers' kinds are one word (obj), one level bound (rep) says which
// depths report members, the spans of the members being read are kept
// per level, and strings end where the string masks (strMasks) say.
//
// The loop itself is walker.run, which makes no call: the Go register
// allocator spills every value live across a call at the label that
// defines it, on every pass, however rarely the call is made (b, i,
// depth and inObj were stored at each value and key). What needs a call
// (a string the masks' first word does not end, filling the masks, a
// member for fn or Members, an index entry with no room left, the
// Members memo) is an exit of run that walk serves, then run goes on
// where it left (resume points at*).
func walk(b []byte, maxDepth int, fn func(name, value []byte), m *Members, nest *nesting) (calls int, ok bool) {
	w := walker{fn: fn, nest: nest, limit: min(maxDepth, fastDepth), memo: m != nil}
	if nest != nil {
		w.idx = nest.idx
	}
	w.i = ws(b, 0)
	if w.i < len(b) && b[w.i] == '{' {
		switch {
		case m != nil:
			w.rep = 1
		case nest != nil:
			w.rep = nest.levels
		case fn != nil:
			w.rep = 1
		}
	}
	at := atValue
	for {
		switch w.run(b, at) {
		case exDone:
			return w.calls, w.i == len(b)
		case exString:
			j, ok := w.sm.end(b, w.i)
			if !ok {
				return w.calls, false
			}
			w.i, at = j, atMember
		case exName:
			j, ok := w.sm.end(b, w.i)
			if !ok {
				return w.calls, false
			}
			w.j, at = j, atName
		case exMember:
			if m != nil {
				m.next = append(m.next, w.ns[1], w.ne[1], w.vs[1], w.i)
			}
			w.report(b, w.depth, w.i)
			at = atAfter
		case exMemo:
			at = atNameScan
			if w.memoMatch(m, b, w.i) {
				// The member the previous object had here (see checkExact).
				w.i = w.memoEnd
				m.next = append(m.next, w.ns[1], w.ne[1], w.vs[1], w.i)
				w.report(b, 1, w.i)
				at = atAfter
			}
		default:
			return w.calls, false
		}
	}
}

// Where walker.run starts (at) and why it returned (ex).
const (
	atValue    = iota // a value starts at w.i
	atMember          // a value at w.depth ended before w.i
	atAfter           // likewise, its member (if any) reported
	atNameScan        // a name starts at w.i, the memo asked
	atName            // a name starts at w.i and ends before w.j
)

const (
	exFail   = iota // give up
	exDone          // the top-level value ended; w.i is past its whitespace
	exString        // the string value at w.i needs strMasks.end
	exName          // so does the name at w.i
	exMember        // the member at w.depth ending before w.i is to be reported
	exMemo          // with Members, the top-level name at w.i is to be looked up
)

// run is walk's loop, from at with the state in w (i, j, depth, inObj),
// up to the first thing it cannot do without a call: it returns why
// (ex*), with the state stored back. It makes no call itself (see walk).
func (w *walker) run(b []byte, at int) int {
	var (
		i, j, depth = w.i, w.j, w.depth
		inObj       = w.inObj
		c           byte
	)
	switch at {
	case atMember:
		goto member
	case atAfter:
		goto after
	case atNameScan:
		goto nameScan
	case atName:
		goto name
	}

value:
	if i >= len(b) {
		return exFail
	}
	if depth <= w.rep && inObj {
		w.vs[depth] = i
	}
	switch c = b[i]; c {
	case '"':
		goto str
	case '{':
		if depth++; depth > w.limit {
			return exFail
		}
		w.obj |= 1 << (uint(depth) & 63)
		inObj = true
		if depth <= w.rep {
			w.os[depth] = i
		}
		if i = ws(b, i+1); i < len(b) && b[i] == '}' {
			i++
			goto closed
		}
		goto key
	case '[':
		if depth++; depth > w.limit {
			return exFail
		}
		w.obj &^= 1 << (uint(depth) & 63)
		inObj = false
		if i = ws(b, i+1); i < len(b) && b[i] == ']' {
			i++
			goto closed
		}
		goto value
	case 't':
		if i+4 > len(b) || string(b[i:i+4]) != "true" {
			return exFail
		}
		i += 4
	case 'f':
		if i+5 > len(b) || string(b[i:i+5]) != "false" {
			return exFail
		}
		i += 5
	case 'n':
		if i+4 > len(b) || string(b[i:i+4]) != "null" {
			return exFail
		}
		i += 4
	default:
		if c <= ' ' && (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
			// Whitespace before the value (after a colon or a comma,
			// which leave it to here).
			i = skipWS(b, i)
			goto value
		}
		// A number, as scanNumber reads it: -? (0 | [1-9][0-9]*)
		// (.[0-9]+)? ([eE][+-]?[0-9]+)?
		if c == '-' {
			if i++; i >= len(b) {
				return exFail
			}
			c = b[i]
		}
		if c-'0' > 9 {
			return exFail
		}
		i++
		if c != '0' {
			for i < len(b) && b[i]-'0' <= 9 {
				i++
			}
		}
		if i < len(b) && b[i] == '.' {
			if i++; i >= len(b) || b[i]-'0' > 9 {
				return exFail
			}
			for i++; i < len(b) && b[i]-'0' <= 9; i++ {
			}
		}
		if i < len(b) && b[i]|0x20 == 'e' {
			if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
				i++
			}
			if i >= len(b) || b[i]-'0' > 9 {
				return exFail
			}
			for i++; i < len(b) && b[i]-'0' <= 9; i++ {
			}
		}
	}
	goto member

str: // a string value starts at b[i]
	// strMasks.end's commonest case in line: the first special byte
	// after the opening quote, in its block or the next, is the
	// closing quote.
	if t := i + 1; uint(t>>6-w.sm.first) < uint(w.sm.n) {
		x := t>>6 - w.sm.first
		mm := w.sm.m[x&(maskBlocks-1)] >> (uint(t) & 63)
		if mm == 0 {
			// The rest of the block is plain: the next block's mask,
			// or past the window the sentinel 1, which makes j the
			// first byte no mask covers (t alone, not t+64: the
			// bytes between are not indexed).
			t, mm = (t|63)+1, 1
			if uint(x+1) < uint(w.sm.n) {
				mm = w.sm.m[(x+1)&(maskBlocks-1)]
			}
		}
		// Bit 63 set: the count needs no zero test, and finds no
		// quote in a next block with no special byte.
		if j = t + bits.TrailingZeros64(mm|1<<63); j < len(b) && b[j] == '"' {
			i = j + 1
			goto member
		}
	}
	w.i, w.depth, w.inObj = i, depth, inObj
	return exString

closed: // the container at depth closed before b[i]
	depth--
	inObj = w.obj>>(uint(depth)&63)&1 != 0 // false at depth 0 (bit 0)
member: // a value at depth ended before b[i]: a member to report?
	if depth <= w.rep && inObj {
		if w.idx == nil {
			w.i, w.depth, w.inObj = i, depth, inObj
			return exMember
		}
		// Index.add in line while the level has room (append would
		// call growslice): walk grows it.
		x := w.idx
		if depth > 1 {
			if x.Max > 0 && x.nested >= x.Max {
				w.calls++
				x.Overflow = true
				goto after
			}
		}
		l := &x.Levels[depth-1]
		n := len(*l)
		if n >= cap(*l) {
			w.i, w.depth, w.inObj = i, depth, inObj
			return exMember
		}
		if depth > 1 {
			x.nested++
		}
		w.calls++
		*l = (*l)[:n+1]
		e := &(*l)[n]
		e.Level, e.Obj, e.NS, e.NE, e.VS, e.VE = int32(depth), int32(w.os[depth]), int32(w.ns[depth]), int32(w.ne[depth]), int32(w.vs[depth]), int32(i)
	}

after:
	if depth == 0 {
		w.i = ws(b, i)
		return exDone
	}
next: // after a value inside a container, at b[i]: whitespace, then a comma or the closer
	if i >= len(b) {
		return exFail
	}
	switch b[i] {
	case ',':
		// Whitespace after the comma is key's and value's to skip.
		i++
		if inObj {
			goto key
		}
		goto value
	case '}':
		if inObj {
			i++
			goto closed
		}
	case ']':
		if !inObj {
			i++
			goto closed
		}
	case ' ', '\n', '\t', '\r':
		i = skipWS(b, i+1)
		goto next
	}
	return exFail

key:
	if i >= len(b) {
		return exFail
	}
	if b[i] != '"' {
		if c = b[i]; c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			i = skipWS(b, i+1)
			goto key
		}
		return exFail
	}
	if w.memo && depth <= w.rep {
		w.i, w.depth, w.inObj = i, depth, inObj
		return exMemo
	}
nameScan:
	// As at value.
	if t := i + 1; uint(t>>6-w.sm.first) < uint(w.sm.n) {
		x := t>>6 - w.sm.first
		mm := w.sm.m[x&(maskBlocks-1)] >> (uint(t) & 63)
		if mm == 0 {
			t, mm = (t|63)+1, 1
			if uint(x+1) < uint(w.sm.n) {
				mm = w.sm.m[(x+1)&(maskBlocks-1)]
			}
		}
		if j = t + bits.TrailingZeros64(mm|1<<63); j < len(b) && b[j] == '"' {
			j++
			goto name
		}
	}
	w.i, w.depth, w.inObj = i, depth, inObj
	return exName
name: // the name at b[i] ends before b[j]
	if depth <= w.rep {
		w.ns[depth], w.ne[depth] = i, j
	}
	if j < len(b) && b[j] == ':' {
		// Whitespace after the colon is value's to skip.
		i = j + 1
		if i < len(b) && b[i] == '"' {
			// value's string case, its tests done.
			if depth <= w.rep {
				w.vs[depth] = i
			}
			goto str
		}
		goto value
	}
	if i = skipWS(b, j); i >= len(b) || b[i] != ':' {
		return exFail
	}
	i++
	goto value
}

// walker is walk's state beyond run's registers: the string masks, the
// callbacks (not m: see report), the depth limits, the kinds of the open
// containers (bit d of obj: the container at depth d is an object), the
// calls made, per reported level (1 to rep) the current member's name
// start and end, value start and object start, and run's state between
// its calls.
type walker struct {
	sm             strMasks
	fn             func(name, value []byte)
	nest           *nesting
	idx            *Index // nest's
	rep, limit     int    // members are reported at depths 1 to rep
	obj            uint64
	calls, k       int  // k: with m, the index of the current top-level member
	memo           bool // walk has a *Members (see report)
	memoEnd        int  // see memoMatch
	i, j, depth    int  // run's state between its calls
	inObj          bool
	ns, ne, vs, os [MaxLevels + 1]int
}

// memoMatch reports whether the top-level member whose name starts at b[i] is
// byte for byte the one m.prev had at the same index (see checkExact),
// and counts the member. On a match it sets the member's spans at level
// 1, and memoEnd to the end of its value.
func (w *walker) memoMatch(m *Members, b []byte, i int) bool {
	k := w.k
	w.k++
	if k >= len(m.ends)/4 {
		return false
	}
	e := m.ends[4*k : 4*k+4 : 4*k+4]
	if l := e[3] + 1 - e[0]; l > len(b)-i || string(b[i:i+l]) != string(m.prev[e[0]:e[3]+1]) {
		return false
	}
	w.ns[1], w.ne[1], w.vs[1], w.memoEnd = i, i+e[1]-e[0], i+e[2]-e[0], i+e[3]-e[0]
	return true
}

// report reports the member at depth (1 to rep) whose value ends before
// b[ve] to fn or nest's index, counting the calls made. (Members' offsets are
// appended by walk: a *Members kept in w would make the callbacks escape,
// escape analysis being blind to which field of w is written.)
func (w *walker) report(b []byte, depth, ve int) {
	ns, ne, vs := w.ns[depth], w.ne[depth], w.vs[depth]
	if w.nest != nil {
		w.calls++
		w.nest.idx.add(depth, w.os[depth], ns, ne, vs, ve)
	} else if w.fn != nil {
		w.calls++
		w.fn(b[ns:ne], b[vs:ve])
	}
}
