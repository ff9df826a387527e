package appserver

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/jsonrpc"
)

// checkFastItem decodes the item of line (a JSON-RPC notification whose
// params may hold an "item") with fastItem and with jsonguard.Unmarshal:
// whenever fastItem does not give up, Unmarshal succeeds with an equal
// item. It reports whether line is a notification with an item, and
// whether fastItem decoded it.
func checkFastItem(t *testing.T, line []byte) (found, decoded bool) {
	t.Helper()
	f, err := jsonrpc.NewReader(bytes.NewReader(line), jsonrpc.Options{}).Next()
	if err != nil || f.Class != jsonrpc.Notification {
		return false, false
	}
	var item []byte
	f.Members(f.Params, func(name, v []byte) bool {
		if string(name) == "item" {
			item = v
		}
		return true
	})
	if item == nil {
		return false, false
	}
	p := New(nil, Options{})
	var fast wireItem
	if !p.fastItem(&f, item, &fast) {
		return true, false
	}
	var slow wireItem
	if err := jsonguard.Unmarshal(item, &slow, 0); err != nil {
		t.Fatalf("fastItem decoded what Unmarshal rejects (%v): %s", err, item)
	}
	// The pointers lead into fast itself: compare what they point at.
	fast.AggregatedOutput, fast.ExitCode = clone(fast.AggregatedOutput), clone(fast.ExitCode)
	fast.DurationMs, fast.Success = clone(fast.DurationMs), clone(fast.Success)
	fast.aggOut, fast.exitCode, fast.duration, fast.success = "", 0, 0, false
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fastItem and Unmarshal differ on %s:\nfast %+v\nslow %+v", item, fast, slow)
	}
	return true, true
}

// TestFastItem holds fastItem to Unmarshal on every item of the corpus
// and on the shapes it must give up on or handle.
func TestFastItem(t *testing.T) {
	n, fast := 0, 0
	for _, c := range corpusCases(t) {
		for _, l := range strings.Split(c.stdout, "\n") {
			found, ok := checkFastItem(t, []byte(l))
			if found {
				n++
			}
			if ok {
				fast++
			}
		}
	}
	if n == 0 || fast < n {
		t.Fatalf("fastItem decoded %d of %d corpus items", fast, n)
	}
	for _, c := range []struct {
		item string
		fast bool
	}{
		{`{"type":"commandExecution","id":"c1","status":"completed","aggregatedOutput":"a\n","exitCode":-3,"durationMs":12,"command":["ls"],"success":true}`, true},
		{`{"type":"agentMessage","id":"m\u00e91","text":"x\ud800y","phase":null,"content":null,"extra":{"a":[1]}}`, true},
		{`{"Type":"agentMessage","id":"m1"}`, false},            // case variant: the decoder matches it
		{`{"type":"agentMessage","type":"x","id":"m1"}`, false}, // duplicate: the last wins
		{`{"type":"a","id":"m1","t\u0065xt":"x"}`, false},       // escaped name
		{`{"type":"a","id":"m1","text":3}`, false},              // wrong type
		{`{"type":"a","id":"m1","exitCode":1.5}`, false},
		{`{"type":"a","id":"m1","exitCode":1e2}`, false},
		{`{"type":"a","id":"m1","success":0}`, false},
		{`{}`, true},
	} {
		line := `{"method":"item/started","params":{"item":` + c.item + `,"threadId":"t"}}`
		if _, got := checkFastItem(t, []byte(line)); got != c.fast {
			t.Errorf("%s: fast %v, want %v", c.item, got, c.fast)
		}
	}
}

// FuzzFastItem holds fastItem to Unmarshal on any item.
func FuzzFastItem(f *testing.F) {
	f.Add([]byte(`{"type":"commandExecution","id":"c1","status":"completed","aggregatedOutput":"a\n","exitCode":0,"durationMs":12,"command":"ls","cwd":"/w"}`))
	f.Add([]byte(`{"type":"agentMessage","id":"m1","text":"hi","phase":"final_answer"}`))
	f.Add([]byte(`{"type":"reasoning","id":"r1","summary":["a"],"content":[]}`))
	f.Fuzz(func(t *testing.T, item []byte) {
		if bytes.ContainsAny(item, "\r\n") {
			return
		}
		line := append(append([]byte(`{"method":"item/started","params":{"item":`), item...), `}}`...)
		checkFastItem(t, line)
	})
}

func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// TestItemField holds itemNames.match to wireItemNames: every field's
// own name is exact, its upper-case form a case variant (0), and other
// names are skipped (-1) or not, as the decoder would match them.
func TestItemField(t *testing.T) {
	if len(wireItemNames) != fiCount {
		t.Fatalf("%d names for %d fields", len(wireItemNames), fiCount)
	}
	for i, n := range wireItemNames {
		if k, exact := itemNames.match([]byte(n)); k != i || !exact {
			t.Errorf("match(%q) = %d, %v; want %d, true", n, k, exact, i)
		}
		if k, exact := itemNames.match([]byte(strings.ToUpper(n))); k != 0 || exact {
			t.Errorf("match(%q) = %d, %v; want 0, false", strings.ToUpper(n), k, exact)
		}
	}
	for name, want := range map[string]int{"startedAtMs": -1, "pluginId": -1, "ids": -1,
		"t\\u0065xt": 0, "\u212aind": 0, strings.Repeat("x", 30): -1, strings.Repeat("x", 29) + "\\": 0} {
		if k, exact := itemNames.match([]byte(name)); k != want || exact {
			t.Errorf("match(%q) = %d, %v; want %d, false", name, k, exact, want)
		}
	}
	for _, n := range []string{"commandActions", "memoryCitation", "completedAtMs"} {
		if k, exact := itemNames.match([]byte(n)); k != -1 || exact {
			t.Errorf("skip name: match(%q) = %d, %v; want -1, false", n, k, exact)
		}
	}
	for _, skip := range []string{"Status", "id"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("newFieldNames accepts the skip name %q of a field", skip)
				}
			}()
			newFieldNames([]string{"id", "status"}, skip)
		}()
	}
}

