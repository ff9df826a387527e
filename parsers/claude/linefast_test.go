package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/ndjson"
)

// corpusLines returns the lines of the recorded corpus's stdout captures
// that start with prefix and are shorter than 16 KiB.
func corpusLines(t testing.TB, prefix []byte) [][]byte {
	files, err := filepath.Glob("../../corpus/claude/*/*/stdout")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus captures: %v", err)
	}
	var lines [][]byte
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if bytes.HasPrefix(line, prefix) && len(line) < 16<<10 {
				lines = append(lines, line)
			}
		}
	}
	return lines
}

// lineFastSeeds are assistant, user and system lines: the corpus's and the edges
// the fast path must decline or decode exactly.
func lineFastSeeds(t testing.TB) [][]byte {
	env := `,"parent_tool_use_id":null,"session_id":"41287ef0-450f-4d7a-8ff2-242aa812f532","uuid":"u"}`
	msg := `{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":`
	usage := `,"stop_reason":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":7,"cache_creation":{"ephemeral_5m_input_tokens":0},"output_tokens":1,"service_tier":"standard"}}`
	user := `{"type":"user","message":{"role":"user","content":`
	var seeds [][]byte
	for _, s := range []string{
		msg + `[{"type":"text","text":"Hel\u006co \ud83d\ude00"}]` + usage + env,
		msg + `[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls","n":[1,2.5,true,null]}}]` + usage + env,
		msg + `[{"type":"thinking","thinking":"hm","signature":"c2ln"},{"type":"redacted_thinking","data":"xx"}]` + usage + env,
		msg + `[{"type":"text","text":"x","citations":[{"type":"web","url":"u"}]}]` + usage + env,
		msg + `[{"type":"server_tool_use","id":"s1","name":"web_search","input":{}},{"type":"mcp_tool_use","id":"m1","name":"q","server_name":"srv","input":null}]` + usage + env,
		msg + `[{"type":"web_search_tool_result","tool_use_id":"s1","content":[{"type":"web_search_result","url":"u"}]}]` + usage + env,
		msg + `[{"type":"image","source":{"type":"base64","data":"AAA"}}]` + usage + env,
		msg + `[]` + usage + env,
		msg + `null` + usage + env,
		msg + "[{\"type\":\"text\",\"text\":\"bad \xff utf8 \\ud800 lone\"}]" + usage + env,
		user + "[{\"type\":\"tool_result\",\"tool_use_id\":\"t\",\"content\":[{\"type\":\"text\",\"text\":\"\xc3(\"}]}]}" + env,
		msg + `[{"type":"text","text":"x"}],"usage":null}` + env,
		msg + `[{"type":"text","text":"x"}],"usage":{"input_tokens":null,"output_tokens":-3}}` + env,
		`{"type":"assistant","message":{"id":"msg_2","model":"<synthetic>","content":[{"type":"text","text":"API Error: 500"}]},"error":"unknown","is_api_error_message":true,"api_error_status":500,"api_error_type":"api_error"` + env,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]},"error":{"code":1},"api_error_status":null}`,
		`{"type":"assistant","message":null,"session_id":null}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]},"parent_tool_use_id":"toolu_9","session_id":"s"}`,
		`{"type":"assistant" , "message" : { "content" : [ { "type" : "text" , "text" : "x" } ] } }` + "\r",
		// Declined: the decoder reads these differently or fails.
		msg + `[{"type":"text","Text":"x"}]` + usage + env,
		msg + `[{"type":"text","te\u0078t":"x"}]` + usage + env,
		msg + `[{"type":"text","text":"x","text":"y"}]` + usage + env,
		msg + `[{"type":"text","text":7}]` + usage + env,
		msg + `["text"]` + usage + env,
		msg + `[null]` + usage + env,
		msg + `{"type":"text"}` + usage + env,
		msg + `[{"type":"text","text":"x"}],"usage":{"input_tokens":1.0}}` + env,
		msg + `[{"type":"text","text":"x"}],"usage":{"input_tokens":12345678901234567890}}` + env,
		msg + `[{"type":"text","text":"x"}],"usage":{"input_tokens":1,"Input_Tokens":2}}` + env,
		msg + `[{"type":"text","text":"x"}],"ID":"m"}` + env,
		msg + `[{"type":"text","text":"x"}]}` + `,"type":"assistant"}`,
		msg + `[{"type":"text","text":"x"}]}` + `,"Session_ID":"s"}`,
		msg + `[{"type":"text","text":"x"}]}` + `,"session_id":"` + strings.Repeat("a", 65) + `"}`,
		msg + `[{"type":"text","text":"x"}]}` + `,"session_id":"a\"b"}`,
		msg + `[{"type":"text","text":"x"}]}` + `,"session_id":7}`,
		msg + `[{"type":"text","text":"x"}]}` + `,"is_api_error_message":"yes"}`,
		msg + `[{"type":"text","text":"x"}]}` + `,"parent_tool_use_id":{}}`,
		msg + `[{"type":"text","text":"x"}]}` + `}x`,
		msg + `[{"type":"text","text":"x"}]}`,
		`{"type":"assistantX","message":{}}`,
		`{"type":"assistant","message":"hi"}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","input":1e999}]}}`,
		user + `[{"tool_use_id":"toolu_1","type":"tool_result","content":"hello","is_error":false}]}` + env,
		user + `[{"tool_use_id":"toolu_1","type":"tool_result","content":[{"type":"text","text":"a"},{"type":"text","text":"b"},{"type":"image"}],"is_error":true}]}` + env,
		user + `[{"tool_use_id":"toolu_1","type":"tool_result","content":[{"type":"text","text":1}]}]}` + env,
		user + `[{"tool_use_id":"toolu_1","type":"tool_result","content":{"k":"v"}}]}` + env,
		user + `[{"tool_use_id":"toolu_1","type":"tool_result","content":[null,{"type":"text"}]}]}` + env,
		user + `[{"tool_use_id":"toolu_1","type":"tool_result","content":1e999}]}` + env,
		user + `[{"type":"text","text":"do it"}]},"isSynthetic":true,"isReplay":false` + env,
		user + `"a prompt"},"isReplay":true` + env,
		user + `42}` + env,
		user + `null}` + env,
		user + `[]}` + env,
		`{"type":"user","message":null}`,
		`{"type":"user"}`,
		// Declined.
		user + `[{"type":"text","text":"x"}]},"issynthetic":true` + env,
		user + `[{"type":"text","text":"x"}],"Content":"y"}` + env,
		user + `[{"type":"text","text":"x"}],"content":"y"}` + env,
		user + `[{"type":"text","text":"x"}]},"isReplay":1` + env,
		`{"type":"user","type":"user","message":{}}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"x"}]}`,
		`{"type":"system","subtype":"status","status":"requesting","session_id":"ef76b079-b066-4943-977d-10f5e616766e","uuid":"8764cf26"}`,
		`{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Bash","Read"],"mcp_servers":[],"model":"claude-x","permissionMode":"default","apiKeySource":"none","claude_code_version":"2.1.0","output_style":"default"}`,
		`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":1500,"error_status":529,"error":"overloaded","session_id":"s"}`,
		`{"type":"system","subtype":"api_retry","attempt":null,"retry_delay_ms":null,"error_status":null,"error":{"x":1}}`,
		`{"type":"system","subtype":"task_started","task_id":"t1","tool_use_id":"toolu_1","description":"d","parent_tool_use_id":"toolu_0"}`,
		`{"type":"system","subtype":"task_notification","task_id":"t1","status":"completed","summary":"ok"}`,
		`{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"auto","pre_tokens":1e3}}`,
		`{"type":"system","subtype":"x","n":1e999}`,
		`{"type":"system"}`,
		"{\"type\":\"system\",\"session_id\":\"a\xffb\"}",
		// Declined.
		`{"type":"system","subtype":"api_retry","retry_delay_ms":1500.5}`,
		`{"type":"system","subtype":"api_retry","retry_delay_ms":-0}`,
		`{"type":"system","subtype":"api_retry","retry_delay_ms":1234567890123456}`,
		`{"type":"system","subtype":"api_retry","attempt":"2"}`,
		`{"type":"system","Subtype":"init"}`,
		`{"type":"system","subtype":"init","subtype":"status"}`,
		`{"type":"system","permissionmode":"x"}`,
		`{"type":"systemx"}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	seeds = append(seeds, corpusLines(t, assistantPrefix)...)
	seeds = append(seeds, corpusLines(t, systemPrefix)...)
	return append(seeds, corpusLines(t, userPrefix)...)
}

// checkLineFast is the oracle: when fastAssistant, fastUser or fastSystem
// takes a line, the decoder takes it too (a valid line of one "type", the one the
// fast path read) and gives the same value. The fast path decodes into a
// target that held another line before, as the Parser's does, and decodes
// the line twice: the second time its memos hold the line's own values.
func checkLineFast(t *testing.T, line []byte) (took bool) {
	p := New(&countSink{}, Options{})
	prev := []byte(`{"type":"assistant","message":{"id":"msg_1","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"a","input":{"x":1}},{"type":"text","text":"b"},{"type":"text","text":"c"}],"usage":{"input_tokens":8,"cache_creation_input_tokens":0,"cache_read_input_tokens":7,"cache_creation":{"ephemeral_5m_input_tokens":0},"output_tokens":1,"service_tier":"standard"}},"session_id":"s","error":"e"}`)
	if !p.fastAssistant(prev, &p.al) || !fastUser([]byte(`{"type":"user","message":{"content":[{"type":"text","text":"b"},{"type":"tool_result","content":"c","is_error":true}]},"isSynthetic":true}`), &p.ul) {
		t.Fatal("the fast path declines its own seeds")
	}
	for pass := range 2 {
		fa := &p.al
		fa.reset()
		if p.fastAssistant(line, fa) {
			var slow assistantFast
			if err := jsonguard.Unmarshal(line, &slow, 0); err != nil {
				t.Fatalf("fastAssistant took %q, the decoder fails: %v", line, err)
			}
			if slow.Type.n != 1 || slow.Type.v != "assistant" {
				t.Fatalf("fastAssistant took %q, the decoder reads type %+v", line, slow.Type)
			}
			fast := *fa
			if len(fast.Message.Content) == 0 && len(slow.Message.Content) == 0 {
				fast.Message.Content, slow.Message.Content = nil, nil // the room a decode keeps is not its result
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("fastAssistant %q (pass %d):\n fast %+v\n slow %+v", line, pass, fast, slow)
			}
			took = true
		}
		fs := &p.syl
		*fs = systemFast{}
		if fastSystem(line, fs) {
			var slow systemFast
			if err := jsonguard.Unmarshal(line, &slow, 0); err != nil {
				t.Fatalf("fastSystem took %q, the decoder fails: %v", line, err)
			}
			if slow.Type.n != 1 || slow.Type.v != "system" {
				t.Fatalf("fastSystem took %q, the decoder reads type %+v", line, slow.Type)
			}
			if !reflect.DeepEqual(*fs, slow) {
				t.Fatalf("fastSystem %q:\n fast %+v\n slow %+v", line, *fs, slow)
			}
			// The general path's readings: Peek's session id, the Raw.
			f := ndjson.Frame{Kind: ndjson.KindLine, Data: line}
			if sid, _ := f.Peek("session_id"); string(sid) != string(fs.SessionID.bytes()) {
				t.Fatalf("fastSystem %q: session id %q, Peek %q", line, fs.SessionID.bytes(), sid)
			}
			if checked, decoded := p.raw(f, true), New(&countSink{}, Options{}).raw(f, false); !reflect.DeepEqual(checked, decoded) {
				t.Fatalf("fastSystem %q: Raw %v, decoded %v", line, checked, decoded)
			}
			took = true
		}
		fu := &p.ul
		fu.reset()
		if fastUser(line, fu) {
			var slow userFast
			if err := jsonguard.Unmarshal(line, &slow, 0); err != nil {
				t.Fatalf("fastUser took %q, the decoder fails: %v", line, err)
			}
			if slow.Type.n != 1 || slow.Type.v != "user" {
				t.Fatalf("fastUser took %q, the decoder reads type %+v", line, slow.Type)
			}
			fast := *fu
			if len(fast.Message.Content.blocks) == 0 && len(slow.Message.Content.blocks) == 0 {
				fast.Message.Content.blocks, slow.Message.Content.blocks = nil, nil
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("fastUser %q (pass %d):\n fast %+v\n slow %+v", line, pass, fast, slow)
			}
			took = true
		}
	}
	return took
}

func TestLineFast(t *testing.T) {
	seeds := lineFastSeeds(t)
	took := 0
	for _, line := range seeds {
		if checkLineFast(t, line) {
			took++
		}
	}
	// Most of the corpus's lines take the fast path: a change that made it
	// decline them all would pass the oracle and lose the speed.
	if n := len(corpusLines(t, assistantPrefix)) + len(corpusLines(t, userPrefix)) + len(corpusLines(t, systemPrefix)); took < n {
		t.Fatalf("the fast path took only %d of %d seeds (%d from the corpus)", took, len(seeds), n)
	}
	for _, s := range []string{
		`{"type":"assistant","message":{"content":[{"type":"text","Text":"x"}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"x","text":"y"}]}}`,
		`{"type":"assistant","message":{"content":[null]}}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":1.0}}}`,
		`{"type":"user","message":{"content":"x"},"issynthetic":true}`,
	} {
		p := New(&countSink{}, Options{})
		if p.fastAssistant([]byte(s), &p.al) || fastUser([]byte(s), &p.ul) {
			t.Errorf("the fast path took %s", s)
		}
	}
}

// FuzzLineFast holds fastAssistant, fastUser and fastSystem to the decoder
// on any line.
func FuzzLineFast(f *testing.F) {
	for _, s := range lineFastSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkLineFast(t, line) })
}

