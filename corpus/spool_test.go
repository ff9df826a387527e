package corpus

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentwire/agentwire/driver"
)

// TestTranscriptFromEvents: a DocumentWriter writing its transcript from
// the item events (spooled in memory, in chunks of a random size, up to a
// random limit, then in a temporary file) writes the bytes of the document whose response has
// those items as its transcript, and leaves no file behind.
func TestTranscriptFromEvents(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	rapid.Check(t, func(t *rapid.T) {
		d := Document{Provider: "p", Events: []Event{}}
		d.Response.Transcript = []driver.TranscriptItem{}
		for range rapid.IntRange(0, 6).Draw(t, "events") {
			var ev Event
			if rapid.Bool().Draw(t, "item") {
				it := randomItem(t)
				ev.Item = &it
				d.Response.Transcript = append(d.Response.Transcript, it)
			} else {
				ev.Stream = randomPayload(t)
			}
			d.Events = append(d.Events, ev)
		}
		var want bytes.Buffer
		if err := d.Encode(&want); err != nil {
			t.Skip("not encodable:", err)
		}
		var got bytes.Buffer
		dw := NewDocumentWriter(&got, d.Provider, d.Capability)
		dw.TranscriptFromEvents()
		dw.items.max = rapid.IntRange(0, 2048).Draw(t, "memory")
		dw.items.chunk = rapid.IntRange(1, 300).Draw(t, "chunk")
		for i := range d.Events {
			if err := dw.Event(&d.Events[i]); err != nil {
				t.Fatal(err)
			}
		}
		resp := d.Response
		resp.Transcript = nil // ignored
		if err := dw.Close(&resp, d.Violations); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("document differs:\n got %s\nwant %s", got.String(), want.String())
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Fatalf("spool files left behind: %v", left)
		}
	})
}

// TestMalformedKind: a payload reports a malformed line exactly when its
// kind's part after the first slash is "malformed".
func TestMalformedKind(t *testing.T) {
	for _, k := range []string{"codex/malformed", "/malformed", "a/b/malformed", "malformed", "codex/malformedx", "codex/xmalformed", "x//malformed", "", "/", "codex/x", "claude/malformed"} {
		_, name, ok := strings.Cut(k, "/")
		want := ok && name == "malformed"
		if _, got := malformed(Event{Stream: &driver.StreamPayload{Kind: driver.StreamKind(k)}}); got != want {
			t.Errorf("kind %q: malformed %v, want %v", k, got, want)
		}
	}
}