// checkFastUsage decodes the tokenUsage of line (a JSON-RPC notification
// whose params may hold one) with fastUsage and with jsonguard.Unmarshal:
// whenever fastUsage does not give up, Unmarshal succeeds with an equal
// value. It reports whether line has a tokenUsage, and whether fastUsage
// decoded it.
func checkFastUsage(t *testing.T, line []byte) (found, decoded bool) {
	t.Helper()
	f, err := jsonrpc.NewReader(bytes.NewReader(line), jsonrpc.Options{}).Next()
	if err != nil || f.Class != jsonrpc.Notification {
		return false, false
	}
	var v []byte
	f.Members(f.Params, func(name, val []byte) bool {
		if string(name) == "tokenUsage" {
			v = val
		}
		return true
	})
	if v == nil {
		return false, false
	}
	p := New(nil, Options{})
	fast := p.fastUsage(&f, v)
	if fast == nil {
		return true, false
	}
	var slow wireTokenUsage
	if err := jsonguard.Unmarshal(v, &slow, 0); err != nil {
		t.Fatalf("fastUsage decoded what Unmarshal rejects (%v): %s", err, v)
	}
	if !reflect.DeepEqual(*fast, slow) {
		t.Fatalf("fastUsage and Unmarshal differ on %s:\nfast %+v\nslow %+v", v, fast, slow)
	}
	return true, true
}

// TestFastUsage holds fastUsage to Unmarshal on every tokenUsage of the
// corpus and on the shapes it must give up on or handle.
func TestFastUsage(t *testing.T) {
	n, fast := 0, 0
	for _, c := range corpusCases(t) {
		for _, l := range strings.Split(c.stdout, "\n") {
			found, ok := checkFastUsage(t, []byte(l))
			if found {
				n++
			}
			if ok {
				fast++
			}
		}
	}
	if n == 0 || fast < n {
		t.Fatalf("fastUsage decoded %d of %d corpus usages", fast, n)
	}
	for _, c := range []struct {
		usage string
		fast  bool
	}{
		{`{"total":{"totalTokens":3,"inputTokens":2,"cachedInputTokens":0,"cacheWriteInputTokens":0,"outputTokens":1,"reasoningOutputTokens":-1},"last":null,"modelContextWindow":258400}`, true},
		{`{"total":null,"last":{"totalTokens":null,"extra":[1]}}`, true},
		{`{"total":{"x\u00e9":1}}`, false},
		{`{}`, true},
		{`{"Total":{"totalTokens":1}}`, false},                           // case variant: the decoder matches it
		{`{"total":{"totalTokens":1},"total":{"inputTokens":2}}`, false}, // duplicate: the last wins
		{`{"total":{"totaltokens":1}}`, false},
		{`{"total":{"t\u006ftalTokens":1}}`, false}, // escaped name
		{`{"total":{"totalTokens":1.0}}`, false},
		{`{"total":{"totalTokens":1e3}}`, false},
		{`{"total":{"totalTokens":"1"}}`, false}, // wrong type
		{`{"total":{"totalTokens":1234567890123456789}}`, false},
		{`{"total":[]}`, false},
		{`[]`, false},
	} {
		line := `{"method":"thread/tokenUsage/updated","params":{"threadId":"t","tokenUsage":` + c.usage + `}}`
		if _, got := checkFastUsage(t, []byte(line)); got != c.fast {
			t.Errorf("%s: fast %v, want %v", c.usage, got, c.fast)
		}
	}
}

// FuzzFastUsage holds fastUsage to Unmarshal on any tokenUsage.
func FuzzFastUsage(f *testing.F) {
	f.Add([]byte(`{"total":{"totalTokens":220,"inputTokens":200,"cachedInputTokens":0,"cacheWriteInputTokens":0,"outputTokens":20,"reasoningOutputTokens":0},"last":{"totalTokens":220,"inputTokens":200,"cachedInputTokens":0,"cacheWriteInputTokens":0,"outputTokens":20,"reasoningOutputTokens":0},"modelContextWindow":258400}`))
	f.Add([]byte(`{"total":null,"last":{"TotalTokens":1}}`))
	f.Fuzz(func(t *testing.T, usage []byte) {
		if bytes.ContainsAny(usage, "\r\n") {
			return
		}
		line := append(append([]byte(`{"method":"thread/tokenUsage/updated","params":{"tokenUsage":`), usage...), `}}`...)
		checkFastUsage(t, line)
	})
}
