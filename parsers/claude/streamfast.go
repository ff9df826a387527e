package claude

import (
	"bytes"

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
// fastStream reads such a line in one pass that validates as it goes
// (jsonguard's strict readers, as fastAssistant does) and fills the
// streamLine as f.Decode(l) would, instead of the reflective decoder
// (which scans the line twice for its own flags before decoding it, and
// once more for every field with an UnmarshalJSON). It takes the lines of
// every event whose result it can give exactly: member names without
// escapes, each member the decoder reads at most once and of the type
// this reads, no name the decoder would match case insensitively, values
// nested at most lineDepth deep. On anything else it declines and the
// caller decodes the line, which gives the same result or the same error.
// FuzzStreamFast holds the two to the same result.

// The field names of streamLine, sseEvent, sseMessage, sseDelta and
// apiError as the decoder matches them (see foldsTo).
var (
	lineFields       = newFieldSet("type", "event", "parent_tool_use_id", "session_id")
	eventFields      = newFieldSet("type", "index", "message", "content_block", "delta", "usage", "error")
	sseMessageFields = newFieldSet("id", "model", "usage")
	deltaFields      = newFieldSet("type", "text", "thinking", "partial_json", "signature", "stop_reason")
	apiErrorFields   = newFieldSet("type", "message")
)

// streamRoom holds what the pointers of a streamLine that fastStream
// filled point to: nothing keeps them after Feed returns.
type streamRoom struct {
	message sseMessage
	block   contentBlock
	usage   apiUsage
	err     apiError
}

// fastStream fills l from the stream_event line d as f.Decode(l) would, for
// a line whose one "type" member is "stream_event"; ok is false (l then
// unspecified) when it declines.
func (p *Parser) fastStream(d []byte, l *streamLine) (ok bool) {
	if len(d) == 0 || d[0] != '{' {
		return false
	}
	*l = streamLine{}
	var seen uint
	end := jsonguard.StrictMembers(d, 0, func(name []byte, i int) int {
		switch string(name) {
		case `"type"`:
			if !once(&seen, 0) || !jsonguard.HasLiteral(d, i, `"stream_event"`) {
				return -1
			}
			l.Type = typeField{n: 1, v: "stream_event"}
			return i + len(`"stream_event"`)
		case `"event"`:
			if !once(&seen, 1) {
				return -1
			}
			if d[i] != '{' {
				return fastNull(d, i)
			}
			return p.fastEvent(d, i, &l.Event)
		case `"parent_tool_use_id"`:
			if !once(&seen, 2) {
				return -1
			}
			return fastString(d, i, &l.ParentToolUseID)
		case `"session_id"`:
			if !once(&seen, 3) {
				return -1
			}
			return fastID(d, i, &l.SessionID)
		}
		return fastSkip(d, name, i, lineFields)
	})
	return end >= 0 && jsonguard.SkipWS(d, end) == len(d) && seen&1 != 0
}

// fastEvent reads the event object at d[i] ('{') into ev; its pointers go
// to p.room.
func (p *Parser) fastEvent(d []byte, i int, ev *sseEvent) int {
	var seen uint
	return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		switch string(name) {
		case `"type"`:
			if !once(&seen, 0) {
				return -1
			}
			return fastName(d, i, &ev.Type)
		case `"index"`:
			if !once(&seen, 1) {
				return -1
			}
			return fastInt(d, i, &ev.Index)
		case `"message"`:
			if !once(&seen, 2) {
				return -1
			}
			if d[i] != '{' {
				return fastNull(d, i)
			}
			m := &p.room.message
			*m = sseMessage{}
			ev.Message = m
			return p.fastSSEMessage(d, i, m)
		case `"content_block"`:
			if !once(&seen, 3) {
				return -1
			}
			if d[i] != '{' {
				return fastNull(d, i)
			}
			b := &p.room.block
			*b = contentBlock{}
			ev.ContentBlock = b
			return fastBlock(d, i, b)
		case `"delta"`:
			if !once(&seen, 4) {
				return -1
			}
			if d[i] != '{' {
				return fastNull(d, i)
			}
			return fastDelta(d, i, &ev.Delta)
		case `"usage"`:
			if !once(&seen, 5) {
				return -1
			}
			if d[i] != '{' {
				return fastNull(d, i)
			}
			u := &p.room.usage
			ev.Usage = u
			return p.fastUsageMemo(d, i, u)
		case `"error"`:
			if !once(&seen, 6) {
				return -1
			}
			if d[i] != '{' {
				return fastNull(d, i)
			}
			e := &p.room.err
			*e = apiError{}
			ev.Error = e
			return fastAPIError(d, i, e)
		}
		return fastSkip(d, name, i, eventFields)
	})
}

