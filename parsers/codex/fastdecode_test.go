package codex

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/ndjson"
)

// ignoreScratch leaves out wireItem's unexported fields, the fast
// decoder's scratch (ExitCode's target is compared through the pointer).
var ignoreScratch = cmpopts.IgnoreUnexported(wireItem{})

// diffFastItem is the oracle of the fast item decoder: when it accepts a
// line, the reflective decoder must accept it too and decode an equal
// event. It reports whether the fast decoder accepted the line.
func diffFastItem(t interface {
	Helper()
	Fatalf(string, ...any)
}, line []byte) bool {
	t.Helper()
	var fast wireItem
	evFast := wireItemEvent{Item: &fast}
	typ, typOK, ok := fastEvent(line, &evFast)
	if !ok {
		return false
	}
	if err := jsonguard.Check(line, ndjson.DefaultMaxDepth); err != nil {
		t.Fatalf("fast walk accepted %q, which is not valid JSON: %v", line, err)
	}
	var slow wireItem
	evSlow := wireItemEvent{Item: &slow}
	if err := jsonguard.Unmarshal(line, &evSlow, ndjson.DefaultMaxDepth); err != nil {
		t.Fatalf("fast decoder accepted %q, the reflective one fails: %v", line, err)
	}
	if d := cmp.Diff(evSlow, evFast, ignoreScratch); d != "" {
		t.Fatalf("fast and reflective decoders differ on %q (-reflective +fast):\n%s", line, d)
	}
	if plainID(fast.ID) || plainID(fast.Command) {
		// The same line after an event with the same id (or command)
		// shares its string, and decodes the same.
		var again wireItem
		if plainID(fast.ID) {
			again.prevID = fast.ID
		}
		if plainID(fast.Command) {
			again.prevCommand = fast.Command
		}
		evAgain := wireItemEvent{Item: &again}
		if _, _, ok := fastEvent(line, &evAgain); !ok {
			t.Fatalf("fast decoder declines %q after an event with its id", line)
		}
		if d := cmp.Diff(evSlow, evAgain, ignoreScratch); d != "" {
			t.Fatalf("fast decoder after an event with the same id differs on %q (-reflective +fast):\n%s", line, d)
		}
	}
	// After an event whose id and command are this line's but for their
	// last byte, nothing is shared wrongly.
	if len(fast.ID) > 1 || len(fast.Command) > 1 {
		var near wireItem
		if len(fast.ID) > 1 && plainID(fast.ID[:len(fast.ID)-1]) {
			near.prevID = fast.ID[:len(fast.ID)-1]
		}
		if len(fast.Command) > 1 && plainID(fast.Command[:len(fast.Command)-1]) {
			near.prevCommand = fast.Command[:len(fast.Command)-1]
		}
		evNear := wireItemEvent{Item: &near}
		if _, _, ok := fastEvent(line, &evNear); ok {
			if d := cmp.Diff(evSlow, evNear, ignoreScratch); d != "" {
				t.Fatalf("fast decoder after an event with a near id or command differs on %q (-reflective +fast):\n%s", line, d)
			}
		}
	}
	wantTyp, wantOK := jsonguard.PeekString(line, "type", nil)
	if typOK != wantOK || string(typ) != string(wantTyp) {
		t.Fatalf("fast walk reads type %q, %v on %q; PeekString %q, %v", typ, typOK, line, wantTyp, wantOK)
	}
	return true
}

