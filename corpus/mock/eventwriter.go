package mock

import (
	"io"

	"github.com/agentwire/agentwire/sse"
)

// eventWriter writes the mock's SSE events with the project's sse.Writer,
// which flushes after every event so the CLI sees each one at once.
type eventWriter struct {
	w *sse.Writer
}

func newEventWriter(w io.Writer) *eventWriter {
	return &eventWriter{w: sse.NewWriter(w)}
}

// event writes one event named name whose data is the JSON text data.
func (e *eventWriter) event(name string, data []byte) error {
	return e.w.WriteEvent(sse.Event{Event: name, Data: data})
}
