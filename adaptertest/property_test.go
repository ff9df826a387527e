package adaptertest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agentwire/agentwire/driver"
)

// genStream draws a conforming stream from the lifecycle grammar: random
// capability, a random set of lifecycles of every kind the capability allows
// (text, reasoning, tool calls with streamed or complete args and optional
// results, nested steps, HITL pairs, drop reports, custom kinds), in random
// scopes, randomly interleaved, between run.started and a random terminal.
func genStream(t *rapid.T) (driver.StreamCapability, []driver.StreamPayload) {
	capability := driver.StreamCapability{
		Native:       rapid.Bool().Draw(t, "native"),
		TokenLevel:   rapid.Bool().Draw(t, "token_level"),
		Reasoning:    rapid.Bool().Draw(t, "reasoning"),
		ToolCallArgs: rapid.Bool().Draw(t, "tool_call_args"),
		HITL:         rapid.Bool().Draw(t, "hitl"),
	}
	n := rapid.IntRange(0, 8).Draw(t, "lifecycles")
	var scripts [][]driver.StreamPayload
	for i := range n {
		id := fmt.Sprintf("id%d", i)
		scope := rapid.SampledFrom([]string{"", "", "sub"}).Draw(t, "scope")
		in := func(p driver.StreamPayload) driver.StreamPayload { p.ScopeID = scope; return p }
		deltas := rapid.IntRange(0, 3).Draw(t, "deltas")
		var s []driver.StreamPayload
		switch rapid.IntRange(0, 7).Draw(t, "kind") {
		case 0:
			s = append(s, in(textStart(id)))
			for d := range deltas {
				s = append(s, in(textContent(id, fmt.Sprint("d", d))))
			}
			s = append(s, in(textEnd(id)))
		case 1:
			if !capability.Reasoning {
				continue
			}
			s = append(s, in(reasonStart(id)))
			for d := range deltas {
				s = append(s, in(reasonContent(id, fmt.Sprint("r", d))))
			}
			s = append(s, in(reasonEnd(id)))
		case 2:
			streamed := capability.ToolCallArgs && rapid.Bool().Draw(t, "streamed_args")
			if streamed {
				s = append(s, in(toolStart(id, "shell")))
				for d := range deltas {
					s = append(s, in(toolArgs(id, fmt.Sprint("a", d))))
				}
			} else {
				s = append(s, in(toolStartArgs(id, "shell")))
			}
			end := in(toolEnd(id))
			switch rapid.IntRange(0, 2).Draw(t, "result") {
			case 0:
				s = append(s, end)
			case 1:
				s = append(s, end, in(toolResult(id)))
			case 2:
				s = append(s, in(toolResult(id)), end)
			}
		case 3:
			name := rapid.SampledFrom([]string{"plan", "plan", "act"}).Draw(t, "step")
			s = append(s, stepStarted(name), stepFinished(name))
		case 4:
			if !capability.HITL {
				continue
			}
			s = append(s, hitlRequested(), hitlResolved())
		case 5:
			s = append(s, dropped())
		case 6:
			s = append(s, custom())
		case 7: // coarse text: one whole-message delta
			s = append(s, in(textStart(id)), in(textContent(id, "whole")), in(textEnd(id)))
		}
		scripts = append(scripts, s)
	}
	out := []driver.StreamPayload{runStarted()}
	for {
		var live []int
		for i, s := range scripts {
			if len(s) > 0 {
				live = append(live, i)
			}
		}
		if len(live) == 0 {
			break
		}
		i := live[rapid.IntRange(0, len(live)-1).Draw(t, "next")]
		out = append(out, scripts[i][0])
		scripts[i] = scripts[i][1:]
	}
	if rapid.Bool().Draw(t, "error_terminal") {
		out = append(out, runError("failed"))
	} else {
		out = append(out, runFinished())
	}
	return capability, out
}

func TestPropertyGrammarConforms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		capability, ps := genStream(t)
		if vs := CheckStream(capability, ps); len(vs) != 0 {
			t.Fatalf("false positive on a grammar-valid stream:\n%s\nstream: %v", vs, kinds(ps))
		}
	})
}

func kinds(ps []driver.StreamPayload) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p.Kind) + ":" + p.ScopeID + "/" + p.MessageID + p.ToolCallID + p.Name
	}
	return out
}

type mutation struct {
	name string
	// apply returns the mutated stream and capability and the clause that
	// must be reported, or ok=false when the mutation does not apply.
	apply func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool)
}