// TestFastItemDecodeCorpus: every item event of every recording takes the
// fast path, and decodes as the reflective decoder does.
func TestFastItemDecodeCorpus(t *testing.T) {
	n := 0
	for _, c := range corpusCases(t) {
		sc := bufio.NewScanner(strings.NewReader(c.stdout))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			typ, _ := jsonguard.PeekString(line, "type", nil)
			if !bytes.HasPrefix(typ, []byte("item.")) {
				continue
			}
			n++
			if !diffFastItem(t, line) {
				t.Errorf("%s: item event left to the reflective decoder: %.200s", c.name, line)
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d item events in the corpus", n)
	}
	t.Logf("%d item events", n)
}

// TestFastItemDecode pins which shapes take the fast path; every accepted
// one is checked against the reflective decoder.
func TestFastItemDecode(t *testing.T) {
	for _, c := range []struct {
		line string
		fast bool
	}{
		{`{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"hi"}}`, true},
		{` { "item" : { "id" : "i" , "type" : "reasoning" , "text" : null } , "type" : "item.started" } `, true},
		{`{"type":"item.completed","item":null}`, true},
		{`{"type":"item.completed"}`, true},
		{`{}`, true},
		{`{"item":{}}`, true},
		{`{"type":"item.completed","item":{"id":"c","type":"command_execution","command":"ls","aggregated_output":"a\nb\u00e9\ud83d\ude00\ud800","exit_code":-2,"status":"failed"}}`, true},
		{`{"item":{"id":"f","type":"file_change","changes":[{"path":"/a","kind":"add"},{"path":"/b","kind":"update","diff":"@@"},{"diff":null}],"status":"completed"}}`, true},
		{`{"item":{"type":"file_change","changes":[]}}`, true},
		{`{"item":{"type":"file_change","changes":null}}`, true},
		{`{"item":{"id":"m","type":"mcp_tool_call","server":"s","tool":"t","arguments":{"a":[1,{"b":"}"}]},"result":null,"error":{"message":"x"}}}`, true},
		{`{"item":{"id":"w","type":"web_search","query":"q","action":{"type":"search"}}}`, true},
		{`{"item":{"id":"t","type":"todo_list","items":[{"text":"a","completed":true},{"text":"b","completed":false},{"text":null,"completed":null}]}}`, true},
		{`{"item":{"id":"e","type":"error","message":"warn"},"extra":[1,2,{"item":3}]}`, true},
		{`{"item":{"id":"x","type":"collab_tool_call","sender_thread_id":"t","receiver_thread_ids":["u"]}}`, true},
		{`{"item":{"id":"i","type":"agent_mess\u0061ge","text":"\"q\"\\\/\b\f\r\t"}}`, true},
		{"{\"item\":{\"id\":\"i\",\"type\":\"agent_message\",\"text\":\"\xff\xfe raw \xe2\x80\xa8\"}}", true},
		{`{"item":{"exit_code":123456789012345678}}`, true},
		{`{"type":1,"item":{}}`, true},
		{`{"Type":"item.completed","item":{"type":"reasoning"}}`, true},
		{`{"item":{"type":"x\"y","id":"\u0041"},"type":"item.updated"}`, true},

		// Left to Type and the reflective decoder.
		{`{"type":"item.completed","type":"item.started"}`, false},
		{`{"t\u0079pe":"item.completed"}`, false},
		{`{"type":"it\u0065m.completed"}`, false},
		{"{\"type\":\"item\xff\"}", false},

		// Left to the reflective decoder.
		{`{"Item":{"id":"i"}}`, false},
		{`{"item":{"ID":"i"}}`, false},
		{`{"item":{"Text":"i"}}`, false},
		{`{"it\u0065m":{"id":"i"}}`, false},
		{`{"item":{"\u0069d":"i"}}`, false},
		{"{\"item\":{\"\xe2\x84\xaa\":\"i\"}}", false},
		{`{"item":{"id":"a","id":"b"}}`, false},
		// web_search serializes two ids (see the package doc): the last wins.
		{`{"type":"item.completed","item":{"id":"item_1","type":"web_search","id":"ws_1","query":"q"}}`, false},
		{`{"item":{},"item":null}`, false},
		{`{"item":{"exit_code":1.0}}`, false},
		{`{"item":{"exit_code":1e2}}`, false},
		{`{"item":{"exit_code":"1"}}`, false},
		{`{"item":{"exit_code":1234567890123456789}}`, false},
		{`{"item":{"text":1}}`, false},
		{`{"item":{"id":true}}`, false},
		{`{"item":{"type":1}}`, false},
		{`{"item":{"changes":{}}}`, false},
		{`{"item":{"changes":[null]}}`, false},
		{`{"item":{"changes":[{"path":1}]}}`, false},
		{`{"item":{"changes":[{"path":"a","PATH":"b"}]}}`, false},
		{`{"item":{"items":[{"completed":"yes"}]}}`, false},
		{`{"item":[]}`, false},
		{`{"item":"x"}`, false},
		{`[]`, false},
		// Not JSON: the walk validates as Check does.
		{`{"item":{"id":"i"`, false},
		{"{\"item\":{\"text\":\"a\x01b\"}}", false},
		{"{\"item\":{\"text\":\"a\x01b\\n\"}}", false},
		{"{\"ty\x01pe\":\"x\"}", false},
		{"{\"type\":\"item.\x1f\"}", false},
		{`{"item":{"text":"\q"}}`, false},
		{`{"item":{"text":"\u12"}}`, false},
		{`{"item":{"exit_code":01}}`, false},
		{`{"item":{"exit_code":-}}`, false},
		{`{"item":nulx}`, false},
		{`{"item":{"id":nul}}`, false},
		{`{"item":{"arguments":{"a":tru}}}`, false},
		{`{"item":{"arguments":{"a":1,}}}`, false},
		{`{"item":{"changes":[{"path":"a"},]}}`, false},
		{`{"other":[1 2],"item":{}}`, false},
		{`{"item":{}} x`, false},
		{`{"item":{}}}`, false},
		{`{} {}`, false},
		{`{"item":{},}`, false},
		{`{"item" {}}`, false},
		{`{"type":"a" "item":{}}`, false},
		{`{"x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, false}, // deeper than the limit
		{`{"x":` + strings.Repeat("[", 400) + strings.Repeat("]", 400) + `}`, true},
		// The depth limit is the line's, exactly (512 levels).
		{`{"x":` + strings.Repeat("[", 511) + strings.Repeat("]", 511) + `}`, true},
		{`{"x":` + strings.Repeat("[", 512) + strings.Repeat("]", 512) + `}`, false},
		{`{"item":{"arguments":` + strings.Repeat("[", 510) + strings.Repeat("]", 510) + `}}`, true},
		{`{"item":{"arguments":` + strings.Repeat("[", 511) + strings.Repeat("]", 511) + `}}`, false},
		{`{"item":{"changes":[{"diff":null,"x":` + strings.Repeat("[", 508) + strings.Repeat("]", 508) + `}]}}`, true},
		{`{"item":{"changes":[{"diff":null,"x":` + strings.Repeat("[", 509) + strings.Repeat("]", 509) + `}]}}`, false},
	} {
		if got := diffFastItem(t, []byte(c.line)); got != c.fast {
			t.Errorf("fast path on %s: %v, want %v", c.line, got, c.fast)
		}
	}
}

// TestFastItemDecodeProperty generates item events from a grammar that
// mixes the real shape with every irregularity the fast decoder must
// either reproduce or refuse.
func TestFastItemDecodeProperty(t *testing.T) {
	str := rapid.SampledFrom([]string{`""`, `"x"`, `"a\nb"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", `"\"\\"`, `null`, `1`, `true`, `[]`, `{}`})
	keys := []string{"id", "type", "text", "command", "aggregated_output", "exit_code", "status", "changes", "server", "tool",
		"arguments", "result", "error", "query", "action", "items", "message", "ID", "Type", "other", "t\\u0065xt", "path", "kind", "diff", "completed"}
	var value func(t *rapid.T, depth int) string
	value = func(t *rapid.T, depth int) string {
		switch k := rapid.IntRange(0, 6).Draw(t, "kind"); {
		case k == 0:
			return rapid.SampledFrom([]string{`0`, `-7`, `12`, `1.5`, `1e3`, `99999999999999999999`, `true`, `false`}).Draw(t, "scalar")
		case k <= 2 || depth > 2:
			return str.Draw(t, "str")
		case k <= 4:
			n := rapid.IntRange(0, 3).Draw(t, "n")
			parts := make([]string, n)
			for i := range parts {
				parts[i] = value(t, depth+1)
			}
			return "[" + strings.Join(parts, ",") + "]"
		default:
			n := rapid.IntRange(0, 4).Draw(t, "n")
			parts := make([]string, n)
			for i := range parts {
				parts[i] = fmt.Sprintf(`"%s":%s`, rapid.SampledFrom(keys).Draw(t, "key"), value(t, depth+1))
			}
			return "{" + strings.Join(parts, ",") + "}"
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 8).Draw(t, "members")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`"%s" : %s`, rapid.SampledFrom(keys).Draw(t, "key"), value(t, 1))
		}
		item := "{" + strings.Join(parts, " , ") + "}"
		line := fmt.Sprintf(`{"type":"item.completed","item":%s}`, item)
		diffFastItem(t, []byte(line))
	})
}

// FuzzItemDecode is the differential fuzz target of the fast item decoder
// and of the item shapes.
func FuzzItemDecode(f *testing.F) {
	for _, s := range []string{lMsg,
		`{"item":{"id":"f","type":"file_change","changes":[{"path":"/a","kind":"add","diff":null}],"status":"completed"}}`,
		`{"item":{"id":"m","type":"mcp_tool_call","server":"s","tool":"t","arguments":{"a":1},"result":null}}`,
		`{"item":{"id":"t","type":"todo_list","items":[{"text":"a","completed":true}]}}`,
		`{"item":{"id":"c","type":"command_execution","aggregated_output":"\u00e9\n","exit_code":0}}`,
		// exit codes and spacing around names, colons and commas
		`{"item":{"id":"c","type":"command_execution","exit_code":-12}}`,
		`{"item":{"id":"c","type":"command_execution","exit_code":01}}`,
		`{"item":{"id":"c","type":"command_execution","exit_code":-0,"status":"failed"}}`,
		`{"item":{"id":"c","type":"command_execution","exit_code":1.5}}`,
		`{"item":{"id":"c","type":"command_execution","exit_code":-}}`,
		`{"item":{"id":"c","type":"command_execution","exit_code":nul}}`,
		`{ "item" : { "id" :"c" ,"type":	"command_execution" , "exit_code" : 3 } } `,
		`{"item":{"i\u0064":"c","type":"command_execution","exit_code":3}}`,
	} {
		f.Add([]byte(s))
	}
	// Every distinct line shape of the recordings, up to 4 KiB, and each
	// item event after itself (a shape learnt from it takes it).
	for _, c := range corpusCases(f) {
		for line := range strings.Lines(c.stdout) {
			if len(line) <= 4<<10 {
				f.Add([]byte(strings.TrimSuffix(line, "\n")))
				if strings.Contains(line, `"item"`) {
					f.Add([]byte(line + line))
				}
			}
		}
	}
	// An input of several lines is read through the item shapes too
	// (diffShapes), each line after the ones before it.
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Split(data, []byte("\n"))
		for _, line := range lines {
			diffFastItem(t, line)
		}
		if len(lines) > 1 {
			diffShapes(t, lines)
		}
	})
}
