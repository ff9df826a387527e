package openai

import (
	"bytes"
	"github.com/agentwire/agentwire/internal/apistream"
	"strconv"
	"unicode/utf8"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// The events are read by walking their JSON in place: every frame's data is
// first validated by jsonguard.Check (syntax and the depth limit), then the
// members the parser needs are picked out of the validated bytes and
// everything else is skipped. One walk is the only semantics: there is no
// reflective decoder beside it. Its rules, which agree with decoding into a
// map[string]any:
//
//   - member names are compared exactly (case-sensitive) after unescaping;
//   - with duplicate names the last one wins (each reader keeps overwriting);
//   - a member whose value has the wrong type (a number where a string is
//     expected) counts as absent, never as an error: providers put null,
//     numbers or objects where OpenAI puts strings;
//   - strings are unescaped as encoding/json does (invalid UTF-8 and lone
//     surrogates become U+FFFD).
//
// Whole values kept as Raw (custom kinds, provider-executed items) are
// decoded into map[string]any by jsonguard.Unmarshal.

// ws returns the index of the first byte at or after i that is not JSON
// whitespace; providers write compact JSON, so the first byte usually is.
func ws(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	return jsonguard.SkipWS(b, i)
}

// obj iterates over the members of a JSON object that Check accepted.
// The end of an object or array value is found only when it is asked for
// (v), or when next moves past a value the caller did not enter: a member
// the caller walks into with enter or elems is then scanned once, not once
// per level of nesting.
type obj struct {
	b    []byte
	i    int
	key  []byte // the current member name, unescaped
	vs   int    // where the current value starts
	val  []byte // the current value: exact for scalars; b[vs:] while lazy
	lazy bool   // val is an object or array whose end is not known yet
	end  int    // after the closing brace, once next returned false
	kbuf []byte
}

// object returns an iterator over v's members; ok is false when v is not
// an object. v may run past the object's end.
func object(v []byte) (obj, bool) {
	i := ws(v, 0)
	if i >= len(v) || v[i] != '{' {
		return obj{end: len(v)}, false
	}
	return obj{b: v, i: i + 1}, true
}

// v returns the current member's value, exactly its bytes.
func (o *obj) v() []byte {
	if o.lazy {
		e := jsonguard.ValueEnd(o.b, o.vs)
		o.val, o.i, o.lazy = o.b[o.vs:e], e, false
	}
	return o.val
}

// enter returns an iterator over the current value when it is an object;
// once the caller has iterated it to its end, o goes on after it.
func (o *obj) enter() (obj, bool) {
	if !o.lazy {
		return object(o.val)
	}
	return object(o.b[o.vs:])
}

// leave tells o that the iterator enter returned has reached its end.
func (o *obj) leave(child *obj) {
	if o.lazy && child.end > 0 {
		o.i, o.lazy = o.vs+child.end, false
	}
}

// next advances to the next member; it returns false after the last one.
func (o *obj) next() bool {
	if o.lazy {
		o.i, o.lazy = jsonguard.ValueEnd(o.b, o.vs), false
	}
	b := o.b
	i := ws(b, o.i)
	if i < len(b) && b[i] == ',' {
		i = ws(b, i+1)
	}
	if i >= len(b) || b[i] != '"' {
		o.i, o.end = len(b), len(b)
		if i < len(b) && b[i] == '}' {
			o.end = i + 1
		}
		return false
	}
	// A member name in validated input ends at the first quote unless it
	// holds an escape or a byte >= 0x80; names are short and ASCII, so a
	// byte loop beats a vector scan. Any other name is decoded as the
	// decoders do (escapes resolved, invalid UTF-8 replaced by U+FFFD).
	end, decode := i+1, false
	for end < len(b) && b[end] != '"' && b[end] != '\\' && b[end] < 0x80 {
		end++
	}
	if end < len(b) && b[end] == '"' {
		end++
	} else {
		var escaped, ok bool
		if end, escaped, ok = jsonguard.StringEnd(b, i); !ok {
			o.i, o.end = len(b), len(b)
			return false
		}
		decode = escaped || !utf8.Valid(b[i+1:end-1])
	}
	o.key = b[i+1 : end-1]
	if decode {
		o.kbuf = jsonguard.AppendString(o.kbuf[:0], b[i:end])
		o.key = o.kbuf
	}
	i = ws(b, end)
	if i >= len(b) || b[i] != ':' {
		o.i, o.end = len(b), len(b)
		return false
	}
	i = ws(b, i+1)
	if i >= len(b) {
		o.i, o.end = len(b), len(b)
		return false
	}
	o.vs = i
	switch b[i] {
	case '{', '[':
		o.val, o.lazy = b[i:], true
		return true
	case '"':
		// Most values are short strings: a byte loop to the closing quote,
		// the general scan only for a string with an escape.
		e := i + 1
		for e < len(b) && b[e] != '"' && b[e] != '\\' {
			e++
		}
		if e < len(b) && b[e] == '"' {
			o.val, o.i = b[i:e+1], e+1
			return true
		}
	}
	e := jsonguard.ValueEnd(b, i)
	o.val = b[i:e]
	o.i = e
	return true
}

// memberKey returns a member name as CheckMembers hands it over (the
// string literal, quotes included) unescaped: the bytes inside the quotes
// when it holds no escape, else decoded into the Parser's kbuf (valid
// until the next memberKey). Names are short: a byte loop finds a
// backslash sooner than a call to bytes.IndexByte.
func (p *Parser) memberKey(name []byte) []byte {
	key := name[1 : len(name)-1]
	for _, c := range key {
		if c == '\\' {
			p.kbuf = jsonguard.AppendString(p.kbuf[:0], name)
			return p.kbuf
		}
	}
	return key
}

// each calls fn for every element of the array v and returns the index
// just past it; it does nothing (and returns 0) when v is not an array. v
// may run past the array's end.
func each(v []byte, fn func(el []byte)) int {
	i := ws(v, 0)
	if i >= len(v) || v[i] != '[' {
		return 0
	}
	i++
	for {
		i = ws(v, i)
		if i < len(v) && v[i] == ',' {
			i = ws(v, i+1)
		}
		if i >= len(v) {
			return len(v)
		}
		if v[i] == ']' {
			return i + 1
		}
		e := jsonguard.ValueEnd(v, i)
		fn(v[i:e])
		i = e
	}
}

// isNull reports whether v is the literal null (or absent).
func isNull(v []byte) bool { return len(v) == 0 || v[0] == 'n' }

// isString reports whether v is a string literal.
func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

// strBytes returns the decoded contents of the string literal v, aliasing
// v when it has no escape and is valid UTF-8, else decoded into *buf. ok is
// false when v is not a string.
func strBytes(v []byte, buf *[]byte) (s []byte, ok bool) {
	if !isString(v) || len(v) < 2 {
		return nil, false
	}
	in := v[1 : len(v)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return in, true
	}
	*buf = jsonguard.AppendString((*buf)[:0], v)
	return *buf, true
}

// str returns the string literal v as a Go string, "" when v is not one
// (jsonguard.String: decoded once, into one allocation).
func str(v []byte) string {
	s, _ := jsonguard.String(v)
	return s
}

// num returns the number v as an int; fractions are truncated and values
// beyond the int range clamp. ok is false when v is not a number.
func num(v []byte) (int, bool) {
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false
	}
	if len(v) <= 18 {
		n, i := 0, 0
		if v[0] == '-' {
			i = 1
		}
		for ; i < len(v) && '0' <= v[i] && v[i] <= '9'; i++ {
			n = n*10 + int(v[i]-'0')
		}
		if i == len(v) && (v[0] != '-' || len(v) > 1) {
			if v[0] == '-' {
				n = -n
			}
			return n, true
		}
	}
	f, err := strconv.ParseFloat(string(v), 64)
	const maxInt = int(^uint(0) >> 1)
	switch {
	case f >= float64(maxInt):
		return maxInt, true
	case f <= -float64(maxInt):
		return -maxInt - 1, true
	case err != nil:
		return 0, false
	}
	return int(f), true
}

