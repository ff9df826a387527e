package codex

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/ndjson"
)

// diffShapes is the oracle of the item shapes: it reads lines in order as
// Parser.peek does (a line the shapes take is decoded from its values,
// any other is walked and may be learnt) and checks that every line the
// shapes take is valid JSON, decodes as the reflective decoder decodes it
// (after an event with the previous line's id and command, as the parser
// gives them) and has the type PeekString reads. It returns how many lines
// the shapes took.
func diffShapes(t interface {
	Helper()
	Fatalf(string, ...any)
}, lines [][]byte) int {
	t.Helper()
	ss := newItemShapes()
	took := 0
	prevID, prevCommand := "", ""
	for _, line := range lines {
		got := wireItem{prevID: prevID, prevCommand: prevCommand}
		typ, ok := ss.match(line, &got)
		if !ok {
			if !cmp.Equal(got, wireItem{prevID: prevID, prevCommand: prevCommand}, cmp.AllowUnexported(wireItem{})) {
				t.Fatalf("shapes declined %q and left the item %+v", line, got)
			}
			var rec walkRecord
			rec.reset()
			_, _, fast := walkEvent(line, &wireItemEvent{Item: &got}, &rec)
			if fast {
				ss.learn(line, &rec, &got)
			}
		} else {
			took++
			if err := jsonguard.Check(line, ndjson.DefaultMaxDepth); err != nil {
				t.Fatalf("a shape took %q, which is not valid JSON: %v", line, err)
			}
			var slow wireItem
			if err := jsonguard.Unmarshal(line, &wireItemEvent{Item: &slow}, ndjson.DefaultMaxDepth); err != nil {
				t.Fatalf("a shape took %q, the reflective decoder fails: %v", line, err)
			}
			if d := cmp.Diff(slow, got, ignoreScratch); d != "" {
				t.Fatalf("a shape and the reflective decoder differ on %q (-reflective +shape):\n%s", line, d)
			}
			if (slow.ExitCode == nil) != (got.ExitCode == nil) || slow.ExitCode != nil && *slow.ExitCode != *got.ExitCode {
				t.Fatalf("a shape reads exit code %v on %q", got.ExitCode, line)
			}
			wantTyp, wantOK := jsonguard.PeekString(line, "type", nil)
			if !wantOK || string(typ) != string(wantTyp) {
				t.Fatalf("a shape reads type %q on %q; PeekString %q, %v", typ, line, wantTyp, wantOK)
			}
		}
		prevID, prevCommand = "", ""
		if plainID(got.ID) {
			prevID = got.ID
		}
		if plainID(got.Command) {
			prevCommand = got.Command
		}
	}
	return took
}

func byteLines(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, l := range s {
		out[i] = []byte(l)
	}
	return out
}

