package jsonguard

import (
	"errors"
	"strconv"
	"sync"
	"unicode/utf8"
)

// decodeAny decodes b, which [Check] has accepted, into the Go values
// encoding/json gives an interface{}: map[string]any, []any, string,
// float64, bool and nil. Maps and slices are allocated at their exact size:
// segmentio's decoder makes every object a map with room for 64 members
// (v0.5.4, json/decode.go), about 5 KB for `{"type":"x"}`, which is what a
// parser keeps as a payload's Raw for every line of a long stream.
//
// Semantics are encoding/json's: the last of duplicate names wins, invalid
// UTF-8 and lone surrogates become U+FFFD, numbers are float64. A number
// float64 cannot hold (1e999) returns errNumberRange; Unmarshal then lets
// segmentio produce its usual error.
func decodeAny(b []byte) (any, error) {
	d := decoders.Get().(*valueDecoder)
	d.b = b
	v, _, err := d.value(SkipWS(b, 0))
	// Empty after a value, the stacks hold what was pushed before an
	// error (a number out of range).
	clear(d.members)
	clear(d.elems)
	d.b, d.members, d.elems = nil, d.members[:0], d.elems[:0]
	if cap(d.buf) <= maxPooledBuf {
		decoders.Put(d)
	}
	return v, err
}

// decoders keeps valueDecoders, whose stacks are empty (and cleared) after
// a value: a decode reuses their storage instead of growing new ones. One
// whose string buffer grew past maxPooledBuf (a long string with escapes)
// is dropped rather than kept.
var decoders = sync.Pool{New: func() any { return new(valueDecoder) }}

const maxPooledBuf = 64 << 10

var errNumberRange = errors.New("jsonguard: number out of float64 range")

// DecodeChecked decodes b, one JSON value that [Check] (or a strict reader
// such as [StrictValue]) has already accepted, into what [Unmarshal] gives
// a nil interface{}, without validating it again: for a value a parser
// validated with its event and keeps as Raw, where Unmarshal would check
// its depth and syntax twice more. ok is false for a number float64
// cannot hold (1e999); Unmarshal then gives the error. b must have been
// accepted: on other input the result is unspecified.
func DecodeChecked(b []byte) (v any, ok bool) {
	v, err := decodeAny(b)
	return v, err == nil
}

// valueDecoder holds the members and elements of the objects and arrays
// being decoded, one stack shared by every nesting level, so that each
// map and slice is made once at its final size.
type valueDecoder struct {
	b       []byte
	members []member
	elems   []any
	buf     []byte
	names   [nameSlots]string // member names decoded before, by nameSlot
}

// nameSlots is the size of a valueDecoder's cache of member names; a name
// longer than maxCachedName is not cached.
const (
	nameSlots     = 64
	maxCachedName = 32
)

type member struct {
	name string
	val  any
}

// value decodes the value at b[i] (not whitespace) and returns it with the
// index just past it. The input is valid JSON nested within the depth
// Check allowed, so the recursion is bounded.
func (d *valueDecoder) value(i int) (any, int, error) {
	b := d.b
	switch c := b[i]; c {
	case '{':
		mark := len(d.members)
		i = SkipWS(b, i+1)
		if b[i] == '}' {
			return map[string]any{}, i + 1, nil
		}
		for {
			name, j := d.name(i)
			j = SkipWS(b, j) + 1 // the colon
			v, k, err := d.value(SkipWS(b, j))
			if err != nil {
				return nil, 0, err
			}
			d.members = append(d.members, member{name, v})
			i = SkipWS(b, k)
			if b[i] == '}' {
				break
			}
			i = SkipWS(b, i+1) // the comma
		}
		ms := d.members[mark:]
		m := make(map[string]any, len(ms))
		for _, kv := range ms {
			m[kv.name] = kv.val
		}
		clear(ms)
		d.members = d.members[:mark]
		return m, i + 1, nil
	case '[':
		mark := len(d.elems)
		i = SkipWS(b, i+1)
		if b[i] == ']' {
			return []any{}, i + 1, nil
		}
		for {
			v, k, err := d.value(i)
			if err != nil {
				return nil, 0, err
			}
			d.elems = append(d.elems, v)
			i = SkipWS(b, k)
			if b[i] == ']' {
				break
			}
			i = SkipWS(b, i+1)
		}
		es := d.elems[mark:]
		s := make([]any, len(es))
		copy(s, es)
		clear(es)
		d.elems = d.elems[:mark]
		return s, i + 1, nil
	case '"':
		s, j := d.str(i)
		return s, j, nil
	case 't':
		return true, i + 4, nil
	case 'f':
		return false, i + 5, nil
	case 'n':
		return nil, i + 4, nil
	}
	return d.number(i)
}

