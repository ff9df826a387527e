package claude

import (
	"bytes"
	"unicode/utf8"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// The stream_event fast path. With --include-partial-messages nearly every
// line is a stream_event wrapping one Messages API event, and nearly every
// one of those is a content_block_delta:
//
//	{"type":"stream_event","event":{"type":"content_block_delta","index":0,
//	 "delta":{"type":"text_delta","text":"Hel"}},"parent_tool_use_id":null,
//	 "session_id":"...","uuid":"..."}
//
// fastStream fills the streamLine from the members that jsonguard's one
// validating pass (CheckNested) hands over, instead of the reflection
// decoder (which scans the line twice for its own flags before decoding
// it, and once more for every field with an UnmarshalJSON). It takes only
// the lines whose result it can give exactly as f.Decode(l) would (a
// line of the events below, every member the decoder reads of the type
// this reads, no duplicate, no name the decoder would match case
// insensitively or after unescaping); on anything else it declines and
// the caller decodes the line, which gives the same result or the same
// error. FuzzStreamFast holds the two to the same result.

// fastMembers bounds the members fastStream records below the top level
// (the event's and the delta's, and those of any other object in the
// line); a line with more is declined.
const fastMembers = 24

// fastMember is a member below the top level: the offset of its object's
// '{' in the line, its name literal and its value.
type fastMember struct {
	level, obj  int
	name, value []byte
}

// fastScan is fastStream's state, kept in the Parser so that the check's
// callback (made once, in fastFn) allocates nothing per line.
type fastScan struct {
	line     []byte
	declined bool
	// The top-level members the decoder reads.
	typ, event, parent, sid []byte
	nTyp, nEvent, nParent   int
	nSID                    int
	nested                  [fastMembers]fastMember
	n                       int
}

// member records one member as CheckNested reaches the end of its value.
func (s *fastScan) member(level, obj int, name, value []byte) {
	if s.declined {
		return
	}
	if level > 1 {
		if s.n == fastMembers {
			s.declined = true
			return
		}
		s.nested[s.n] = fastMember{level, obj, name, value}
		s.n++
		return
	}
	switch string(name) {
	case `"type"`:
		s.typ, s.nTyp = value, s.nTyp+1
	case `"event"`:
		s.event, s.nEvent = value, s.nEvent+1
	case `"parent_tool_use_id"`:
		s.parent, s.nParent = value, s.nParent+1
	case `"session_id"`:
		s.sid, s.nSID = value, s.nSID+1
	default:
		s.declined = foldsTo(name, lineFields)
	}
}

// The field names of streamLine, sseEvent and sseDelta as the decoder
// matches them; a member of another name is ignored by the decoder, unless
// it matches one of these case insensitively or after unescaping.
var (
	lineFields  = []string{"type", "event", "parent_tool_use_id", "session_id"}
	eventFields = []string{"type", "index", "message", "content_block", "delta", "usage", "error"}
	deltaFields = []string{"type", "text", "thinking", "partial_json", "signature", "stop_reason"}
)

// foldsTo reports whether the member name literal lit is not one of
// fields exactly but the decoder could still take it for one: it has an
// escape, or it equals one case insensitively (Unicode folding included:
// "ſ" folds to 's', "K" to 'k').
func foldsTo(lit []byte, fields []string) bool {
	name := lit[1 : len(lit)-1]
	ascii := true
	for _, c := range name {
		if c == '\\' {
			return true
		}
		if c >= 0x80 {
			ascii = false
		}
	}
	for _, f := range fields {
		// An ASCII name folds to a field of its own length only; a
		// non-ASCII one may fold to a shorter one ("ſ" is two bytes).
		if (!ascii || len(f) == len(name)) && bytes.EqualFold(name, []byte(f)) {
			return true
		}
	}
	return false
}

// fastStream fills l from the stream_event line data as f.Decode(l) would,
// for a content_block_delta, content_block_stop, message_stop or ping
// event; ok is false (l then unspecified) when it declines.
func (p *Parser) fastStream(data []byte, l *streamLine) (ok bool) {
	s := &p.fs
	// Every field but the records, which s.n bounds.
	s.line, s.declined, s.n = data, false, 0
	s.typ, s.event, s.parent, s.sid = nil, nil, nil, nil
	s.nTyp, s.nEvent, s.nParent, s.nSID = 0, 0, 0, 0
	if p.fastFn == nil {
		p.fastFn = s.member
	}
	if jsonguard.CheckNested(data, jsonguard.DefaultMaxDepth, 3, p.fastFn) != nil || s.declined {
		return false
	}
	if s.nTyp != 1 || string(s.typ) != `"stream_event"` || s.nEvent != 1 || s.nParent > 1 || s.nSID > 1 ||
		len(s.event) == 0 || s.event[0] != '{' {
		return false
	}
	*l = streamLine{}
	l.Type = typeField{n: 1, v: "stream_event"}
	if s.nParent == 1 {
		v, ok := nullableString(s.parent)
		if !ok {
			return false
		}
		l.ParentToolUseID = v
	}
	if s.nSID == 1 && string(s.sid) != "null" {
		// idField without an escape and up to its room; anything else is
		// left to the decoder.
		id := s.sid
		if len(id) < 2 || id[0] != '"' || len(id)-2 > len(l.SessionID.b) || bytes.IndexByte(id, '\\') >= 0 {
			return false
		}
		l.SessionID.set, l.SessionID.n = true, copy(l.SessionID.b[:], id[1:len(id)-1])
	}
	return s.eventMembers(offsetOf(data, s.event), &l.Event)
}

// eventMembers fills ev from the members of the event object at offset
// obj.
func (s *fastScan) eventMembers(obj int, ev *sseEvent) bool {
	var nType, nIndex, nDelta int
	var delta []byte
	for _, m := range s.nested[:s.n] {
		if m.level != 2 || m.obj != obj {
			continue
		}
		switch string(m.name) {
		case `"type"`:
			nType++
			switch string(m.value) {
			case `"content_block_delta"`, `"content_block_stop"`, `"message_stop"`, `"ping"`:
				ev.Type = knownNames[string(m.value[1:len(m.value)-1])]
			default:
				return false
			}
		case `"index"`:
			nIndex++
			if string(m.value) == "null" {
				continue
			}
			n, ok := smallInt(m.value)
			if !ok {
				return false
			}
			ev.Index = n
		case `"delta"`:
			nDelta++
			delta = m.value
		case `"message"`, `"content_block"`, `"usage"`, `"error"`:
			// Pointers the decoder leaves nil on null; anything else is
			// another kind of event than this path takes.
			if string(m.value) != "null" {
				return false
			}
		default:
			if foldsTo(m.name, eventFields) {
				return false
			}
		}
	}
	if nType != 1 || nIndex > 1 || nDelta > 1 {
		return false
	}
	if delta == nil || string(delta) == "null" {
		return true
	}
	if delta[0] != '{' {
		return false
	}
	return s.deltaMembers(offsetOf(s.line, delta), &ev.Delta)
}

// deltaMembers fills d from the members of the delta object at offset
// obj.
func (s *fastScan) deltaMembers(obj int, d *sseDelta) bool {
	var seen [6]bool
	for _, m := range s.nested[:s.n] {
		if m.level != 3 || m.obj != obj {
			continue
		}
		var dst *string
		var i int
		switch string(m.name) {
		case `"type"`:
			i = 0
		case `"text"`:
			i, dst = 1, &d.Text
		case `"thinking"`:
			i, dst = 2, &d.Thinking
		case `"partial_json"`:
			i, dst = 3, &d.PartialJSON
		case `"signature"`:
			i, dst = 4, &d.Signature
		case `"stop_reason"`:
			i, dst = 5, &d.StopReason
		default:
			if foldsTo(m.name, deltaFields) {
				return false
			}
			continue
		}
		if seen[i] {
			return false
		}
		seen[i] = true
		if i == 0 {
			// A name interned as the decoder's name type does; an escaped
			// one is left to it.
			v := m.value
			if string(v) == "null" {
				continue
			}
			if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
				return false
			}
			if k, ok := knownNames[string(v[1:len(v)-1])]; ok {
				d.Type = k
			} else {
				d.Type = name(v[1 : len(v)-1])
			}
			continue
		}
		v, ok := nullableString(m.value)
		if !ok {
			return false
		}
		*dst = v
	}
	return true
}

// nullableString decodes a string or null (as "") value; ok is false for
// any other value.
func nullableString(v []byte) (string, bool) {
	if string(v) == "null" {
		return "", true
	}
	return jsonguard.String(v)
}

// smallInt decodes an integer literal of up to 18 digits (what an int
// holds whatever its sign); ok is false for anything else (a fraction,
// an exponent, a longer number: left to the decoder).
func smallInt(v []byte) (int, bool) {
	i, neg := 0, false
	if len(v) > 0 && v[0] == '-' {
		i, neg = 1, true
	}
	if len(v)-i == 0 || len(v)-i > 18 {
		return 0, false
	}
	n := 0
	for _, c := range v[i:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// offsetOf is the offset in b of sub, a subslice of it.
func offsetOf(b, sub []byte) int { return cap(b) - cap(sub) }