// scalar renders a string or number value as text (error codes arrive as
// either: "rate_limit_exceeded", 429); "" for anything else.
func scalar(v []byte) string {
	if isString(v) {
		return str(v)
	}
	if _, ok := num(v); ok {
		return string(v)
	}
	return ""
}

// rawMap decodes an object into a map for a payload's Raw; nil when v is
// not an object.
func rawMap(v []byte) map[string]any { return apistream.ObjectMap(v) }

// rawValue decodes any JSON value (for transcript Input and Data).
func rawValue(v []byte) any {
	if len(v) == 0 {
		return nil
	}
	var x any
	if jsonguard.Unmarshal(v, &x, 0) != nil {
		return nil
	}
	return x
}

// arr iterates over the elements of a JSON array that Check accepted. An
// element the caller walks to its end (and reports with consumed) is not
// scanned again.
type arr struct {
	b       []byte
	i       int
	cur     int  // where the current element starts
	pending bool // the current element's end is not known yet
	end     int  // after the closing bracket, once next returned false
}

// array returns an iterator over v's elements; ok is false when v is not
// an array. v may run past the array's end.
func array(v []byte) (arr, bool) {
	i := ws(v, 0)
	if i >= len(v) || v[i] != '[' {
		return arr{}, false
	}
	return arr{b: v, i: i + 1}, true
}

// next returns the next element, which may run past its end; ok is false
// after the last one.
func (a *arr) next() (el []byte, ok bool) {
	if a.pending {
		a.i, a.pending = jsonguard.ValueEnd(a.b, a.cur), false
	}
	b := a.b
	i := ws(b, a.i)
	if i < len(b) && b[i] == ',' {
		i = ws(b, i+1)
	}
	if i >= len(b) || b[i] == ']' {
		a.i, a.end = len(b), len(b)
		if i < len(b) {
			a.end = i + 1
		}
		return nil, false
	}
	a.cur, a.pending = i, true
	return b[i:], true
}

// consumed reports that the current element ended n bytes after its start.
func (a *arr) consumed(n int) {
	if a.pending && n > 0 {
		a.i, a.pending = a.cur+n, false
	}
}

// enterArray returns an iterator over the current value when it is an
// array; leaveArray, once it has reached its end, lets o go on after it.
func (o *obj) enterArray() (arr, bool) {
	if !o.lazy {
		return array(o.val)
	}
	return array(o.b[o.vs:])
}

// leaveArray tells o that the iterator enterArray returned has reached its
// end.
func (o *obj) leaveArray(a *arr) {
	if o.lazy && a.end > 0 {
		o.i, o.lazy = o.vs+a.end, false
	}
}