// fastSSEMessage reads message_start's message object at d[i] ('{') into
// m; its usage goes to p.usage.
func (p *Parser) fastSSEMessage(d []byte, i int, m *sseMessage) int {
	var seen uint
	return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		switch string(name) {
		case `"id"`:
			if !once(&seen, 0) {
				return -1
			}
			return fastString(d, i, &m.ID)
		case `"model"`:
			if !once(&seen, 1) {
				return -1
			}
			return fastString(d, i, &m.Model)
		case `"usage"`:
			if !once(&seen, 2) {
				return -1
			}
			if d[i] != '{' {
				return fastNull(d, i)
			}
			u := &p.usage
			m.Usage = u
			return p.fastUsageMemo(d, i, u)
		}
		return fastSkip(d, name, i, sseMessageFields)
	})
}

// fastDelta reads the delta object at d[i] ('{') into dl.
func fastDelta(d []byte, i int, dl *sseDelta) int {
	var seen uint
	return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		var dst *string
		var bit uint
		switch string(name) {
		case `"type"`:
			if !once(&seen, 0) {
				return -1
			}
			return fastName(d, i, &dl.Type)
		case `"text"`:
			dst, bit = &dl.Text, 1
		case `"thinking"`:
			dst, bit = &dl.Thinking, 2
		case `"partial_json"`:
			dst, bit = &dl.PartialJSON, 3
		case `"signature"`:
			dst, bit = &dl.Signature, 4
		case `"stop_reason"`:
			dst, bit = &dl.StopReason, 5
		default:
			return fastSkip(d, name, i, deltaFields)
		}
		if !once(&seen, bit) {
			return -1
		}
		return fastString(d, i, dst)
	})
}

// fastAPIError reads an error event's error object at d[i] ('{') into e.
func fastAPIError(d []byte, i int, e *apiError) int {
	var seen uint
	return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		var dst *string
		var bit uint
		switch string(name) {
		case `"type"`:
			dst, bit = &e.Type, 0
		case `"message"`:
			dst, bit = &e.Message, 1
		default:
			return fastSkip(d, name, i, apiErrorFields)
		}
		if !once(&seen, bit) {
			return -1
		}
		return fastString(d, i, dst)
	})
}

// fastName reads a protocol name into *n as name.UnmarshalJSON does (a
// known name interned, without allocating), or null (leaving it).
func fastName(d []byte, i int, n *name) int {
	if d[i] != '"' {
		return fastNull(d, i)
	}
	end, escaped, ok := jsonguard.StringEnd(d, i)
	if !ok {
		return -1
	}
	if !escaped {
		if k, ok := knownNames[string(d[i+1:end-1])]; ok {
			*n = k
			return end
		}
	}
	s, _, _ := jsonguard.StringAt(d, i)
	*n = name(s)
	return end
}

// fastUsageMemo reads the usage object at d[i] ('{') into u, or takes the
// reading of the last one when it has the same bytes, or of its members
// after the first few when they are (p.usageMemo, fastUsage).
func (p *Parser) fastUsageMemo(d []byte, i int, u *apiUsage) int {
	memo := &p.usageMemo
	if len(memo.b) > 0 && bytes.HasPrefix(d[i:], memo.b) {
		*u = memo.u
		return i + len(memo.b)
	}
	*u = apiUsage{}
	rec := &p.usageRec
	rec.n = 0
	end := fastUsage(d, i, u, memo, rec)
	if end >= 0 && rec.n >= 0 {
		// Read whole: the memo is this object now (an object read partly
		// from the memo leaves it as it is).
		memo.n, memo.ends, memo.seen, memo.all = rec.n, rec.ends, rec.seen, rec.all
		memo.b, memo.u = append(memo.b[:0], d[i:end]...), *u
	}
	return end
}
