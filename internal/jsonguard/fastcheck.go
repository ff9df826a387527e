package jsonguard

import "math/bits"

// fastDepth is the deepest nesting the fast path (walk) follows: the
// kinds of the open containers are the bits of one word. Deeper input
// goes to the exact path, which tracks up to StackDepth levels.
const fastDepth = 64

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
func walk(b []byte, maxDepth int, fn func(name, value []byte), m *Members, nest *nesting) (calls int, ok bool) {
	// What a token rarely needs lives in w, in memory: the Go register
	// allocator spills every live value at each label and call of a loop
	// this size, so the hot state is kept to b, i, depth and inObj.
	w := walker{fn: fn, nest: nest, limit: min(maxDepth, fastDepth)}
	var (
		depth int
		inObj bool
		j     int
		err   error
	)
	i := ws(b, 0)
	if i < len(b) && b[i] == '{' {
		switch {
		case m != nil:
			w.rep = 1
		case nest != nil:
			w.rep = nest.levels
		case fn != nil:
			w.rep = 1
		}
	}

value:
	if i >= len(b) {
		return w.calls, false
	}
	if depth <= w.rep && inObj {
		w.vs[depth] = i
	}
	switch c := b[i]; c {
	case '"':
		// strMasks.end's commonest case in line: the first special byte
		// after the opening quote, in its block or the next, is the
		// closing quote.
		if t := i + 1; uint(t>>6-w.sm.first) < uint(w.sm.n) {
			x := t>>6 - w.sm.first
			mm := w.sm.m[x] >> (uint(t) & 63)
			if mm == 0 {
				// The rest of the block is plain: the next block's mask,
				// or past the window the sentinel 1, which makes j the
				// first byte no mask covers (t alone, not t+64: the
				// bytes between are not indexed).
				t, mm = (t|63)+1, 1
				if uint(x+1) < uint(w.sm.n) {
					mm = w.sm.m[x+1]
				}
			}
			if j = t + bits.TrailingZeros64(mm); j < len(b) && b[j] == '"' {
				i = j + 1
				break
			}
		}
		if j, ok = w.sm.end(b, i); !ok {
			return w.calls, false
		}
		i = j
	case '{':
		if depth++; depth > w.limit {
			return w.calls, false
		}
		w.obj |= 1 << uint(depth-1)
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
			return w.calls, false
		}
		w.obj &^= 1 << uint(depth-1)
		inObj = false
		if i = ws(b, i+1); i < len(b) && b[i] == ']' {
			i++
			goto closed
		}
		goto value
	case 't':
		if i+4 > len(b) || string(b[i:i+4]) != "true" {
			return w.calls, false
		}
		i += 4
	case 'f':
		if i+5 > len(b) || string(b[i:i+5]) != "false" {
			return w.calls, false
		}
		i += 5
	case 'n':
		if i+4 > len(b) || string(b[i:i+4]) != "null" {
			return w.calls, false
		}
		i += 4
	default:
		if c != '-' && (c < '0' || c > '9') {
			return w.calls, false
		}
		if j, err = scanNumber(b, i); err != nil {
			return w.calls, false
		}
		i = j
	}
	goto member

closed: // the container at depth closed before b[i]
	depth--
	inObj = w.obj>>uint(depth-1)&1 != 0 // false at depth 0: the shift is >= 64
member: // a value at depth ended before b[i]: a member to report?
	if depth <= w.rep && inObj {
		if m != nil {
			m.next = append(m.next, w.ns[1], w.ne[1], w.vs[1], i)
		}
		if w.nest != nil {
			// report's commonest case in line.
			w.calls++
			w.nest.idx.add(depth, w.os[depth], w.ns[depth], w.ne[depth], w.vs[depth], i)
		} else {
			w.report(b, depth, i)
		}
	}

after:
	i = ws(b, i)
	if depth == 0 {
		return w.calls, i == len(b)
	}
	if i >= len(b) {
		return w.calls, false
	}
	switch b[i] {
	case ',':
		i = ws(b, i+1)
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
	}
	return w.calls, false

key:
	if i >= len(b) || b[i] != '"' {
		return w.calls, false
	}
	if m != nil && depth <= w.rep {
		if w.memo(m, b, i) {
			// The member the previous object had here (see checkExact).
			i = w.memoEnd
			m.next = append(m.next, w.ns[1], w.ne[1], w.vs[1], i)
			w.report(b, 1, i)
			goto after
		}
	}
	// As at value.
	if t := i + 1; uint(t>>6-w.sm.first) < uint(w.sm.n) {
		x := t>>6 - w.sm.first
		mm := w.sm.m[x] >> (uint(t) & 63)
		if mm == 0 {
			t, mm = (t|63)+1, 1
			if uint(x+1) < uint(w.sm.n) {
				mm = w.sm.m[x+1]
			}
		}
		if j = t + bits.TrailingZeros64(mm); j < len(b) && b[j] == '"' {
			j++
			goto name
		}
	}
	if j, ok = w.sm.end(b, i); !ok {
		return w.calls, false
	}
name:
	if depth <= w.rep {
		w.ns[depth], w.ne[depth] = i, j
	}
	if i = ws(b, j); i >= len(b) || b[i] != ':' {
		return w.calls, false
	}
	i = ws(b, i+1)
	goto value
}

// walker is walk's state beyond the hot loop's: the string masks, the
// callbacks (not m: see report), the depth limits, the kinds of the open containers (bit d-1
// of obj: the container at depth d is an object), the calls made, and
// per reported level (1 to rep) the current member's name start and end,
// value start and object start.
type walker struct {
	sm             strMasks
	fn             func(name, value []byte)
	nest           *nesting
	rep, limit     int // members are reported at depths 1 to rep
	obj            uint64
	calls, k       int // k: with m, the index of the current top-level member
	memoEnd        int // see memo
	ns, ne, vs, os [MaxLevels + 1]int
}

// memo reports whether the top-level member whose name starts at b[i] is
// byte for byte the one m.prev had at the same index (see checkExact),
// and counts the member. On a match it sets the member's spans at level
// 1, and memoEnd to the end of its value.
func (w *walker) memo(m *Members, b []byte, i int) bool {
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
