package corpus

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/jsonguard"
)

// docEnc appends the canonical text of document values (encoding/json's
// indented output with two-space indentation and no HTML escaping) to
// buf, by hand for the values a long run is made of (events, transcript
// items, JSON values decoded into any) and through encoding/json for the
// rest (fallback), so that its bytes are encoding/json's for every value
// (TestDocEncMatchesEncodingJSON). With compact set, the text is
// encoding/json's without indentation (Marshal's), for JSON lines.
type docEnc struct {
	compact bool
	buf     []byte
	scratch bytes.Buffer
	enc     *json.Encoder
	itemAt  [2]int   // where the last event's item is in buf
	keys    []string // strMap's key stack
	members []member // anyMap's member stack
	// last is the payload of the last event that was a payload with a
	// Raw (a shallow copy: its maps by reference), written at depth
	// lastD, and lastText the event's text, when lastOK: a flood of one event (keep-alives, an unknown
	// event repeated, a notification) is one payload with one Raw again
	// and again (driver.EventSink: what a driver hands the sink is
	// read-only, and equal consecutive lines may share one Raw), whose
	// text is then copied, not written again.
	last     driver.StreamPayload
	lastD    int
	lastText []byte
	lastOK   bool
}

// memoMax is the longest payload text docEnc keeps for the next one.
const memoMax = 4 << 10

// samePayload reports whether a and b are one payload or shallow copies
// of one: every field the same bits (a string the same bytes at the same
// address, every map and pointer the same reference), which is one
// comparison of their memory; their text is then the same. Equal
// payloads that are not such copies are not the same (their text is
// written again). TestSamePayloadFields fails when a field changed on its
// own keeps them the same.
func samePayload(a, b *driver.StreamPayload) bool {
	const n = unsafe.Sizeof(driver.StreamPayload{})
	return *(*[n]byte)(unsafe.Pointer(a)) == *(*[n]byte)(unsafe.Pointer(b))
}

// member is one member of a map being written.
type member struct {
	k string
	v any
}

// fallback appends v as encoding/json indents it at depth d.
func (e *docEnc) fallback(v any, d int) error {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.scratch)
		e.enc.SetEscapeHTML(false)
	}
	e.scratch.Reset()
	if e.compact {
		e.enc.SetIndent("", "")
	} else {
		e.enc.SetIndent(strings.Repeat("  ", d), "  ")
	}
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	e.buf = append(e.buf, bytes.TrimSuffix(e.scratch.Bytes(), []byte("\n"))...)
	return nil
}

// obj tracks the members of one object being written at depth d.
type obj struct {
	e   *docEnc
	d   int
	n   int
	sep *seps
}

// seps is the text before a member's name in an object at one depth, the
// name's opening quote included: before the first member ("{", a newline
// and the indentation of the members, `"`) and before the others (","
// in place of "{"). compact has the same without newlines, indentation or the space. end closes an object
// that has members (a newline, the object's indentation, "}").
type seps struct{ first, next, end string }

var (
	compactSeps = seps{first: `{"`, next: `,"`, end: "}"}
	// indentSeps are the seps of the objects at depths below its length,
	// made once.
	indentSeps [16]seps
)

func init() {
	for d := range indentSeps {
		indentSeps[d] = newSeps(d)
	}
}

func (e *docEnc) open(d int) obj {
	o := obj{e: e, d: d}
	switch {
	case e.compact:
		o.sep = &compactSeps
	case d < len(indentSeps):
		o.sep = &indentSeps[d]
	default:
		sep := newSeps(d)
		o.sep = &sep
	}
	return o
}

// newSeps returns the seps of an indented object at depth d.
func newSeps(d int) seps {
	in := "\n" + strings.Repeat("  ", d+1) + `"`
	return seps{first: "{" + in, next: "," + in, end: "\n" + strings.Repeat("  ", d) + "}"}
}