func family(k driver.StreamKind) (fam string, clause string) {
	switch k {
	case driver.StreamTextStart, driver.StreamTextContent, driver.StreamTextEnd:
		return "text", "EVT-03"
	case driver.StreamReasoningStart, driver.StreamReasoningContent, driver.StreamReasoningEnd:
		return "reasoning", "EVT-06"
	case driver.StreamToolCallStart, driver.StreamToolCallArgs, driver.StreamToolCallEnd, driver.StreamToolCallResult:
		return "tool", "EVT-05"
	}
	return "", ""
}

func sameLife(a, b driver.StreamPayload) bool {
	fa, _ := family(a.Kind)
	fb, _ := family(b.Kind)
	return fa != "" && fa == fb && a.ScopeID == b.ScopeID && a.MessageID == b.MessageID && a.ToolCallID == b.ToolCallID
}

// pick draws one index among those satisfying ok.
func pick(t *rapid.T, ps []driver.StreamPayload, ok func(driver.StreamPayload) bool) (int, bool) {
	var idx []int
	for i, p := range ps {
		if ok(p) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return 0, false
	}
	return idx[rapid.IntRange(0, len(idx)-1).Draw(t, "pick")], true
}

func insertBeforeTerminal(ps []driver.StreamPayload, add ...driver.StreamPayload) []driver.StreamPayload {
	return slices.Insert(slices.Clone(ps), len(ps)-1, add...)
}

