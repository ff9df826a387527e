package codex

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/agentwire/agentwire/adaptertest"
)

// TestUnpaired: Options.Unpaired reports an item started before the
// terminal and never completed, whatever records the completion: the
// parser's item state for a known item under its wire id, the pairing's
// own set for the others (an unknown type, an item without an id), and a
// completion that comes before the start. The cases hold the pairing to
// what it was when every completion went into its own set.
func TestUnpaired(t *testing.T) {
	const (
		cmdStart = `{"type":"item.started","item":{"id":"c","type":"command_execution","command":"ls","status":"in_progress"}}`
		cmdDone  = `{"type":"item.completed","item":{"id":"c","type":"command_execution","command":"ls","aggregated_output":"","exit_code":0,"status":"completed"}}`
		cmdOther = `{"type":"item.started","item":{"id":"d","type":"command_execution","command":"ls","status":"in_progress"}}`
		newStart = `{"type":"item.started","item":{"id":"p","type":"plan","text":"x"}}`
		newDone  = `{"type":"item.completed","item":{"id":"p","type":"plan","text":"x"}}`
		anonOpen = `{"type":"item.started","item":{"type":"command_execution","command":"ls","status":"in_progress"}}`
		anonDone = `{"type":"item.completed","item":{"type":"command_execution","command":"ls","status":"completed"}}`
	)
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"whole", []string{lThread, lTurn, cmdStart, cmdDone, lMsg, lDone}, nil},
		{"completion removed", []string{lThread, lTurn, cmdStart, lMsg, lDone}, []string{"item c (command_execution) started but never completed"}},
		{"another item completed", []string{lThread, lTurn, cmdStart, cmdOther, cmdDone, lDone}, []string{"item d (command_execution) started but never completed"}},
		{"completed before started", []string{lThread, lTurn, cmdDone, lMsg, cmdStart, lDone}, nil},
		// A line after the terminal is malformed, not fed to the pairing.
		{"completed after the terminal", []string{lThread, lTurn, cmdStart, lMsg, lDone, cmdDone}, []string{"item c (command_execution) started but never completed"}},
		{"unknown type", []string{lThread, lTurn, newStart, cmdStart, newDone, cmdDone, lDone}, nil},
		{"unknown type not completed", []string{lThread, lTurn, newStart, cmdStart, cmdDone, lDone}, []string{"item p (plan) started but never completed"}},
		{"without an id", []string{lThread, lTurn, anonOpen, lMsg, anonDone, lDone}, nil},
		{"without an id, not completed", []string{lThread, lTurn, anonOpen, lMsg, lDone}, []string{"item  (command_execution) started but never completed"}},
	} {
		var got []string
		opts := Options{Streaming: true, Unpaired: func(_ int64, _ int, msg string) { got = append(got, msg) }}
		if _, err := Parse(strings.NewReader(lines(tc.lines...)), nil, &adaptertest.RecordingSink{}, opts, Outcome{}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: Unpaired %q, want %q", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], tc.want[i]) {
				t.Errorf("%s: Unpaired %q, want %q", tc.name, got[i], tc.want[i])
			}
		}
	}
}

// TestPropUnpairedItems: on random streams of command and message items
// (few ids, started twice, completed before started, never completed,
// the terminal anywhere, lines after it), Unpaired reports exactly the
// item.started lines before the terminal whose id no item.completed
// before the terminal names, in order, and only when a terminal came:
// what Finish finds of the started items (pairs.forget drops the ones
// completed right after).
func TestPropUnpairedItems(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ls := []string{lThread, lTurn}
		type start struct {
			id   string
			line int
		}
		var starts []start
		completed := map[string]bool{}
		terminal := false
		for range rapid.IntRange(0, 40).Draw(t, "lines") {
			id := rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f"}).Draw(t, "id")
			switch rapid.IntRange(0, 6).Draw(t, "event") {
			case 0, 1:
				ls = append(ls, `{"type":"item.started","item":{"id":"`+id+`","type":"command_execution","command":"ls","status":"in_progress"}}`)
				if !terminal {
					starts = append(starts, start{id, len(ls)})
				}
			case 2, 3:
				ls = append(ls, `{"type":"item.completed","item":{"id":"`+id+`","type":"command_execution","command":"ls","aggregated_output":"","exit_code":0,"status":"completed"}}`)
				if !terminal {
					completed[id] = true
				}
			case 4:
				ls = append(ls, `{"type":"item.completed","item":{"id":"`+id+`","type":"agent_message","text":"x"}}`)
				if !terminal {
					completed[id] = true
				}
			case 5:
				ls = append(ls, `{"type":"item.updated","item":{"id":"`+id+`","type":"command_execution","command":"ls","status":"in_progress"}}`)
			case 6:
				ls = append(ls, lDone)
				terminal = true
			}
		}
		var want []string
		if terminal {
			for _, s := range starts {
				if !completed[s.id] {
					want = append(want, fmt.Sprintf("%d item %s (command_execution) started but never completed, though the turn ended", s.line, s.id))
				}
			}
		}
		var got []string
		opts := Options{Streaming: true, Unpaired: func(_ int64, line int, msg string) {
			if strings.Contains(msg, "never completed") {
				got = append(got, fmt.Sprint(line, " ", msg))
			}
		}}
		if _, err := Parse(strings.NewReader(lines(ls...)), nil, nopSink{}, opts, Outcome{}); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("unpaired items (-want +got):\n%s", d)
		}
	})
}