func TestPlainName(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"", true}, {"uuid", true}, {"request_id", true}, {"cache_creation_input_tokens", true},
		{`te\u0078t`, false}, {`abcdefgh\`, false}, {`\abcdefgh`, false}, {`abcdefg\h`, false},
		{"ſession_id", false}, {"session_iſ", false}, {"abcdefgh\x80", false}, {"\xffabcdefgh", false},
		{"]]]]]]]]", true}, {"[[[[[[[[", true}, {"\\\\\\\\", false},
		{"a", true}, {"abc", true}, {"ab\\", false}, {"\x80", false}, {"uuid", true}, {"role\x80", false}, {"\\ole", false},
		{"abcdef\\", false}, {"a\\cdefg", false}, {"abcdefg", true}, {"abc\xc5\xbfefg", false}, {"abcdefghijklmno\\p", false},
	} {
		if got := plainName([]byte(c.name)); got != c.want {
			t.Errorf("plainName(%q) = %v", c.name, got)
		}
	}
}

// TestUsageMemoRest: a usage object whose bytes after its first members
// are the last one's (p.usageMemo) reads as the decoder reads it, the
// members after them taken from the memo, which stays the object read
// whole; one whose own first members name a field of the memo's rest
// again is declined.
func TestUsageMemoRest(t *testing.T) {
	rest := `,"cache_read_input_tokens":7,"cache_creation":{"ephemeral_5m_input_tokens":0},"output_tokens":1,"service_tier":"standard"}`
	first := `{"input_tokens":3,"cache_creation_input_tokens":0` + rest
	line := func(usage string) []byte {
		return []byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"x"}],"usage":` + usage + `},"session_id":"s"}`)
	}
	p := New(&countSink{}, Options{})
	for _, c := range []struct {
		usage string
		took  bool
	}{
		{first, true},
		{`{"input_tokens":250,"cache_creation_input_tokens":4` + rest, true},
		{`{"input_tokens":251,"cache_creation_input_tokens":0` + rest, true},
		{`{"input_tokens":6,"output_tokens":2,"cache_creation_input_tokens":0` + rest, false},
		{`{"cache_read_input_tokens":1,"cache_creation_input_tokens":0` + rest, false},
		// The rest is the memo's after another member index: read whole.
		{`{"service_tier":"x","input_tokens":9,"cache_creation_input_tokens":0` + rest, true},
	} {
		l := line(c.usage)
		p.al.reset()
		if got := p.fastAssistant(l, &p.al); got != c.took {
			t.Fatalf("fastAssistant %s: took %v, want %v", c.usage, got, c.took)
		}
		if !c.took {
			continue
		}
		var slow assistantFast
		if err := jsonguard.Unmarshal(l, &slow, 0); err != nil {
			t.Fatal(err)
		}
		if *p.al.Message.Usage != *slow.Message.Usage {
			t.Errorf("usage %s: fast %+v, decoder %+v", c.usage, *p.al.Message.Usage, *slow.Message.Usage)
		}
		want := first
		if strings.HasPrefix(c.usage, `{"service_tier"`) {
			want = c.usage
		}
		if string(p.usageMemo.b) != want {
			t.Errorf("usage %s: memo %s, want the object read whole", c.usage, p.usageMemo.b)
		}
	}
}

