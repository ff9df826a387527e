package jsonguard

import (
	"encoding/binary"
	"math/bits"
)

// Members is [CheckMembers] for a run of objects that repeat their leading
// members byte for byte, as the events of a stream do (an OpenAI Chat
// chunk repeats id, object, created, model and system_fingerprint on every
// chunk). It remembers the last object it accepted; the members of the
// next one that lie wholly inside the bytes the two share, and are
// followed by a shared byte too, are not scanned again: fn is told of
// them from the remembered offsets, and validation resumes after the last
// of them in the state it had reached there. The check is deterministic in
// the bytes it has read, so the result is exactly CheckMembers' (the same
// error at the same offset, the same calls of fn); it costs a comparison
// of the shared bytes and a copy of each accepted object.
//
// The zero Members is ready to use. It is not safe for concurrent use.
type Members struct {
	prev     []byte
	ends     []int // per member of prev: name start, name end, value start, value end
	maxDepth int
	fn       func(name, value []byte)
	cur      []byte
	rec      func(name, value []byte)
}

// Check is CheckMembers(b, maxDepth, fn), remembering b when it is
// accepted.
func (m *Members) Check(b []byte, maxDepth int, fn func(name, value []byte)) error {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	k := 0
	if len(m.prev) > 0 && m.maxDepth == maxDepth {
		l := commonPrefix(m.prev, b)
		for 4*k < len(m.ends) && m.ends[4*k+3] < l {
			k++
		}
	}
	m.ends = m.ends[:4*k]
	for j := 0; j < k; j++ {
		e := m.ends[4*j : 4*j+4]
		if fn != nil {
			fn(b[e[0]:e[1]], b[e[2]:e[3]])
		}
	}
	resume := 0
	if k > 0 {
		resume = m.ends[4*k-1]
	}
	if m.rec == nil {
		m.rec = func(name, value []byte) {
			// Sub-slices of cur: their offsets are what their capacity
			// lacks of cur's.
			c := cap(m.cur)
			m.ends = append(m.ends, c-cap(name), c-cap(name)+len(name), c-cap(value), c-cap(value)+len(value))
			if m.fn != nil {
				m.fn(name, value)
			}
		}
	}
	m.cur, m.fn = b, fn
	err := check(b, maxDepth, m.rec, resume)
	m.cur, m.fn = nil, nil
	if err != nil {
		m.prev, m.ends = m.prev[:0], m.ends[:0]
		return err
	}
	m.prev, m.maxDepth = append(m.prev[:0], b...), maxDepth
	return nil
}

// commonPrefix returns the length of the longest common prefix of a and
// b, comparing eight bytes at a time.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