// TestItemShapes pins which lines a shape learnt from the line before
// takes; each one taken is checked against the reflective decoder.
func TestItemShapes(t *testing.T) {
	const cmd = `{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}`
	for _, c := range []struct {
		learnt, line string
		took         bool
	}{
		{cmd, cmd, true},
		{cmd, `{"type":"item.started","item":{"id":"item_9","type":"command_execution","command":"l\u0073 -l","aggregated_output":"\ud83d\ude00 \u00e9\ud800 \"q\"","exit_code":0,"status":"in_progress"}}`, true},
		{cmd, "{\"type\":\"item.completed\",\"item\":{\"id\":\"\xff\",\"type\":\"x\",\"command\":\"\",\"aggregated_output\":\"\xe2\x80\",\"exit_code\":0,\"status\":\"\"}}", true},
		// Another number, a null, other spacing, another member: another shape.
		{cmd, strings.Replace(cmd, `"exit_code":0`, `"exit_code":1`, 1), false},
		{cmd, strings.Replace(cmd, `"aggregated_output":"a\n"`, `"aggregated_output":null`, 1), false},
		{cmd, strings.Replace(cmd, `,"status"`, `, "status"`, 1), false},
		{cmd, strings.Replace(cmd, `"status"`, `"Status"`, 1), false},
		{cmd, cmd + " ", false},
		// An invalid string value, a type the walk declines.
		{cmd, strings.Replace(cmd, `"ls"`, `"l\qs"`, 1), false},
		{cmd, strings.Replace(cmd, `"ls"`, "\"l\x01s\"", 1), false},
		{cmd, strings.Replace(cmd, `"item.completed"`, `"item.c\u006fmpleted"`, 1), false},
		{cmd, strings.Replace(cmd, `"item.completed"`, "\"item.\xff\"", 1), false},
		// A type of non-ASCII bytes without escapes, as the walk takes it.
		{cmd, strings.Replace(cmd, `"item.completed"`, `"item.é"`, 1), true},
		// Raw members alias the line taken; lists are decoded again.
		{`{"type":"item.completed","item":{"id":"m","type":"mcp_tool_call","server":"s","tool":"t","arguments":{"a":"b"},"result":null,"error":{"message":"x"}}}`,
			`{"type":"item.completed","item":{"id":"n","type":"mcp_tool_call","server":"u","tool":"v","arguments":{"a":"\u0063"},"result":null,"error":{"message":"y"}}}`, true},
		{`{"type":"item.updated","item":{"id":"t","type":"todo_list","items":[{"text":"a","completed":false},{"text":"b","completed":true}]}}`,
			`{"type":"item.updated","item":{"id":"t","type":"todo_list","items":[{"text":"c\n","completed":false},{"text":"","completed":true}]}}`, true},
		{`{"type":"item.completed","item":{"id":"f","type":"file_change","changes":[{"path":"/a","kind":"add","diff":null}],"status":"completed"}}`,
			`{"type":"item.completed","item":{"id":"g","type":"file_change","changes":[{"path":"/b","kind":"update","diff":null}],"status":"failed"}}`, true},
		// Unknown members are only validated.
		{`{"type":"item.completed","extra":{"k":"v"},"item":{"id":"e","type":"error","message":"w","other":["x"]}}`,
			`{"type":"item.completed","extra":{"k":"\u0000"},"item":{"id":"e","type":"error","message":"w2","other":["y"]}}`, true},
		{`{"type":"item.completed","extra":{"k":"v"},"item":{"id":"e","type":"error","message":"w","other":["x"]}}`,
			`{"type":"item.completed","extra":{"k":"\x"},"item":{"id":"e","type":"error","message":"w2","other":["y"]}}`, false},
		// Not item events: never learnt.
		{`{"type":"turn.started"}`, `{"type":"turn.started"}`, false},
		{`{"type":"item.completed","item":null}`, `{"type":"item.completed","item":null}`, false},
		{`{"type":1,"item":{"id":"a"}}`, `{"type":1,"item":{"id":"a"}}`, false},
	} {
		if got := diffShapes(t, byteLines(c.learnt, c.line)) == 1; got != c.took {
			t.Errorf("shape of %s took %s: %v, want %v", c.learnt, c.line, got, c.took)
		}
	}
}

// TestItemShapesLists: a list a line repeats is the shape's last decoded
// one, and a changed list is decoded again, also after it went back.
func TestItemShapesLists(t *testing.T) {
	todo := func(a, b string) string {
		return `{"type":"item.updated","item":{"id":"t","type":"todo_list","items":[{"text":"` + a + `","completed":false},{"text":"` + b + `","completed":true}]}}`
	}
	change := func(path string) string {
		return `{"type":"item.completed","item":{"id":"f","type":"file_change","changes":[{"path":"` + path + `","kind":"add","diff":null}],"status":"completed"}}`
	}
	lines := byteLines(todo("a", "b"), todo("a", "b"), todo("c", "b"), todo("c", "b"), todo("a", "b"),
		change("/a"), change("/a"), change("/b"), change("/a"), todo("a", "\u0062"))
	if took := diffShapes(t, lines); took != len(lines)-2 {
		t.Fatalf("the shapes took %d lines, want %d", took, len(lines)-2)
	}
}

// TestItemShapesCorpus: every recording read twice in a row, line by
// line, through the shapes (a recording is short: its shapes rarely
// repeat within it); the lines they take decode as the reflective decoder
// decodes them, and the second time round every item event the walk
// takes (of at most maxShapeLine bytes) is taken by a shape.
func TestItemShapesCorpus(t *testing.T) {
	took := 0
	for _, c := range corpusCases(t) {
		ls := bytes.Split([]byte(strings.TrimSuffix(c.stdout, "\n")), []byte("\n"))
		items := 0
		for _, l := range ls {
			var rec walkRecord
			if _, _, ok := walkEvent(l, &wireItemEvent{Item: &wireItem{}}, &rec); ok && rec.typ[1] > 0 && rec.item && len(l) <= maxShapeLine {
				items++
			}
		}
		n := diffShapes(t, append(ls, ls...))
		if items <= maxShapes && n < items {
			t.Errorf("%s: the shapes took %d lines of the recording twice over, fewer than its %d item events", c.name, n, items)
		}
		took += n
	}
	if took < 40 {
		t.Fatalf("the shapes took only %d lines of the corpus", took)
	}
	t.Logf("%d lines taken by a shape", took)
}
