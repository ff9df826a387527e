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
	if !p.fastItem(f, item, &fast) {
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
