package jsonguard

import (
	"reflect"
	"testing"
)

// checkMemo runs Members.Check after it accepted (or rejected) prev and
// compares it with CheckMembers, error for error and call for call.
func checkMemo(t testing.TB, m *Members, prev, b []byte, maxDepth int) {
	_ = m.Check(prev, maxDepth, nil)
	var got, want []memberCall
	errGot := m.Check(b, maxDepth, func(n, v []byte) { got = append(got, memberCall{string(n), string(v)}) })
	errWant := CheckMembers(b, maxDepth, func(n, v []byte) { want = append(want, memberCall{string(n), string(v)}) })
	if !reflect.DeepEqual(errGot, errWant) || !reflect.DeepEqual(got, want) {
		t.Fatalf("after %q, Members.Check(%q) = %v %q; CheckMembers = %v %q", prev, b, errGot, got, errWant, want)
	}
}

// FuzzMembers: Members.Check of any input after any other is CheckMembers
// (the seeds run as a test).
func FuzzMembers(f *testing.F) {
	chunk := apiEvents[0]
	f.Add(chunk, chunk, uint8(0))
	for _, s := range []string{
		`{"id":"x","n":123,"c":[1]}`, `{"id":"x","n":1234,"c":[1]}`, `{"id":"x","n":123 ,"c":[1]}`, `{"id":"x","n":123}`,
		`{"id":"x","n":123,`, `{"id":"x","n":123,}`, `{"id":"x","n":true,"c":{"d":[]}}`, `{"id":"x","n":truex}`, `[1,2]`, `{"id":"x"}  x`,
	} {
		f.Add([]byte(`{"id":"x","n":123,"c":[1]}`), []byte(s), uint8(0))
		f.Add([]byte(s), []byte(`{"id":"x","n":123,"c":[1]}`), uint8(2))
	}
	// A member that matches only when the byte after it does (a number
	// that goes on, a literal that does not end), members matched after
	// one that changed, and a member moved to another index.
	for _, pair := range [][2]string{
		{`{"a":1,"n":12,"c":[1]}`, `{"a":2,"n":12,"c":[1]}`},
		{`{"a":1,"n":12,"c":[1]}`, `{"a":2,"n":123,"c":[1]}`},
		{`{"a":1,"n":12 ,"c":[1]}`, `{"a":2,"n":12 x"c":[1]}`},
		{`{"a":1,"t":true,"c":{"d":[]}}`, `{"a":22,"t":truex,"c":{"d":[]}}`},
		{`{"a":1,"c":{"d":[[[]]]}}`, `{"a":2,"c":{"d":[[[]]]}}`},
		{`{"a":1,"b":"x","c":"y"}`, `{"b":"x","a":1,"c":"y"}`},
		{`{"a":1,"b":"x"}`, `{"a":2,"b":"x"`},
		{`{"a":1,"b":"x"}`, `{"a":2,"b":"x"}}`},
	} {
		f.Add([]byte(pair[0]), []byte(pair[1]), uint8(0))
		f.Add([]byte(pair[0]), []byte(pair[1]), uint8(3))
	}
	f.Fuzz(func(t *testing.T, prev, b []byte, depth uint8) {
		var m Members
		checkMemo(t, &m, prev, b, int(depth)%4)
	})
}

// TestMembersEdits runs a chunk, then every prefix and one-byte change of
// it, through one Members, each compared with CheckMembers.
func TestMembersEdits(t *testing.T) {
	var m Members
	for _, ev := range apiEvents {
		for n := 0; n <= len(ev); n++ {
			checkMemo(t, &m, ev, ev[:n], 0)
		}
		for k := range ev {
			for _, c := range []byte{'"', '\\', ',', ':', '{', '}', ']', ' ', '1', 'x'} {
				b := append([]byte(nil), ev...)
				b[k] = c
				checkMemo(t, &m, ev, b, 0)
				checkMemo(t, &m, b, ev, 0)
			}
		}
	}
}