// TestFoldsTo: the member names the decoder could take for a field of
// userFields though they are not one exactly.
func TestFoldsTo(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"TYPE", true}, {"Session_ID", true}, {"issynthetic", true}, {"ISREPLAY", true},
		{"ſession_id", true}, {"meſſage", true}, {`typ\u0065`, true}, {`x\"y`, true},
		{"uuid", false}, {"timestamp", false}, {"", false}, {"typ", false}, {"types", false},
		{"\x7fession_id", false}, {"session_i\x7f", false}, {"tool_use_result", false}, {"é", false},
	} {
		if got := foldsTo([]byte(`"`+c.name+`"`), userFields); got != c.want {
			t.Errorf("foldsTo(%q) = %v", c.name, got)
		}
	}
}

// TestCommonNames: every name commonName answers for (the cases of its
// switch, read from the source) folds to no field of any field set, so
// foldsTo's early false is the answer it would give after its loop; and
// commonName answers for each of them.
func TestCommonNames(t *testing.T) {
	src, err := os.ReadFile("linefast.go")
	if err != nil {
		t.Fatal(err)
	}
	body := string(src)
	start := strings.Index(body, "func commonName(")
	end := strings.Index(body[start:], "return true")
	if start < 0 || end < 0 {
		t.Fatal("commonName not found in linefast.go")
	}
	names := regexp.MustCompile("`(\"[^`]*\")`").FindAllStringSubmatch(body[start:start+end], -1)
	if len(names) < 10 || len(allFieldSets) < 10 {
		t.Fatalf("%d names, %d field sets", len(names), len(allFieldSets))
	}
	for _, m := range names {
		lit := []byte(m[1])
		if !commonName(lit) {
			t.Errorf("commonName(%s) = false", lit)
		}
		name := lit[1 : len(lit)-1]
		for _, fs := range allFieldSets {
			for _, f := range fs.names {
				if bytes.EqualFold(name, []byte(f)) {
					t.Errorf("common name %s folds to field %q of %v", lit, f, fs.names)
				}
			}
		}
	}
	if commonName([]byte(`"type"`)) || commonName([]byte(`"UUID"`)) {
		t.Error("commonName takes a field name or a folded common name")
	}
}