// key starts a member named by one of the document's own member names,
// which need no escaping (plain ASCII, written as they are).
func (o *obj) key(k string) {
	e := o.e
	if o.n == 0 {
		e.buf = append(e.buf, o.sep.first...)
	} else {
		e.buf = append(e.buf, o.sep.next...)
	}
	o.n++
	e.buf = append(e.buf, k...)
	if e.compact {
		e.buf = append(e.buf, '"', ':')
	} else {
		e.buf = append(e.buf, '"', ':', ' ')
	}
}

// quotedKey starts a member named by any string (a JSON value's key).
func (o *obj) quotedKey(k string) {
	e := o.e
	sep := o.sep.next
	if o.n == 0 {
		sep = o.sep.first
	}
	o.n++
	// The separator's quote is the name's opening one.
	e.buf = appendQuotedAfter(e.buf, sep, k)
	if e.compact {
		e.buf = append(e.buf, ':')
	} else {
		e.buf = append(e.buf, ':', ' ')
	}
}

func (o *obj) str(k, v string) {
	o.key(k)
	o.e.buf = appendQuoted(o.e.buf, v)
}

func (o *obj) strOmit(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

func (o *obj) close() {
	e := o.e
	if o.n == 0 {
		e.buf = append(e.buf, '{', '}')
		return
	}
	e.buf = append(e.buf, o.sep.end...)
}

// indent is a newline and the indentation of the depths newline writes
// in one append.
const indent = "\n                                "

func (e *docEnc) newline(d int) {
	if e.compact {
		return
	}
	if n := 1 + 2*d; n <= len(indent) {
		e.buf = append(e.buf, indent[:n]...)
		return
	}
	e.buf = append(e.buf, indent...)
	for range d - (len(indent)-1)/2 {
		e.buf = append(e.buf, ' ', ' ')
	}
}

// event appends ev at depth d.
func (e *docEnc) event(ev *Event, d int) error {
	p := ev.Stream
	if p == nil || p.Raw == nil || ev.Item != nil || ev.RunEvent != nil {
		return e.eventText(ev, d)
	}
	// A payload with a Raw alone: the last one's text when it is the
	// same (see last).
	if e.lastOK && e.lastD == d && samePayload(p, &e.last) {
		e.buf = append(e.buf, e.lastText...)
		return nil
	}
	start := len(e.buf)
	if err := e.eventText(ev, d); err != nil {
		return err
	}
	e.lastOK = len(e.buf)-start <= memoMax
	if e.lastOK {
		e.last, e.lastD, e.lastText = *p, d, append(e.lastText[:0], e.buf[start:]...)
	} else {
		e.last = driver.StreamPayload{} // keeps nothing alive
	}
	return nil
}

// eventText appends ev at depth d (event's work).
func (e *docEnc) eventText(ev *Event, d int) error {
	o := e.open(d)
	var err error
	if ev.Stream != nil {
		o.key("stream")
		err = e.payload(ev.Stream, d+1)
	}
	if err == nil && ev.Item != nil {
		o.key("item")
		e.itemAt[0] = len(e.buf)
		err = e.item(ev.Item, d+1)
		e.itemAt[1] = len(e.buf)
	}
	if err == nil && ev.RunEvent != nil {
		o.key("run_event")
		err = e.fallback(ev.RunEvent, d+1)
	}
	o.close()
	return err
}

func (o *obj) uintOmit(k string, v uint64) {
	if v != 0 {
		o.key(k)
		o.e.buf = strconv.AppendUint(o.e.buf, v, 10)
	}
}

func (o *obj) mapOmit(k string, m map[string]any) error {
	if len(m) == 0 {
		return nil
	}
	o.key(k)
	return o.e.anyMap(m, o.d+1)
}

func (o *obj) fallbackOmit(k string, v any, isNil bool) error {
	if isNil {
		return nil
	}
	o.key(k)
	return o.e.fallback(v, o.d+1)
}

// payload appends p at depth d, with driver.StreamPayload's members in
// order.
func (e *docEnc) payload(p *driver.StreamPayload, d int) error {
	o := e.open(d)
	o.str("kind", string(p.Kind))
	o.uintOmit("sequence", p.Sequence)
	o.uintOmit("seq", p.Seq)
	o.strOmit("run_id", p.RunID)
	o.strOmit("thread_id", p.ThreadID)
	o.strOmit("turn_id", p.TurnID)
	o.strOmit("scope_id", p.ScopeID)
	o.strOmit("parent_scope_id", p.ParentScopeID)
	o.strOmit("parent_tool_call_id", p.ParentToolCallID)
	o.strOmit("message_id", p.MessageID)
	o.strOmit("tool_call_id", p.ToolCallID)
	o.strOmit("name", p.Name)
	o.strOmit("delta", p.Delta)
	if err := o.mapOmit("args", p.Args); err != nil {
		return err
	}
	if err := o.mapOmit("result", p.Result); err != nil {
		return err
	}
	// The rare members, through encoding/json, boxed only when one is
	// there (a time.Time in an interface is an allocation).
	if p.Usage != nil || p.Finish != nil || p.Error != nil || !p.Timestamp.IsZero() || p.HITLRequested != nil || p.HITLResolved != nil {
		for _, f := range []struct {
			k     string
			v     any
			isNil bool
		}{
			{"usage", p.Usage, p.Usage == nil},
			{"finish", p.Finish, p.Finish == nil},
			{"error", p.Error, p.Error == nil},
			{"timestamp", p.Timestamp, p.Timestamp.IsZero()},
			{"hitl_requested", p.HITLRequested, p.HITLRequested == nil},
			{"hitl_resolved", p.HITLResolved, p.HITLResolved == nil},
		} {
			if err := o.fallbackOmit(f.k, f.v, f.isNil); err != nil {
				return err
			}
		}
	}
	o.strOmit("role", string(p.Role))
	if err := o.mapOmit("raw", p.Raw); err != nil {
		return err
	}
	o.close()
	return nil
}

// item appends it at depth d, with driver.TranscriptItem's members in
// order.
func (e *docEnc) item(it *driver.TranscriptItem, d int) error {
	o := e.open(d)
	o.strOmit("scope_id", it.ScopeID)
	o.strOmit("parent_scope_id", it.ParentScopeID)
	o.strOmit("parent_tool_call_id", it.ParentToolCallID)
	o.str("kind", string(it.Kind))
	o.strOmit("text", it.Text)
	if it.Delta {
		o.key("delta")
		e.buf = append(e.buf, "true"...)
	}
	o.strOmit("tool_use_id", it.ToolUseID)
	o.strOmit("tool_name", it.ToolName)
	if it.Input != nil {
		o.key("input")
		if err := e.any(it.Input, d+1); err != nil {
			return err
		}
	}
	if it.IsError {
		o.key("is_error")
		e.buf = append(e.buf, "true"...)
	}
	o.strOmit("model", it.Model)
	o.strOmit("session_id", it.SessionID)
	if err := o.fallbackOmit("usage", it.Usage, it.Usage == nil); err != nil {
		return err
	}
	if err := o.fallbackOmit("cost_usd", it.CostUSD, it.CostUSD == nil); err != nil {
		return err
	}
	o.strOmit("subtype", it.Subtype)
	if len(it.Errors) > 0 {
		o.key("errors")
		e.strs(it.Errors, d+1)
	}
	if len(it.Metadata) > 0 {
		o.key("metadata")
		e.strMap(it.Metadata, d+1)
	}
	if err := o.mapOmit("data", it.Data); err != nil {
		return err
	}
	o.close()
	return nil
}

// any appends v, a value decoded from JSON or built by a parser, at depth
// d: the decoder's types by hand, any other through encoding/json.
func (e *docEnc) any(v any, d int) error {
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case string:
		e.buf = appendQuoted(e.buf, x)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return e.fallback(x, d) // encoding/json's error
		}
		e.buf = appendFloat(e.buf, x)
	case map[string]any:
		return e.anyMap(x, d)
	case json.RawMessage:
		// The bytes a parser passes through (app-server params): by hand,
		// as encoding/json compacts and indents them.
		return e.raw(x, d)
	// The types parsers build their own values of (a malformed line's Raw
	// has its line and offset as int and int64; items carry
	// map[string]string metadata): a stream of malformed lines would
	// otherwise go through encoding/json once per line.
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case map[string]string:
		e.strMap(x, d)
	case []string:
		e.strs(x, d)
	case []any:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		if len(x) == 0 {
			e.buf = append(e.buf, '[', ']')
			return nil
		}
		e.buf = append(e.buf, '[')
		for i, el := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.newline(d + 1)
			if err := e.any(el, d+1); err != nil {
				return err
			}
		}
		e.newline(d)
		e.buf = append(e.buf, ']')
	default:
		return e.fallback(v, d)
	}
	return nil
}

