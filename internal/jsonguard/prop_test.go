package jsonguard

import (
	stdjson "encoding/json"
	"strings"
	"testing"

	"github.com/segmentio/encoding/json"
	"pgregory.net/rapid"
)

// genWS draws JSON whitespace.
var genWS = rapid.SampledFrom([]string{"", "", " ", "\t", "\r\n ", "\n"})

// genString draws a JSON string literal: plain, escaped, non-ASCII,
// surrogates (paired and lone) and invalid UTF-8.
var genString = rapid.Custom(func(t *rapid.T) string {
	parts := rapid.SliceOfN(rapid.SampledFrom([]string{
		"type", "method", "assistant", "a", " ", `\"`, `\\`, `\/`, `\n`, `\u0074`, `\u00e9`, "é", "😀",
		`\ud83d\ude00`, `\ud800`, `\udc00x`, "\xff", "{", "}", "[", "]", ":", ",", `\"type\":\"x\"`,
	}), 0, 6).Draw(t, "parts")
	return `"` + strings.Join(parts, "") + `"`
})

// genKey draws member names, biased towards the discriminators and their
// near misses.
var genKey = rapid.OneOf(
	rapid.SampledFrom([]string{`"type"`, `"method"`, `"Type"`, `"TYPE"`, `"t\u0079pe"`, `"\u0074ype"`, `"typ"`, `"types"`, `"type "`, `"message"`}),
	genString,
)

func genValue(depth int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		max := 5
		if depth <= 0 {
			max = 2
		}
		switch rapid.IntRange(0, max).Draw(t, "kind") {
		case 0:
			return genString.Draw(t, "str")
		case 1:
			return rapid.SampledFrom([]string{"null", "true", "false", "0", "-1.5e3", "12345678901234567890"}).Draw(t, "scalar")
		case 2:
			return genString.Draw(t, "str")
		case 3, 4:
			return genObject(depth-1).Draw(t, "obj")
		default:
			elems := rapid.SliceOfN(genValue(depth-1), 0, 3).Draw(t, "elems")
			return "[" + genWS.Draw(t, "ws") + strings.Join(elems, ","+genWS.Draw(t, "ws")) + "]"
		}
	})
}

func genObject(depth int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		n := rapid.IntRange(0, 5).Draw(t, "n")
		var b strings.Builder
		b.WriteString("{" + genWS.Draw(t, "ws"))
		for i := range n {
			if i > 0 {
				b.WriteString("," + genWS.Draw(t, "ws"))
			}
			b.WriteString(genKey.Draw(t, "key") + genWS.Draw(t, "ws") + ":" + genWS.Draw(t, "ws"))
			b.WriteString(genValue(depth).Draw(t, "value") + genWS.Draw(t, "ws"))
		}
		b.WriteString("}")
		return b.String()
	})
}

// TestPropPeekAgreesWithDecode: on any valid JSON value, PeekString agrees
// with segmentio's and encoding/json's decode into a map (top level only,
// exact names after unescaping, last duplicate wins, non-strings ignored).
func TestPropPeekAgreesWithDecode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genWS.Draw(t, "lead") + rapid.OneOf(genObject(3), genValue(2)).Draw(t, "value") + genWS.Draw(t, "trail")
		b := []byte(in)
		if err := Check(b, 0); err != nil {
			t.Fatalf("generator produced invalid JSON %q: %v", in, err)
		}
		var seg, std any
		if err := json.Unmarshal(b, &seg); err != nil {
			t.Fatalf("segmentio: %v", err)
		}
		if err := stdjson.Unmarshal(b, &std); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		for _, key := range []string{"type", "method"} {
			got, ok := PeekString(b, key, nil)
			for name, v := range map[string]any{"segmentio": seg, "encoding/json": std} {
				m, isObj := v.(map[string]any)
				s, isStr := m[key].(string)
				if ok != (isObj && isStr) || string(got) != s {
					t.Fatalf("PeekString(%q) on %s = %q, %v; %s decodes %q, %v", key, in, got, ok, name, s, isObj && isStr)
				}
			}
		}
	})
}
