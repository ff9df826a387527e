package adaptertest

import (
	"bytes"
	"crypto/sha256"
	"hash"
	"reflect"
	"strings"
	"unsafe"

	"github.com/agentwire/agentwire/driver"
)

// sameItem reports whether a and b are one item or shallow copies of one
// (every field equal, every map, slice, pointer and interface the same
// reference): a sufficient condition of reflect.DeepEqual that walks
// nothing. It is what RUN-04 meets on every item of a parser that emits
// the transcript's own items (internal/emit): the event's item is the
// transcript's, or, once the transcript outgrew the array it was in, a
// copy of it. TestSameItemFields fails when TranscriptItem gains a field
// this does not compare.
func sameItem(a, b *driver.TranscriptItem) bool {
	if a == b {
		return true
	}
	return a.ScopeID == b.ScopeID && a.ParentScopeID == b.ParentScopeID && a.ParentToolCallID == b.ParentToolCallID &&
		a.Kind == b.Kind && a.Text == b.Text && a.Delta == b.Delta && a.ToolUseID == b.ToolUseID && a.ToolName == b.ToolName &&
		sameRef(a.Input, b.Input) && a.IsError == b.IsError && a.Model == b.Model && a.SessionID == b.SessionID &&
		a.Usage == b.Usage && a.CostUSD == b.CostUSD && a.Subtype == b.Subtype &&
		len(a.Errors) == len(b.Errors) && unsafe.SliceData(a.Errors) == unsafe.SliceData(b.Errors) &&
		sameMap(a.Metadata, b.Metadata) && sameMap(a.Data, b.Data)
}

// sameMap reports whether a and b are the same map (both nil, or one
// reference), without reflect: a map value is one pointer.
func sameMap[K comparable, V any](a, b map[K]V) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}

// sameRef reports whether x and y are the same value of one type: the same
// reference for a map, pointer or slice (of the same length), equal for a
// comparable value. False is no verdict: the values may still be deeply
// equal.
func sameRef(x, y any) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	switch a := x.(type) {
	case map[string]any: // a decoded JSON object, the usual Input
		b, ok := y.(map[string]any)
		return ok && sameMap(a, b)
	case string:
		b, ok := y.(string)
		return ok && a == b
	}
	vx, vy := reflect.ValueOf(x), reflect.ValueOf(y)
	if vx.Type() != vy.Type() {
		return false
	}
	switch vx.Kind() {
	case reflect.Map, reflect.Pointer:
		return vx.UnsafePointer() == vy.UnsafePointer()
	case reflect.Slice:
		return vx.Len() == vy.Len() && vx.UnsafePointer() == vy.UnsafePointer()
	}
	return vx.Comparable() && vy.Comparable() && x == y
}

// CheckRun validates the RunEvent sequence of one run against the response
// it produced: clauses RUN-01 to RUN-04 and, for every item event, TRN-01 to
// TRN-04. Violations carry the index of the offending event; a mismatch
// between the item events and Response.Transcript (RUN-04) carries the index
// of the first differing item event, or -1 when one list is a prefix of the
// other. It is a Checker given the events alone.
func CheckRun(events []driver.RunEvent, resp driver.Response) Violations {
	var r runState
	for i := range events {
		r.event(i, &events[i])
	}
	r.finish(resp)
	return r.c.out
}

// runState is CheckRun's state between events: what RUN-01 needs of the
// chunks (their length and digest per stream, not their bytes) and what
// RUN-04 needs of the items (a reference to each, where it was emitted).
type runState struct {
	c        collector
	chunks   [2]hash.Hash
	chunkLen [2]int
	// items holds the item events in chunks (16 items, then twice as
	// many each time up to runChunk), each filled before the next is
	// made: a long run's items are allocated once, at their size (a slice
	// doubling to it would allocate twice that and copy it on the way);
	// nItems counts them.
	items   [][]runItem
	nItems  int
	noItems bool // RUN-04 is not judged (Checker.DiscardTranscript)
}

// runChunk is the largest of runState's chunks of items.
const runChunk = 4096

// runItem is what RUN-04 keeps of an item event: the item, the event's
// index and, when the collector places, its place.
type runItem struct {
	item *driver.TranscriptItem
	at   int
	pl   Place
}