// name decodes the member name at b[i] as str does, reusing the string of
// an equal name decoded before (by this decoder, in this value or an
// earlier one) instead of allocating another: the objects of one stream
// repeat a few names (type, text, path, ...) in every value, as
// encoding/json/v2 finds too (its object name cache). A name of plain
// ASCII without escapes is found in one scan; each cache slot holds the
// last name of its hash (length, first and last byte), so a miss costs
// the allocation it saves on a hit.
func (d *valueDecoder) name(i int) (string, int) {
	b := d.b
	j := plainEnd(b, i+1)
	if j >= len(b) || b[j] != '"' || j-i-1 > maxCachedName || j == i+1 {
		return d.str(i)
	}
	raw := b[i+1 : j]
	h := (uint(len(raw))*0x9e + uint(raw[0])*0x3b + uint(raw[len(raw)-1])) % nameSlots
	if s := d.names[h]; s == string(raw) {
		return s, j + 1
	}
	s := string(raw)
	d.names[h] = s
	return s, j + 1
}

// str decodes the string literal at b[i]. A literal of plain ASCII
// without escapes (most) takes one scan, eight bytes at a time (Check has
// validated it: only its end is looked for); any other is scanned to its
// end and checked for valid UTF-8.
func (d *valueDecoder) str(i int) (string, int) {
	if j := plainEnd(d.b, i+1); j < len(d.b) && d.b[j] == '"' {
		return string(d.b[i+1 : j]), j + 1
	}
	end, escaped, _ := StringEnd(d.b, i)
	raw := d.b[i+1 : end-1]
	if !escaped && utf8.Valid(raw) {
		return string(raw), end
	}
	d.buf = appendUnescape(d.buf[:0], raw)
	return string(d.buf), end
}

// number decodes the number at b[i] as encoding/json does for an
// interface{}: strconv.ParseFloat. Integers of up to 15 digits are exact in
// float64 and are converted without the string ParseFloat needs.
func (d *valueDecoder) number(i int) (any, int, error) {
	b := d.b
	j := i
	neg := b[j] == '-'
	if neg {
		j++
	}
	var n int64
	k := j
	for k < len(b) && '0' <= b[k] && b[k] <= '9' {
		n = n*10 + int64(b[k]-'0')
		k++
	}
	if k == len(b) || (b[k] != '.' && b[k] != 'e' && b[k] != 'E') {
		if k-j <= 15 {
			f := float64(n)
			if neg {
				f = -f
			}
			return f, k, nil
		}
	}
	end := k
	for end < len(b) && isNumByte(b[end]) {
		end++
	}
	f, err := strconv.ParseFloat(string(b[i:end]), 64)
	if err != nil {
		return nil, 0, errNumberRange
	}
	return f, end, nil
}

func isNumByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// NumbersFit reports whether every number in b, a value [Check] has
// accepted, fits a float64: the one way such a value can still fail to
// decode into an interface{} (1e999). It lets a parser that does not need
// the decoded value hold a line to the same rule as one that decodes it,
// without building it. Numbers without an exponent and of at most 308
// digits always fit; only the others are parsed.
func NumbersFit(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			end, _, ok := StringEnd(b, i)
			if !ok {
				return true // not Check-valid: unspecified
			}
			i = end
		case c == '-' || '0' <= c && c <= '9':
			j, exp := i, false
			for j < len(b) && isNumByte(b[j]) {
				exp = exp || b[j] == 'e' || b[j] == 'E'
				j++
			}
			if (exp || j-i > 308) && !fits(b[i:j]) {
				return false
			}
			i = j
		default:
			i++
		}
	}
	return true
}

func fits(num []byte) bool {
	_, err := strconv.ParseFloat(string(num), 64)
	return err == nil
}

// Any is a JSON value decoded, as part of the struct that holds it, into
// the Go values [Unmarshal] gives a nil interface{}: map[string]any at its
// exact size, []any, string, float64, bool or nil. A field of type Any
// costs no second decode of its bytes, as a json.RawMessage decoded
// afterwards does, and no copy of them.
//
// A value that cannot be decoded (a number float64 cannot hold, 1e999)
// leaves V nil and does not fail the enclosing decode; neither does null.
type Any struct{ V any }

// UnmarshalJSON sets a.V from b, one complete JSON value as the decoder
// hands it over. It never returns an error.
func (a *Any) UnmarshalJSON(b []byte) error {
	a.V = nil
	if Check(b, 0) != nil {
		return nil
	}
	if v, err := decodeAny(b); err == nil {
		a.V = v
	}
	return nil
}
