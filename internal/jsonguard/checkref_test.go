package jsonguard

import (
	"reflect"
	"strings"
	"testing"
)

// checkRef is check as it was before it became a goto loop (a state
// variable switched on per token), kept as the reference the rewrite must
// agree with error for error: the same first problem at the same offset,
// the same members reported to fn.
func checkRef(b []byte, maxDepth int, fn func(name, value []byte)) error {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	var small [StackDepth / 64]uint64
	stack := small[:]
	if maxDepth > StackDepth {
		stack = make([]uint64, (maxDepth+63)/64)
	}
	const (
		stValue     = iota // expecting a value
		stAfter            // after a complete value
		stKey              // expecting an object key
		stAfterOpen        // after '[' or '{': a closer or the first element
	)
	depth := 0
	st := stValue
	i := skipWS(b, 0)
	// With fn, the top-level object's current member: its name and where
	// its value starts.
	hook := fn != nil && i < len(b) && b[i] == '{'
	var name []byte
	vs := 0
	for {
		switch st {
		case stValue:
			if i >= len(b) {
				return unexpectedEnd(len(b))
			}
			if hook && depth == 1 {
				vs = i
			}
			switch c := b[i]; {
			case c == '{' || c == '[':
				depth++
				if depth > maxDepth {
					return tooDeep(i)
				}
				w, bit := uint(depth-1)/64, uint64(1)<<(uint(depth-1)%64)
				if c == '{' {
					stack[w] |= bit
				} else {
					stack[w] &^= bit
				}
				i = skipWS(b, i+1)
				st = stAfterOpen
				continue
			case c == '"':
				j, err := scanString(b, i)
				if err != nil {
					return err
				}
				i = j
			case c == '-' || ('0' <= c && c <= '9'):
				j, err := scanNumber(b, i)
				if err != nil {
					return err
				}
				i = j
			case c == 't':
				j, err := scanLiteral(b, i, "true")
				if err != nil {
					return err
				}
				i = j
			case c == 'f':
				j, err := scanLiteral(b, i, "false")
				if err != nil {
					return err
				}
				i = j
			case c == 'n':
				j, err := scanLiteral(b, i, "null")
				if err != nil {
					return err
				}
				i = j
			default:
				return invalidChar(b, i, "looking for beginning of value")
			}
			if hook && depth == 1 {
				fn(name, b[vs:i])
			}
			st = stAfter
		case stAfterOpen:
			if i >= len(b) {
				return unexpectedEnd(len(b))
			}
			if isObject(stack, depth) {
				if b[i] == '}' {
					depth--
					i++
					st = stAfter
					if hook && depth == 1 {
						fn(name, b[vs:i])
					}
				} else {
					st = stKey
				}
			} else {
				if b[i] == ']' {
					depth--
					i++
					st = stAfter
					if hook && depth == 1 {
						fn(name, b[vs:i])
					}
				} else {
					st = stValue
				}
			}
		case stKey:
			if i >= len(b) {
				return unexpectedEnd(len(b))
			}
			if b[i] != '"' {
				return invalidChar(b, i, "looking for beginning of object key string")
			}
			j, err := scanString(b, i)
			if err != nil {
				return err
			}
			if hook && depth == 1 {
				name = b[i:j]
			}
			i = skipWS(b, j)
			if i >= len(b) {
				return unexpectedEnd(len(b))
			}
			if b[i] != ':' {
				return invalidChar(b, i, "after object key")
			}
			i = skipWS(b, i+1)
			st = stValue
		case stAfter:
			i = skipWS(b, i)
			if depth == 0 {
				if i < len(b) {
					return invalidChar(b, i, "after top-level value")
				}
				return nil
			}
			if i >= len(b) {
				return unexpectedEnd(len(b))
			}
			c := b[i]
			if isObject(stack, depth) {
				switch c {
				case ',':
					i = skipWS(b, i+1)
					st = stKey
				case '}':
					depth--
					i++
					if hook && depth == 1 {
						fn(name, b[vs:i])
					}
				default:
					return invalidChar(b, i, "after object key:value pair")
				}
			} else {
				switch c {
				case ',':
					i = skipWS(b, i+1)
					st = stValue
				case ']':
					depth--
					i++
					if hook && depth == 1 {
						fn(name, b[vs:i])
					}
				default:
					return invalidChar(b, i, "after array element")
				}
			}
		}
	}
}

type memberCall struct{ name, value string }

func checkBoth(t testing.TB, b []byte, maxDepth int) {
	var got, want []memberCall
	errGot := check(b, maxDepth, func(n, v []byte) { got = append(got, memberCall{string(n), string(v)}) }, nil, nil)
	errWant := checkRef(b, maxDepth, func(n, v []byte) { want = append(want, memberCall{string(n), string(v)}) })
	if !reflect.DeepEqual(errGot, errWant) {
		t.Fatalf("check(%q, %d) = %#v, reference %#v", b, maxDepth, errGot, errWant)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("check(%q) members %q, reference %q", b, got, want)
	}
}

