package codex

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/ndjson"
)

// itemPlan is one generated item: its lines in order.
type itemPlan struct {
	id, typ   string
	lines     []string
	completes bool
}

func genItem(t *rapid.T, i int) itemPlan {
	id := fmt.Sprintf("item_%d", i)
	typ := rapid.SampledFrom([]string{"command_execution", "file_change", "mcp_tool_call", "web_search", "agent_message", "reasoning", "todo_list", "collab_tool_call"}).Draw(t, "type")
	body := map[string]string{
		"command_execution": `"command":"ls","aggregated_output":"out","exit_code":{EXIT},"status":"{STATUS}"`,
		"file_change":       `"changes":[{"path":"/f","kind":"update"}],"status":"{STATUS}"`,
		"mcp_tool_call":     `"server":"s","tool":"t","arguments":{"a":1},"result":null,"error":null,"status":"{STATUS}"`,
		"web_search":        `"query":"q","action":{"type":"search"}`,
		"agent_message":     `"text":"msg {ID}"`,
		"reasoning":         `"text":"think {ID}"`,
		"todo_list":         `"items":[{"text":"a","completed":false}]`,
		"collab_tool_call":  `"tool":"spawn_agent","status":"{STATUS}"`,
	}[typ]
	line := func(ev, exit, status string) string {
		return `{"type":"` + ev + `","item":{"id":"` + id + `","type":"` + typ + `",` + strings.NewReplacer("{EXIT}", exit, "{STATUS}", status, "{ID}", id).Replace(body) + `}}`
	}
	p := itemPlan{id: id, typ: typ}
	streamed := typ != "agent_message" && typ != "reasoning"
	if streamed && rapid.Bool().Draw(t, "started") {
		p.lines = append(p.lines, line("item.started", "null", "in_progress"))
		for range rapid.IntRange(0, 2).Draw(t, "updates") {
			p.lines = append(p.lines, line("item.updated", "null", "in_progress"))
		}
	}
	if !streamed || rapid.IntRange(0, 4).Draw(t, "complete") > 0 {
		status := rapid.SampledFrom([]string{"completed", "failed", "declined"}).Draw(t, "status")
		p.lines = append(p.lines, line("item.completed", "0", status))
		p.completes = true
	}
	return p
}

// TestPropInterleavings: random interleavings of item lifecycles (each
// item's own events in order), optionally cut off, under random chunking:
// zero violations; one tool_call.start per tool item and a tool_call.end
// with a Result per completed one; a valid checkpoint exactly when the
// stream is whole and every item completed.
func TestPropInterleavings(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 8).Draw(t, "items")
		plans := make([]itemPlan, n)
		cursor := make([]int, n)
		total := 0
		for i := range plans {
			plans[i] = genItem(t, i)
			total += len(plans[i].lines)
		}
		out := []string{lThread, lTurn}
		for range total {
			var ready []int
			for i := range plans {
				if cursor[i] < len(plans[i].lines) {
					ready = append(ready, i)
				}
			}
			i := rapid.SampledFrom(ready).Draw(t, "next")
			out = append(out, plans[i].lines[cursor[i]])
			cursor[i]++
		}
		allComplete := true
		for _, p := range plans {
			allComplete = allComplete && p.completes
		}
		cut := rapid.Bool().Draw(t, "cut")
		if !cut {
			out = append(out, lDone)
		} else {
			out = out[:rapid.IntRange(0, len(out)).Draw(t, "cut_at")]
		}
		stdout := strings.Join(out, "\n")
		if len(out) > 0 {
			stdout += "\n"
		}
		seed := rapid.Uint64().Draw(t, "chunk_seed")
		r, v := run(stdout, "", Options{Streaming: true}, Outcome{}, chunkings(seed)[3].Mk)
		if len(v) > 0 {
			t.Fatalf("violations:\n%s\n%s", v, stdout)
		}
		starts, ends := map[string]int{}, map[string]int{}
		for _, p := range r.Payloads {
			switch p.Kind {
			case driver.StreamToolCallStart:
				starts[p.ToolCallID]++
			case driver.StreamToolCallEnd:
				if p.Result != nil {
					ends[p.ToolCallID]++
				}
			}
		}
		for i, p := range plans {
			switch p.typ {
			case "command_execution", "file_change", "mcp_tool_call", "web_search":
			default:
				continue
			}
			seen := cursor[i]
			if cut {
				seen = strings.Count(stdout, `"id":"`+p.id+`"`)
			}
			if seen > 0 && starts[p.id] != 1 {
				t.Fatalf("%s: %d starts", p.id, starts[p.id])
			}
			completedSeen := strings.Contains(stdout, `{"type":"item.completed","item":{"id":"`+p.id+`"`)
			if completedSeen != (ends[p.id] == 1) {
				t.Fatalf("%s: completed %v, ends with result %d", p.id, completedSeen, ends[p.id])
			}
		}
		valid := r.Response.Checkpoint != nil && r.Response.Checkpoint.Valid
		if valid != !cut {
			t.Fatalf("checkpoint valid %v, cut %v, all complete %v (%v)", valid, cut, allComplete, r.Response.Metadata)
		}
	})
}

// TestPropCountsSameStream: the parser keeps the lifecycle counts of its
// ids for the Emitter (counts, emit.Counts); on random streams of item
// events that reuse few ids across types and phases (reuse after
// completion, type changes between text, reasoning and tool items,
// interleaved items), it emits what a parser whose Emitter keeps its own
// record emits, with no violation.
func TestPropCountsSameStream(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bodies := map[string]string{
			"command_execution": `"command":"ls","aggregated_output":"out","exit_code":0,"status":"completed"`,
			"mcp_tool_call":     `"server":"s","tool":"t","arguments":{"a":1},"status":"completed"`,
			"agent_message":     `"text":"msg"`,
			"reasoning":         `"text":"think"`,
			"todo_list":         `"items":[{"text":"a","completed":false}]`,
		}
		types := []string{"command_execution", "mcp_tool_call", "agent_message", "reasoning", "todo_list"}
		ls := []string{lThread, lTurn}
		for range rapid.IntRange(0, 30).Draw(t, "lines") {
			id := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "id")
			typ := rapid.SampledFrom(types).Draw(t, "type")
			ev := rapid.SampledFrom([]string{"item.started", "item.updated", "item.completed"}).Draw(t, "event")
			ls = append(ls, `{"type":"`+ev+`","item":{"id":"`+id+`","type":"`+typ+`",`+bodies[typ]+`}}`)
		}
		if rapid.Bool().Draw(t, "done") {
			ls = append(ls, lDone)
		}
		stream := lines(ls...)
		parse := func(own bool) (result, adaptertest.Violations) {
			sink := &adaptertest.RecordingSink{}
			p := New(sink, Options{Streaming: true})
			if own {
				p.em = emit.New(sink, true, Capability)
			}
			r := ndjson.NewReader(strings.NewReader(stream), ndjson.Options{})
			for {
				f, err := r.Next()
				if err != nil {
					break
				}
				if err := p.Feed(f); err != nil {
					t.Fatal(err)
				}
			}
			resp, err := p.Finish(Outcome{})
			return result{Payloads: sink.Payloads, Items: sink.Items(), Response: resp}, sink.Check(true, Capability, resp, err, Codec)
		}
		want, _ := parse(true)
		got, v := parse(false)
		if len(v) > 0 {
			t.Fatalf("violations:\n%s", v)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("the parser's counts change the parse (-own record +counts):\n%s", d)
		}
	})
}
