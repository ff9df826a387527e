package jsonguard

// Members is [CheckMembers] for a run of objects that repeat members byte
// for byte, as the events of a stream do (an OpenAI Chat chunk repeats id,
// object, created, model and system_fingerprint on every chunk, a
// Responses delta its type, item_id, output_index and content_index). It
// remembers the last object it accepted and where its top-level members
// lie. A top-level member of the next object whose bytes, and the byte
// after them, are those of the remembered object's member at the same
// index (the n-th member of each) is not scanned again: fn is told of it
// and validation goes on after it in the state the scan would have
// reached (see check). The check is deterministic in the bytes it reads,
// so the result is exactly CheckMembers' (the same error at the same
// offset, the same calls of fn); a member costs a comparison of its bytes
// with the remembered ones, and an accepted object a copy.
//
// The zero Members is ready to use. It is not safe for concurrent use.
type Members struct {
	prev     []byte
	ends     []int // per member of prev: name start, name end, value start, value end
	next     []int // the same for the object being checked
	maxDepth int
}

// Check is CheckMembers(b, maxDepth, fn), remembering b when it is
// accepted.
func (m *Members) Check(b []byte, maxDepth int, fn func(name, value []byte)) error {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	if m.maxDepth != maxDepth {
		m.prev, m.ends = m.prev[:0], m.ends[:0]
	}
	m.next = m.next[:0]
	err := check(b, maxDepth, fn, m, nil)
	if err != nil {
		m.prev, m.ends = m.prev[:0], m.ends[:0]
		return err
	}
	m.prev, m.maxDepth = append(m.prev[:0], b...), maxDepth
	m.ends, m.next = m.next, m.ends
	return nil
}
