package ndjson_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentwire/agentwire/ndjson"
)

// A Claude Code stream-json excerpt: CRLF, a blank line, a stray
// non-JSON line and an over-long line (with a 64-byte limit).
const stream = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\"}\r\n" +
	"\n" +
	"{\"type\":\"assistant\",\"message\":{\"type\":\"message\",\"content\":[]}}\n" +
	"npm WARN deprecated\n" +
	"{\"type\":\"user\",\"tool_use_result\":\"" + "0123456789012345678901234567890123456789" + "\"}\n" +
	"{\"type\":\"result\",\"subtype\":\"success\",\"num_turns\":1}"

func ExampleReader() {
	r := ndjson.NewReader(strings.NewReader(stream), ndjson.Options{MaxLineSize: 64})
	for f, err := range r.All() {
		if err != nil {
			// Not fatal: the line was skipped and reading goes on.
			fmt.Println("skipped:", errors.Is(err, ndjson.ErrLineTooLong))
			continue
		}
		if f.Kind != ndjson.KindLine {
			continue // blank line or BOM
		}
		typ, _ := f.Type() // cheap peek, no decode
		switch string(typ) {
		case "result":
			var res struct {
				Subtype  string `json:"subtype"`
				NumTurns int    `json:"num_turns"`
			}
			if err := f.Decode(&res); err != nil {
				fmt.Println(err)
				continue
			}
			fmt.Printf("line %d: result %s after %d turn(s), unterminated=%v\n", f.Line, res.Subtype, res.NumTurns, f.Unterminated)
		case "":
			fmt.Println(f.Decode(new(any)))
		default:
			fmt.Printf("line %d (offset %d): %s\n", f.Line, f.Offset, typ)
		}
	}
	// Output:
	// line 1 (offset 0): system
	// line 3 (offset 55): assistant
	// ndjson: line 4 (offset 119): invalid character 'p' in literal null (expecting 'u'): "pm WARN deprecated"
	// skipped: true
	// line 6: result success after 1 turn(s), unterminated=true
}

func ExampleDecoder() {
	var lines []string
	d := ndjson.NewDecoder(ndjson.Options{}, func(f ndjson.Frame, err error) error {
		if err != nil {
			return err
		}
		// f.Raw is only valid here: keep a copy.
		lines = append(lines, fmt.Sprintf("%d:%q", f.Line, f.Raw))
		return nil
	})
	// Bytes arrive in arbitrary pieces.
	for _, p := range []string{"{\"a\":", "1}\r", "\n{\"b\"", ":2}"} {
		d.Write([]byte(p))
	}
	d.Close()
	fmt.Println(strings.Join(lines, " "))
	// Output:
	// 1:"{\"a\":1}\r\n" 2:"{\"b\":2}"
}

func ExampleFrame_Type() {
	f := ndjson.Frame{Data: []byte(`{"message":{"type":"message"},"type":"assistant","type":"user"}`)}
	typ, ok := f.Type()
	fmt.Println(string(typ), ok)
	// Output:
	// user true
}
