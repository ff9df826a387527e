package mock

import (
	"io"
	"net/http"
)

// eventWriter adapts the sse writer to the mock: one event, then a flush so
// the client sees it at once.
// TODO(sse): switch to sse.Writer when package sse lands.
type eventWriter struct {
	w io.Writer
	f http.Flusher
}

func newEventWriter(w io.Writer) *eventWriter {
	f, _ := w.(http.Flusher)
	return &eventWriter{w: w, f: f}
}

func (e *eventWriter) event(name string, data []byte) error {
	b := make([]byte, 0, len(name)+len(data)+16)
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	if e.f != nil {
		e.f.Flush()
	}
	return nil
}
