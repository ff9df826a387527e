package apistream

import (
	"io"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// ObjectMap decodes a JSON object into a map for a payload's Raw or an
// item's Data (jsonguard.Unmarshal: maps sized to their members); nil when
// v is not a valid object.
func ObjectMap(v []byte) map[string]any {
	if len(v) == 0 || v[0] != '{' {
		return nil
	}
	var m map[string]any
	if jsonguard.Unmarshal(v, &m, 0) != nil {
		return nil
	}
	return m
}

// Whole is the framing of a body that is not an event stream (an error
// document, a non-streamed response): its one frame is the whole body,
// made by Frame. It is a feed.Reader: Next reads Src to its end, writes
// the bytes to Tee (when set), and returns the frame, then io.EOF.
type Whole[F any] struct {
	Src   io.Reader
	Tee   io.Writer
	Frame func(body []byte) F
	done  bool
	f     F
}

// Next returns the whole body as one frame (kept in w), then io.EOF. A
// read error, or the Tee's, is returned with a nil frame (the bytes read
// before it have been teed).
func (w *Whole[F]) Next() (*F, error) {
	if w.done {
		return nil, io.EOF
	}
	w.done = true
	b, err := io.ReadAll(w.Src)
	if len(b) > 0 && w.Tee != nil {
		if _, terr := w.Tee.Write(b); terr != nil && err == nil {
			err = terr
		}
	}
	if err != nil {
		return nil, err
	}
	w.f = w.Frame(b)
	return &w.f, nil
}
