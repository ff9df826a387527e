package anthropic

import (
	"bytes"

	"github.com/agentwire/agentwire/internal/apistream"
	"github.com/agentwire/agentwire/internal/jsonguard"
)

// The fast path. Nearly every event of a long stream is a
// content_block_delta of one of four shapes, a content_block_stop or a
// ping, and the API writes them with one member order:
//
//	{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"..."}}
//	{"type":"content_block_stop","index":3}
//	{"type": "ping"}
//
// the deltas and stops optionally padded with whitespace before the
// closing brace (real traffic does that). fastDelta, fastStop and
// fastPing recognise exactly these bytes, with
// the string validated as jsonguard.Check would and unescaped as the
// decoders do, so they agree with the typed decode wherever they answer;
// anything else (other orders, spacing, extra members, escapes in names)
// goes to the typed decode.

// deltaKind is a content block delta type the fast path knows.
type deltaKind uint8

const (
	deltaOther deltaKind = iota
	deltaText
	deltaInputJSON
	deltaThinking
	deltaSignature
)

const (
	fastDeltaPrefix = `{"type":"content_block_delta","index":`
	fastStopPrefix  = `{"type":"content_block_stop","index":`
	fastDeltaMid    = `,"delta":{"type":"`
)

// fastDeltaTails are the bytes after the delta's type opening quote up to
// the string value's opening quote, per kind.
var fastDeltaTails = [...]struct {
	kind deltaKind
	tail string
}{
	{deltaText, `text_delta","text":`},
	{deltaInputJSON, `input_json_delta","partial_json":`},
	{deltaThinking, `thinking_delta","thinking":`},
	{deltaSignature, `signature_delta","signature":`},
}

// fastIndex reads a non-negative JSON integer at b[i:] that fits an int32;
// end is the index after it, ok false when there is none.
func fastIndex(b []byte, i int) (n, end int, ok bool) {
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-start < 9 {
		n = n*10 + int(b[i]-'0')
		i++
	}
	if i == start || b[start] == '0' && i-start > 1 || i < len(b) && b[i] >= '0' && b[i] <= '9' {
		return 0, 0, false
	}
	return n, i, true
}

// closes reports whether b[i:] is a closing brace, then optional
// whitespace, then the end.
func closes(b []byte, i int) bool {
	i = jsonguard.SkipWS(b, i)
	return i < len(b) && b[i] == '}' && jsonguard.SkipWS(b, i+1) == len(b)
}

// fastStop recognises a content_block_stop and returns its index.
func fastStop(b []byte) (index int, ok bool) {
	if !bytes.HasPrefix(b, []byte(fastStopPrefix)) {
		return 0, false
	}
	n, i, ok := fastIndex(b, len(fastStopPrefix))
	if !ok || !closes(b, i) {
		return 0, false
	}
	return n, true
}

// fastPing recognises a ping as the API writes it (the typed decode reads
// it as a wireEvent of that type and nothing else).
func fastPing(b []byte) bool {
	return string(b) == `{"type": "ping"}` || string(b) == `{"type":"ping"}`
}

// fastScratch is fastDelta's state across events: the buffer a value is
// decoded into, and the last delta's bytes up to its string value's
// opening quote (included) with the index and kind read from them. Every delta of a
// block repeats those bytes, so a delta that starts with them is read
// from its string on; the bytes decide the index and kind alone, so this
// is the reading of the whole.
type fastScratch struct {
	buf    []byte
	prefix []byte
	index  int
	kind   deltaKind
}

// fastDelta recognises a content_block_delta of a known kind and returns
// its index, kind and the string value, validated and unescaped in one
// pass (jsonguard.AppendLiteral): a text delta's decoded into out's room,
// so that appending it to out copies nothing, any other's into s.buf.
func fastDelta(b []byte, s *fastScratch, out *apistream.Output) (index int, kind deltaKind, val []byte, ok bool) {
	var i int
	if len(s.prefix) > 0 && bytes.HasPrefix(b, s.prefix) {
		index, kind, i = s.index, s.kind, len(s.prefix)-1
	} else {
		if !bytes.HasPrefix(b, []byte(fastDeltaPrefix)) {
			return 0, 0, nil, false
		}
		index, i, ok = fastIndex(b, len(fastDeltaPrefix))
		if !ok || !bytes.HasPrefix(b[i:], []byte(fastDeltaMid)) {
			return 0, 0, nil, false
		}
		i += len(fastDeltaMid)
		for _, t := range fastDeltaTails {
			if bytes.HasPrefix(b[i:], []byte(t.tail)) {
				kind = t.kind
				i += len(t.tail)
				break
			}
		}
		if kind == deltaOther || i >= len(b) || b[i] != '"' {
			return 0, 0, nil, false
		}
		s.prefix, s.index, s.kind = append(s.prefix[:0], b[:i+1]...), index, kind
	}
	dst := s.buf[:0]
	if kind == deltaText {
		dst = out.Room(len(b) - i + jsonguard.LiteralSlack)
	}
	v, end, ok := jsonguard.AppendLiteral(dst, b, i)
	// The delta object closes right after the string, the event after
	// optional padding (none, nearly always: looked at first).
	if !ok || end >= len(b) || b[end] != '}' || !(end+2 == len(b) && b[end+1] == '}' || closes(b, end+1)) {
		return 0, 0, nil, false
	}
	if kind != deltaText {
		s.buf = v
	}
	return index, kind, v, true
}
