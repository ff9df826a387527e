package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/google/go-cmp/cmp"
)

// oracle classifies a line with encoding/json into a map: an independent
// reading of the rules of the package doc.
func oracle(data []byte, requireVersion bool) Class {
	if len(bytes.TrimLeft(data, " \t\r")) == 0 {
		return None
	}
	if !json.Valid(data) {
		return Invalid
	}
	t := bytes.TrimLeft(data, " \t\r\n")
	if t[0] == '[' {
		var a []json.RawMessage
		if json.Unmarshal(data, &a) != nil || len(a) == 0 {
			return Invalid
		}
		return Batch
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return Invalid
	}
	first := func(k string) byte {
		v, ok := m[k]
		if !ok {
			return 0
		}
		return v[0]
	}
	if v, ok := m["jsonrpc"]; ok {
		if string(v) != `"2.0"` {
			return Invalid
		}
	} else if requireVersion {
		return Invalid
	}
	_, hasID := m["id"]
	if hasID {
		switch first("id") {
		case '{', '[', 't', 'f':
			return Invalid
		}
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if _, ok := m["method"]; ok {
		if first("method") != '"' || hasResult || hasError {
			return Invalid
		}
		switch first("params") {
		case 0, '{', '[', 'n':
		default:
			return Invalid
		}
		if hasID {
			return Request
		}
		return Notification
	}
	switch {
	case !hasID, hasResult == hasError:
		return Invalid
	case hasResult:
		return Response
	case first("error") != '{':
		return Invalid
	}
	return ErrorResponse
}

func FuzzClassify(f *testing.F) {
	f.Add([]byte(sample), uint8(3), false)
	f.Add([]byte("{\"id\":0,\"method\":\"a\",\"params\":{}}\n{\"id\":null,\"result\":1}\n"), uint8(1), true)
	f.Add([]byte("[{\"method\":\"a\"},{\"id\":-1,\"error\":{}}]\n{\"jsonrpc\":\"2.0\",\"id\":1e400,\"result\":[]}\n"), uint8(5), false)
	f.Add([]byte("{\"m\\u0065thod\":\"x\",\"method\":1}\r\n{\"id\":\"\\\"\",\"result\":\"\\\\\"}"), uint8(2), false)
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8, requireVersion bool) {
		opts := Options{RequireVersion: requireVersion, MaxLineSize: 256}
		want, tee, err := readAll(in, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		if tee != string(in) {
			t.Fatal("tee differs from input")
		}
		// Raw spans and skipped spans tile the input.
		var off int64
		for _, it := range want {
			if it.ErrLen > 0 {
				if it.ErrOffset != off {
					t.Fatalf("skipped span at %d, expected %d", it.ErrOffset, off)
				}
				off += it.ErrLen
				continue
			}
			if it.Offset != off || !strings.HasPrefix(string(in[off:]), it.Raw) {
				t.Fatalf("frame at %d does not continue at %d", it.Offset, off)
			}
			off += int64(len(it.Raw))
			data := strings.TrimSuffix(strings.TrimSuffix(it.Raw, "\n"), "\r")
			if o := oracle([]byte(data), requireVersion); o != it.Class {
				t.Fatalf("line %q: class %v, oracle says %v", data, it.Class, o)
			}
			if (it.Class == Invalid) != (it.Err != "") {
				t.Fatalf("error and class disagree: %+v", it)
			}
		}
		if off != int64(len(in)) {
			t.Fatalf("accounted %d of %d bytes", off, len(in))
		}
		sizes := []int{int(chunk%17) + 1, 1, int(chunk)}
		got, _, err := pushAll(in, sizes, opts)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("decoder differs (-whole +chunked):\n%s", d)
		}
		got, _, _ = readAll(in, sizes, opts)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("reader differs (-whole +chunked):\n%s", d)
		}
		// Batch elements are classified like lines.
		r := NewReader(bytes.NewReader(in), opts)
		for f := range r.All() {
			for e, err := range f.Batch() {
				if o := oracle(e.Raw, requireVersion); o != e.Class && !(o == Batch && e.Class == Invalid) {
					t.Fatalf("element %q: %v, oracle %v", e.Raw, e.Class, o)
				}
				if (err != nil) != (e.Class == Invalid) {
					t.Fatalf("element error %v class %v", err, e.Class)
				}
			}
			// Members of a classified object are its exact members.
			for _, obj := range [][]byte{f.Data, f.Params, f.Result, f.Error} {
				var m map[string]json.RawMessage
				if len(obj) == 0 || obj[0] != '{' || json.Unmarshal(obj, &m) != nil {
					Members(obj, func(_, _ []byte) bool { return true })
					continue
				}
				n := 0
				Members(obj, func(name, value []byte) bool {
					n++
					if !json.Valid(value) {
						t.Fatalf("member %q value %q is not JSON", name, value)
					}
					if _, ok := String(value); ok != (value[0] == '"') {
						t.Fatalf("String(%q) ok=%v", value, ok)
					}
					return true
				})
				if n < len(m) {
					t.Fatalf("Members saw %d of %d members of %q", n, len(m), obj)
				}
			}
			// Frame.Members, from the index, is Members on every object
			// reachable from the message's members.
			if f.Class != Invalid {
				sameMembers(t, f, f.Params, 0)
				sameMembers(t, f, f.Result, 0)
				sameMembers(t, f, f.Error, 0)
			}
			if f.Class == Request || f.Class == Response || f.Class == ErrorResponse {
				if _, err := ParseID(f.ID.Raw()); err != nil {
					t.Fatalf("id %q does not parse back: %v", f.ID.Raw(), err)
				}
			}
		}
	})
}

// sameMembers fails t unless f.Members(obj) makes Members(obj)'s calls,
// and recurses into the object values (and the objects in array values)
// down to depth 6: past the index, where Frame.Members walks.
func sameMembers(t *testing.T, f Frame, obj []byte, depth int) {
	t.Helper()
	if len(obj) == 0 || depth > 6 {
		return
	}
	var want, got []string
	Members(obj, func(name, value []byte) bool { want = append(want, string(name)+"="+string(value)); return true })
	f.Members(obj, func(name, value []byte) bool { got = append(got, string(name)+"="+string(value)); return true })
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Frame.Members(%q) differs from Members (-want +got):\n%s", obj, d)
	}
	var values [][]byte
	if obj[0] == '[' {
		for i := jsonguard.SkipWS(obj, 1); i < len(obj) && obj[i] != ']'; {
			end := jsonguard.ValueEnd(obj, i)
			values = append(values, obj[i:end])
			if i = jsonguard.SkipWS(obj, end); i < len(obj) && obj[i] == ',' {
				i = jsonguard.SkipWS(obj, i+1)
			}
		}
	}
	f.Members(obj, func(_, value []byte) bool { values = append(values, value); return true })
	for _, v := range values {
		if v[0] == '{' || v[0] == '[' {
			sameMembers(t, f, v, depth+1)
		}
	}
}