var mutations = []mutation{
	{"drop an end", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		i, ok := pick(t, ps, func(p driver.StreamPayload) bool {
			return p.Kind == driver.StreamTextEnd || p.Kind == driver.StreamReasoningEnd || p.Kind == driver.StreamToolCallEnd || p.Kind == driver.StreamStepFinished
		})
		return c, slices.Delete(slices.Clone(ps), i, i+1), "EVT-11", ok
	}},
	{"duplicate the terminal", func(_ *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		return c, append(slices.Clone(ps), ps[len(ps)-1]), "EVT-02", true
	}},
	{"emit after the terminal", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		i := rapid.IntRange(0, len(ps)-2).Draw(t, "late")
		return c, append(slices.Clone(ps), ps[i]), "EVT-02", true
	}},
	{"drop the terminal", func(_ *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		return c, slices.Clone(ps[:len(ps)-1]), "EVT-02", true
	}},
	{"drop run.started", func(_ *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		return c, slices.Clone(ps[1:]), "EVT-01", true
	}},
	{"second run.started", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		at := rapid.IntRange(1, len(ps)-1).Draw(t, "at")
		return c, slices.Insert(slices.Clone(ps), at, runStarted()), "EVT-01", true
	}},
	{"reopen a closed id", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		i, ok := pick(t, ps, func(p driver.StreamPayload) bool {
			return p.Kind == driver.StreamTextStart || p.Kind == driver.StreamReasoningStart || p.Kind == driver.StreamToolCallStart
		})
		if !ok {
			return c, nil, "", false
		}
		_, clause := family(ps[i].Kind)
		return c, insertBeforeTerminal(ps, ps[i]), clause, true
	}},
	{"content before start", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		i, ok := pick(t, ps, func(p driver.StreamPayload) bool {
			return p.Kind == driver.StreamTextContent || p.Kind == driver.StreamReasoningContent || p.Kind == driver.StreamToolCallArgs || p.Kind == driver.StreamTextEnd || p.Kind == driver.StreamToolCallEnd
		})
		if !ok {
			return c, nil, "", false
		}
		start := slices.IndexFunc(ps, func(p driver.StreamPayload) bool { return sameLife(p, ps[i]) })
		out := slices.Clone(ps)
		moved := out[i]
		out = slices.Delete(out, i, i+1)
		out = slices.Insert(out, start, moved)
		_, clause := family(moved.Kind)
		return c, out, clause, true
	}},
	{"non-zero sequence fields", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		i := rapid.IntRange(0, len(ps)-1).Draw(t, "i")
		out := slices.Clone(ps)
		switch rapid.IntRange(0, 2).Draw(t, "field") {
		case 0:
			out[i].Seq = 1
		case 1:
			out[i].Sequence = 9
		case 2:
			out[i].Timestamp = time.Unix(1, 0)
		}
		return c, out, "EVT-10", true
	}},
	{"role user", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		i := rapid.IntRange(0, len(ps)-1).Draw(t, "i")
		out := slices.Clone(ps)
		out[i].Role = driver.RoleUser
		return c, out, "EVT-09", true
	}},
	{"withdraw a used capability", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		i, ok := pick(t, ps, func(p driver.StreamPayload) bool {
			switch p.Kind {
			case driver.StreamReasoningStart, driver.StreamToolCallArgs, driver.StreamHITLRequested:
				return true
			}
			return false
		})
		switch ps[i].Kind {
		case driver.StreamReasoningStart:
			c.Reasoning = false
		case driver.StreamToolCallArgs:
			c.ToolCallArgs = false
		default:
			c.HITL = false
		}
		return c, ps, "EVT-12", ok
	}},
	{"emit a forbidden family", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		var add []driver.StreamPayload
		switch {
		case !c.Reasoning:
			add = []driver.StreamPayload{reasonStart("forbidden"), reasonEnd("forbidden")}
		case !c.HITL:
			add = []driver.StreamPayload{hitlRequested()}
		case !c.ToolCallArgs:
			add = []driver.StreamPayload{toolStart("forbidden", "shell"), toolArgs("forbidden", "{}"), toolEnd("forbidden")}
		default:
			return c, nil, "", false
		}
		return c, insertBeforeTerminal(ps, add...), "EVT-12", true
	}},
	{"empty delta", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		i, ok := pick(t, ps, func(p driver.StreamPayload) bool {
			return p.Kind == driver.StreamTextContent || p.Kind == driver.StreamReasoningContent || p.Kind == driver.StreamToolCallArgs
		})
		if !ok {
			return c, nil, "", false
		}
		out := slices.Clone(ps)
		out[i].Delta = ""
		clause := map[driver.StreamKind]string{driver.StreamTextContent: "EVT-04", driver.StreamReasoningContent: "EVT-06", driver.StreamToolCallArgs: "EVT-05"}[out[i].Kind]
		return c, out, clause, true
	}},
	{"id on a run frame", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		out := slices.Clone(ps)
		i := rapid.SampledFrom([]int{0, len(out) - 1}).Draw(t, "frame")
		if rapid.Bool().Draw(t, "tool") {
			out[i].ToolCallID = "x"
		} else {
			out[i].MessageID = "x"
		}
		return c, out, "EVT-13", true
	}},
	{"result for an unknown tool", func(_ *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		return c, insertBeforeTerminal(ps, toolResult("never-started")), "EVT-05", true
	}},
	{"duplicate a tool result", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		i, ok := pick(t, ps, func(p driver.StreamPayload) bool { return p.Kind == driver.StreamToolCallResult })
		if !ok {
			return c, nil, "", false
		}
		return c, insertBeforeTerminal(ps, ps[i]), "EVT-14", true
	}},
	{"args after complete Args", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		i, ok := pick(t, ps, func(p driver.StreamPayload) bool { return p.Kind == driver.StreamToolCallStart && p.Args != nil })
		if !ok || !c.ToolCallArgs {
			return c, nil, "", false
		}
		a := toolArgs(ps[i].ToolCallID, "{}")
		a.ScopeID = ps[i].ScopeID
		return c, slices.Insert(slices.Clone(ps), i+1, a), "EVT-14", true
	}},
	{"blank kind", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		if len(ps) < 3 {
			return c, nil, "", false
		}
		i := rapid.IntRange(1, len(ps)-2).Draw(t, "i")
		out := slices.Clone(ps)
		out[i].Kind = rapid.SampledFrom([]driver.StreamKind{"", "todo", "/x"}).Draw(t, "bad_kind")
		return c, out, "EVT-08", true
	}},
	{"run.error without error", func(_ *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		out := slices.Clone(ps)
		out[len(out)-1] = driver.StreamPayload{Kind: driver.StreamRunError}
		return c, out, "EVT-02", true
	}},
	{"strip an envelope", func(t *rapid.T, c driver.StreamCapability, ps []driver.StreamPayload) (driver.StreamCapability, []driver.StreamPayload, string, bool) {
		i, ok := pick(t, ps, func(p driver.StreamPayload) bool {
			return p.Kind == driver.StreamHITLRequested || p.Kind == driver.StreamHITLResolved || p.Kind == driver.StreamDropped
		})
		if !ok {
			return c, nil, "", false
		}
		out := slices.Clone(ps)
		out[i].HITLRequested, out[i].HITLResolved, out[i].Raw = nil, nil, nil
		return c, out, "EVT-08", true
	}},
}

func TestPropertyMutationsCaught(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		capability, ps := genStream(t)
		m := rapid.SampledFrom(mutations).Draw(t, "mutation")
		c2, mutated, clause, ok := m.apply(t, capability, ps)
		if !ok {
			t.Skip("mutation does not apply")
		}
		vs := CheckStream(c2, mutated)
		if !vs.Has(clause) {
			t.Fatalf("mutation %q not caught as %s; got:\n%s\nstream: %v", m.name, clause, vs, kinds(mutated))
		}
	})
}