// anyMap appends m with its keys sorted, as encoding/json does.
func (e *docEnc) anyMap(m map[string]any, d int) error {
	if m == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	// The members go on a stack shared by the maps being written (a
	// nested map's above its parent's), so that no map allocates its own,
	// each with its value: one iteration of m, no lookup.
	if len(m) == 1 {
		// One member (a custom payload's {"type": ...}, many Args and
		// Results): nothing to sort, no stack.
		o := e.open(d)
		for k, v := range m {
			o.quotedKey(k)
			if err := e.any(v, d+1); err != nil {
				return err
			}
		}
		o.close()
		return nil
	}
	base := len(e.members)
	for k, v := range m {
		e.members = append(e.members, member{k, v})
	}
	sortMembers(e.members[base:])
	o := e.open(d)
	for i := base; i < base+len(m); i++ {
		mb := &e.members[i]
		o.quotedKey(mb.k)
		if err := e.any(mb.v, d+1); err != nil {
			clear(e.members[base:])
			e.members = e.members[:base]
			return err
		}
	}
	o.close()
	// Cleared, so that the stack keeps no value alive.
	clear(e.members[base:])
	e.members = e.members[:base]
	return nil
}

// sortMembers sorts ms by name: by insertion up to 12 members (a decoded
// object is mostly a few), where slices.SortFunc's calls of its
// comparison cost more than the sort, else by slices.SortFunc.
func sortMembers(ms []member) {
	if len(ms) > 12 {
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.k, b.k) })
		return
	}
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].k < ms[j-1].k; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