func (r *runState) event(i int, ev *driver.RunEvent) {
	c := &r.c
	if ev.Seq != 0 {
		c.add("RUN-03", i, "%s event sets Seq %d; the host assigns it", ev.Type, ev.Seq)
	}
	switch ev.Type {
	case driver.RunEventChunk:
		s := -1
		switch ev.Stream {
		case driver.StreamStdout:
			s = 0
		case driver.StreamStderr:
			s = 1
		default:
			c.add("RUN-01", i, "chunk event names stream %q; only stdout and stderr exist", ev.Stream)
			return
		}
		if r.chunks[s] == nil {
			r.chunks[s] = sha256.New()
		}
		r.chunks[s].Write(ev.Bytes)
		r.chunkLen[s] += len(ev.Bytes)
	case driver.RunEventItem:
		if ev.Item == nil {
			c.add("RUN-02", i, "item event without an Item")
			return
		}
		checkItem(c, i, ev.Item)
		if r.noItems {
			return
		}
		it := runItem{item: ev.Item, at: i}
		if c.placing {
			it.pl = c.at
		}
		if k := len(r.items); k == 0 || len(r.items[k-1]) == cap(r.items[k-1]) {
			// The first chunk small (most runs have a few items), the
			// others runChunk.
			size := runChunk
			if k < 8 {
				size = 16 << k
			}
			r.items = append(r.items, make([]runItem, 0, size))
		}
		last := &r.items[len(r.items)-1]
		*last = append(*last, it)
		r.nItems++
	case driver.RunEventInvocation, driver.RunEventSpawn, driver.RunEventRuntime, driver.RunEventLifecycle:
	default:
		c.add("RUN-01", i, "unknown event type %q", ev.Type)
	}
}

func (r *runState) finish(resp driver.Response) {
	c := &r.c
	if raw := resp.RawStreams; raw != nil {
		for s, want := range [2]string{raw.Stdout, raw.Stderr} {
			if r.chunks[s] != nil && (r.chunkLen[s] != len(want) || !sameDigest(r.chunks[s], want)) {
				name := [2]string{"stdout", "stderr"}[s]
				c.add("RUN-01", -1, "%s chunks (%d bytes) differ from RawStreams.%s (%d bytes): raw bytes must be identical",
					name, r.chunkLen[s], strings.ToUpper(name[:1])+name[1:], len(want))
			}
		}
	}
	if r.noItems {
		return
	}
	j := 0
	for _, chunk := range r.items {
		for k := range chunk {
			if j == len(resp.Transcript) {
				break
			}
			it := &chunk[k]
			if !sameItem(it.item, &resp.Transcript[j]) && !reflect.DeepEqual(*it.item, resp.Transcript[j]) {
				if c.placing {
					c.at = it.pl
				}
				c.add("RUN-04", it.at, "item event %d (%s) differs from Response.Transcript[%d] (%s)", j, it.item.Kind, j, resp.Transcript[j].Kind)
				return
			}
			j++
		}
	}
	if r.nItems != len(resp.Transcript) {
		c.add("RUN-04", -1, "%d item events but %d transcript items: the transcript must mirror the emitted items", r.nItems, len(resp.Transcript))
	}
}

// sameDigest reports whether h holds the SHA-256 of s, hashing s in pieces
// so that a long stream is not copied whole.
func sameDigest(h hash.Hash, s string) bool {
	w := sha256.New()
	var buf [32 << 10]byte
	for len(s) > 0 {
		n := copy(buf[:], s)
		w.Write(buf[:n])
		s = s[n:]
	}
	return bytes.Equal(h.Sum(nil), w.Sum(nil))
}

// CheckTranscript applies the TRN clauses to every item of a transcript;
// violations carry the item index.
func CheckTranscript(items []driver.TranscriptItem) Violations {
	var c collector
	for i := range items {
		checkItem(&c, i, &items[i])
	}
	return c.out
}

var textRequired = map[driver.TranscriptKind]bool{
	driver.TranscriptAssistant: true, driver.TranscriptThinking: true, driver.TranscriptUser: true,
	driver.TranscriptStdout: true, driver.TranscriptStderr: true, driver.TranscriptSystem: true,
	driver.TranscriptSummary: true, driver.TranscriptQuestion: true, driver.TranscriptFailure: true,
}

func checkItem(c *collector, i int, it *driver.TranscriptItem) {
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