// literalsBoth holds AppendLiteral and StringAt to StringEnd and
// AppendString at each of the first 64 quotes of b: the same validity, the
// same end, the same decoded bytes, and dst's length kept on failure.
func literalsBoth(t testing.TB, b []byte) {
	for i, n := 0, 0; i < len(b) && n < 64; i++ {
		if b[i] != '"' {
			continue
		}
		n++
		dst := []byte("pre")
		got, end, ok := AppendLiteral(dst, b, i)
		wantEnd, _, wantOK := StringEnd(b, i)
		if ok != wantOK || ok && end != wantEnd {
			t.Fatalf("AppendLiteral(%q, %d) = %d, %v; StringEnd = %d, %v", b, i, end, ok, wantEnd, wantOK)
		}
		if !ok {
			if string(got) != "pre" {
				t.Fatalf("AppendLiteral(%q, %d) failed with dst %q", b, i, got)
			}
			if _, _, sOK := StringAt(b, i); sOK {
				t.Fatalf("StringAt(%q, %d) ok; StringEnd fails", b, i)
			}
			continue
		}
		want := AppendString([]byte("pre"), b[i:end])
		if string(got) != string(want) {
			t.Fatalf("AppendLiteral(%q, %d) = %q, AppendString %q", b, i, got, want)
		}
		if s, sEnd, sOK := StringAt(b, i); !sOK || sEnd != end || s != string(want[3:]) {
			t.Fatalf("StringAt(%q, %d) = %q, %d, %v; want %q, %d", b, i, s, sEnd, sOK, want[3:], end)
		}
	}
}

// FuzzCheckReference compares check with the reference on any input and a
// small depth limit (so that ErrTooDeep is reached too).
func FuzzCheckReference(f *testing.F) {
	for _, ev := range apiEvents {
		f.Add(ev, uint8(3))
	}
	for _, s := range []string{``, ` `, `{}`, `[]`, `{"a":}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{,}`, `"abc`, `"abcdefghij`,
		`{"a":[{"b":{}}],"c":"d"}`, `[[[[]]]]`, `{"a":tru}`, `{"a":-}`, `1 2`, `{"k\"ey":"v\u00e9"}`, "\"\x01\"", `{"a":{"b":[1,{"c":null}]},"d":true}`} {
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, b []byte, depth uint8) {
		checkBoth(t, b, 1+int(depth)%8)
		checkBoth(t, b, 0)
		// The same bytes after a string that fills most of the string
		// masks' window, so that b's strings start near its edge (at an
		// offset the fuzzer picks) and cross it: as an element, and as a
		// member's value at depth 1 (the member calls).
		pad := strings.Repeat("a", maskBlocks*64-8+int(depth)%80)
		checkBoth(t, []byte(`["`+pad+`",`+string(b)+`]`), 0)
		checkBoth(t, []byte(`{"p":"`+pad+`","v":`+string(b)+`}`), 0)
		literalsBoth(t, b)
		stringEndsBoth(t, b)
	})
}

// TestCheckReferenceTruncations runs the comparison over every prefix and
// every one-byte corruption of the API events.
func TestCheckReferenceTruncations(t *testing.T) {
	for _, ev := range apiEvents {
		for n := 0; n <= len(ev); n++ {
			checkBoth(t, ev[:n], 0)
			checkBoth(t, ev[:n], 3)
		}
		for k := range ev {
			for _, c := range []byte{'"', '\\', ',', ':', '{', '}', '[', ']', ' ', 'x', '1', 0x01} {
				b := append([]byte(nil), ev...)
				b[k] = c
				checkBoth(t, b, 0)
			}
		}
	}
}

// TestCheckDeepMembers holds check to the reference where the fast path
// gives up on valid input, at a container deeper than fastDepth after
// some members were reported, and the exact path must skip the calls
// (and records) already made: every prefix of such objects, and
// CheckIndex's entries against nestedRef on the whole ones.
func TestCheckDeepMembers(t *testing.T) {
	deep := strings.Repeat("[", fastDepth+1) + `{"x":1}` + strings.Repeat("]", fastDepth+1)
	for _, s := range []string{
		`{"a":1,"b":` + deep + `,"c":{"d":"e"}}`,
		`{"a":{"b":{"c":[1,{"d":2}]}},"e":` + deep + `}`,
		`{"a":"` + strings.Repeat("x", 3000) + `","b":` + deep + `,"c":true}`,
	} {
		for n := 0; n <= len(s); n++ {
			checkBoth(t, []byte(s[:n]), 0)
		}
		for levels := 1; levels <= MaxLevels; levels++ {
			got, err := indexed(t, []byte(s), 0, levels)
			if err != nil {
				t.Fatal(err)
			}
			if want := nestedRef([]byte(s), levels); !reflect.DeepEqual(got, want) {
				t.Fatalf("CheckIndex(%d) entries %+v, want %+v", levels, got, want)
			}
		}
	}
}