// raw appends b, JSON text passed through as it is, at depth d as
// encoding/json writes a json.RawMessage: nil is null, the whitespace
// outside strings is dropped (compacted), and the rest indented as the
// document is (none when compact); strings are copied as they are (their
// escapes and any invalid UTF-8 kept, as encoding/json keeps them). Text
// that is not one JSON value fails as encoding/json fails (fallback gives
// its error): jsonguard.Check accepts exactly what encoding/json does at
// its depth limit.
func (e *docEnc) raw(b json.RawMessage, d int) error {
	if b == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if jsonguard.Check(b, encodingJSONDepth) != nil {
		return e.fallback(b, d)
	}
	// open: after a '{' or '[', whose newline waits for its first member
	// (an empty object or array stays {} or []).
	depth, open := d, false
	for i := 0; i < len(b); {
		c := b[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		if open && c != '}' && c != ']' {
			open = false
			depth++
			e.newline(depth)
		}
		switch c {
		case '{', '[':
			open = true
			e.buf = append(e.buf, c)
			i++
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				e.newline(depth)
			}
			e.buf = append(e.buf, c)
			i++
		case ',':
			e.buf = append(e.buf, ',')
			e.newline(depth)
			i++
		case ':':
			if e.compact {
				e.buf = append(e.buf, ':')
			} else {
				e.buf = append(e.buf, ':', ' ')
			}
			i++
		case '"':
			end, _, _ := jsonguard.StringEnd(b, i) // valid: Check said so
			e.buf = append(e.buf, b[i:end]...)
			i = end
		default:
			// A number or a literal: up to the next delimiter.
			j := i + 1
			for j < len(b) && !rawDelim[b[j]] {
				j++
			}
			e.buf = append(e.buf, b[i:j]...)
			i = j
		}
	}
	return nil
}

