package jsonguard

import (
	"bytes"
	"testing"
)

// FuzzStrict holds the strict readers to Check: a value StrictValue takes
// at a given depth is one Check accepts at that depth, ending at the same
// place (StrictMembersFrom, from any of an object's member names, ends
// there too); and on input without a backslash (so no escaped member name) a
// value Check accepts is one StrictValue takes.
func FuzzStrict(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `"x"`, `1e400`, `-0.5e+3`, `{"a":[1,{"b":"c"}],"d":null}`, ` {"a" : true , "b":false} `,
		`{"a":1,}`, `[1,]`, `01`, `-`, `1.`, `1e`, `tru`, `"\u12"`, "\"\t\"", `{"a\u0062":1}`,
		`[[[[1]]]]`, `{"usageMetadata": {"promptTokenCount": 1250,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 1250}]}}`,
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, d uint8) {
		depth := int(d) % 8
		i := SkipWS(b, 0)
		if i >= len(b) {
			return
		}
		end := StrictValue(b, i, depth)
		whole := Check(b, max(depth, 1))
		if depth == 0 && b[i] != '{' && b[i] != '[' {
			whole = Check(b, 1)
		}
		if end >= 0 {
			if err := Check(b[i:end], max(depth, 1)); err != nil {
				t.Fatalf("StrictValue took %q (depth %d), Check: %v", b[i:end], depth, err)
			}
			if SkipWS(b, end) == len(b) && whole != nil {
				t.Fatalf("StrictValue took all of %q (depth %d), Check: %v", b, depth, whole)
			}
		}
		if end >= 0 && b[i] == '{' {
			// Going on from any member's name gives the same end.
			_ = StrictMembers(b, i, func(name []byte, j int) int {
				at := cap(b) - cap(name)
				if got := StrictMembersFrom(b, at, func(_ []byte, j int) int { return StrictValue(b, j, depth-1) }); got != end {
					t.Fatalf("StrictMembersFrom(%q, %d) = %d, StrictValue = %d", b, at, got, end)
				}
				return StrictValue(b, j, depth-1)
			})
		}
		if whole == nil && bytes.IndexByte(b, '\\') < 0 && (depth > 0 || (b[i] != '{' && b[i] != '[')) {
			if end < 0 || SkipWS(b, end) != len(b) {
				t.Fatalf("Check accepts %q at depth %d, StrictValue = %d", b, depth, end)
			}
		}
	})
}
