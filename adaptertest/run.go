package adaptertest

import (
	"reflect"
	"strings"

	"github.com/agentwire/agentwire/driver"
)

// CheckRun validates the RunEvent sequence of one run against the response
// it produced: clauses RUN-01 to RUN-04 and, for every item event, TRN-01 to
// TRN-04. Violations carry the index of the offending event; a mismatch
// between the item events and Response.Transcript (RUN-04) carries the index
// of the first differing item event, or -1 when one list is a prefix of the
// other.
func CheckRun(events []driver.RunEvent, resp driver.Response) Violations {
	var c collector
	var items []driver.TranscriptItem
	var itemAt []int
	var chunks [2]strings.Builder
	var sawChunk [2]bool
	for i, ev := range events {
		if ev.Seq != 0 {
			c.add("RUN-03", i, "%s event sets Seq %d; the host assigns it", ev.Type, ev.Seq)
		}
		switch ev.Type {
		case driver.RunEventChunk:
			switch ev.Stream {
			case driver.StreamStdout:
				chunks[0].Write(ev.Bytes)
				sawChunk[0] = true
			case driver.StreamStderr:
				chunks[1].Write(ev.Bytes)
				sawChunk[1] = true
			default:
				c.add("RUN-01", i, "chunk event names stream %q; only stdout and stderr exist", ev.Stream)
			}
		case driver.RunEventItem:
			if ev.Item == nil {
				c.add("RUN-02", i, "item event without an Item")
				continue
			}
			checkItem(&c, i, *ev.Item)
			items = append(items, *ev.Item)
			itemAt = append(itemAt, i)
		case driver.RunEventInvocation, driver.RunEventSpawn, driver.RunEventRuntime, driver.RunEventLifecycle:
		default:
			c.add("RUN-01", i, "unknown event type %q", ev.Type)
		}
	}
	if raw := resp.RawStreams; raw != nil {
		for s, want := range [2]string{raw.Stdout, raw.Stderr} {
			if sawChunk[s] && chunks[s].String() != want {
				name := [2]string{"stdout", "stderr"}[s]
				c.add("RUN-01", -1, "%s chunks (%d bytes) differ from RawStreams.%s (%d bytes): raw bytes must be identical",
					name, chunks[s].Len(), strings.ToUpper(name[:1])+name[1:], len(want))
			}
		}
	}
	n := min(len(items), len(resp.Transcript))
	for j := range n {
		if !reflect.DeepEqual(items[j], resp.Transcript[j]) {
			c.add("RUN-04", itemAt[j], "item event %d (%s) differs from Response.Transcript[%d] (%s)", j, items[j].Kind, j, resp.Transcript[j].Kind)
			return c.out
		}
	}
	if len(items) != len(resp.Transcript) {
		c.add("RUN-04", -1, "%d item events but %d transcript items: the transcript must mirror the emitted items", len(items), len(resp.Transcript))
	}
	return c.out
}

// CheckTranscript applies the TRN clauses to every item of a transcript;
// violations carry the item index.
func CheckTranscript(items []driver.TranscriptItem) Violations {
	var c collector
	for i, it := range items {
		checkItem(&c, i, it)
	}
	return c.out
}

var textRequired = map[driver.TranscriptKind]bool{
	driver.TranscriptAssistant: true, driver.TranscriptThinking: true, driver.TranscriptUser: true,
	driver.TranscriptStdout: true, driver.TranscriptStderr: true, driver.TranscriptSystem: true,
	driver.TranscriptSummary: true, driver.TranscriptQuestion: true, driver.TranscriptFailure: true,
}

func checkItem(c *collector, i int, it driver.TranscriptItem) {
	switch it.Kind {
	case driver.TranscriptToolCall:
		if it.ToolName == "" {
			c.add("TRN-02", i, "tool_call item without a ToolName")
		}
	case driver.TranscriptToolResult:
		if it.ToolUseID == "" {
			c.add("TRN-03", i, "tool_result item without a ToolUseID")
		}
	case driver.TranscriptInit, driver.TranscriptResult:
	default:
		if !textRequired[it.Kind] {
			c.add("TRN-01", i, "unknown transcript kind %q", it.Kind)
			return
		}
		if it.Text == "" {
			c.add("TRN-01", i, "%s item without Text", it.Kind)
		}
	}
	if it.Delta && it.Kind != driver.TranscriptAssistant && it.Kind != driver.TranscriptThinking {
		c.add("TRN-04", i, "%s item marked Delta; only assistant and thinking items may be deltas", it.Kind)
	}
}