// encodingJSONDepth is encoding/json's nesting limit.
const encodingJSONDepth = 10000

// rawDelim marks the bytes that end a number or a literal in valid JSON.
var rawDelim = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, ',': true, ':': true, ']': true, '}': true}

// strMap appends m with its keys sorted, as encoding/json does.
func (e *docEnc) strMap(m map[string]string, d int) {
	if m == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	base := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys[base:])
	o := e.open(d)
	for _, k := range e.keys[base:] {
		o.quotedKey(k)
		e.buf = appendQuoted(e.buf, m[k])
	}
	e.keys = e.keys[:base]
	o.close()
}

// strs appends s as encoding/json does (nil is null).
func (e *docEnc) strs(s []string, d int) {
	switch {
	case s == nil:
		e.buf = append(e.buf, "null"...)
		return
	case len(s) == 0:
		e.buf = append(e.buf, '[', ']')
		return
	}
	e.buf = append(e.buf, '[')
	for i, v := range s {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.newline(d + 1)
		e.buf = appendQuoted(e.buf, v)
	}
	e.newline(d)
	e.buf = append(e.buf, ']')
}

// appendFloat is encoding/json's text of a finite float64.
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendQuoted is encoding/json's text of s without HTML escaping:
// invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendQuoted(dst []byte, s string) []byte { return appendQuotedAfter(dst, `"`, s) }

// appendQuotedAfter appends before, which ends with the opening quote,
// and the rest of appendQuoted's text of s. A string of plain ASCII (the
// ids, kinds and most text of a run) is one copy.
func appendQuotedAfter(dst []byte, before, s string) []byte {
	b := stringBytes(s)
	if isPlain(b) {
		n := len(dst)
		dst = slices.Grow(dst, len(before)+len(s)+1)[:n+len(before)+len(s)+1]
		copy(dst[n:], before)
		copy(dst[n+len(before):], s)
		dst[len(dst)-1] = '"'
		return dst
	}
	dst = append(dst, before...)
	start := 0
	for i := jsonguard.PlainEnd(b, 0); i < len(s); i = jsonguard.PlainEnd(b, i) {
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// isPlain reports whether b is all plain ASCII inside a JSON string (no
// quote, backslash, control byte or byte >= 0x80): whether
// jsonguard.PlainEnd(b, 0) is len(b). A short string (the ids, kinds,
// names and keys of a run) is looked at in line, a word at a time, the
// last word overlapping the one before it, where PlainEnd calls its
// vector scan for any tail under eight bytes; a string under eight bytes
// byte by byte.
func isPlain(b []byte) bool {
	n := len(b)
	switch {
	case n < 8:
		for _, c := range b {
			if !plainByte[c] {
				return false
			}
		}
		return true
	case n > 64:
		return jsonguard.PlainEnd(b, 0) == n
	}
	var m uint64
	for i := 0; i+8 <= n; i += 8 {
		m |= plainMask(binary.LittleEndian.Uint64(b[i:]))
	}
	if n%8 != 0 {
		m |= plainMask(binary.LittleEndian.Uint64(b[n-8:]))
	}
	return m == 0
}

// plainMask marks, in the high bit of its byte, each byte of x that is
// not plain (see isPlain). A mark above the lowest can be false (a borrow
// of the byte below), but one is set exactly when a byte is not plain.
func plainMask(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	zero := func(v uint64) uint64 { return (v - ones) &^ v & highs } // a zero byte
	return zero(x^(ones*'"')) | zero(x^(ones*'\\')) | (x-ones*0x20|x)&highs
}

// plainByte marks the bytes isPlain accepts.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
