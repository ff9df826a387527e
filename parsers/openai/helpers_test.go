package openai

import (
	"io"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/google/go-cmp/cmp"
)

// The shared harness (internal/parsertest): the comparable result, the
// four deliveries every test replays under, kind renderings.
type result = parsertest.Result

var (
	chunkings = parsertest.Chunkings
	kinds     = parsertest.Kinds
	itemKinds = parsertest.ItemKinds
)

// run parses a body with Parse through a RecordingSink and returns the
// result and the validators' findings.
func run(status int, contentType, body string, opts Options, mk func(string) io.Reader) (result, adaptertest.Violations) {
	if mk == nil {
		mk = func(s string) io.Reader { return strings.NewReader(s) }
	}
	sink := &adaptertest.RecordingSink{}
	resp, err := Parse(status, contentType, mk(body), sink, opts)
	v := sink.Check(opts.Streaming, Capability, resp, err, nil)
	r := result{Capability: Capability, Payloads: sink.Payloads, Items: sink.Items(), Response: resp}
	if err != nil {
		r.Err = err.Error()
	}
	return r, v
}

// sseOf frames JSON payloads as data-only events, the way OpenAI sends
// Chat chunks.
func sseOf(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return b.String()
}

func finishOf(r result) driver.Finish {
	if r.Response.Finish == nil {
		return driver.Finish{}
	}
	return *r.Response.Finish
}

// replay parses body (status 200 unless given) under every chunking, with
// streaming on and off, and fails on any violation or any difference
// between the deliveries; it returns the streaming whole-delivery result.
func replay(t *testing.T, body string, opts Options, status ...int) result {
	t.Helper()
	st := 200
	if len(status) > 0 {
		st = status[0]
	}
	return replayAs(t, body, opts, st, "text/event-stream")
}

// replayAs is replay with a status and content type.
func replayAs(t *testing.T, body string, opts Options, st int, ct string) result {
	t.Helper()
	var first result
	for si, streaming := range []bool{true, false} {
		o := opts
		o.Streaming = streaming
		var base result
		for ci, c := range chunkings(7) {
			r, v := run(st, ct, body, o, c.Mk)
			if len(v) > 0 {
				t.Fatalf("streaming=%v %s: violations:\n%s", streaming, c.Name, v)
			}
			if ci == 0 {
				base = r
				continue
			}
			if d := cmp.Diff(base, r); d != "" {
				t.Fatalf("streaming=%v %s differs from whole (-whole +%s):\n%s", streaming, c.Name, c.Name, d)
			}
		}
		if si == 0 {
			first = base
		} else if d := cmp.Diff(first.Response, base.Response); d != "" {
			t.Fatalf("the Response depends on streaming (-streaming +not):\n%s", d)
		}
	}
	return first
}

func newRecorder() *adaptertest.RecordingSink { return &adaptertest.RecordingSink{} }
