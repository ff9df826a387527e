package ssebench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/agentwire/agentwire/sse"

	anthropicsse "github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"
	"github.com/launchdarkly/eventsource"
	openaisse "github.com/openai/openai-go/v3/packages/ssestream"
	r3sse "github.com/r3labs/sse/v2"
	gosse "github.com/tmaxmax/go-sse"
	"gopkg.in/cenkalti/backoff.v1"
)

// Result is what an adapter counts: dispatched events and their data bytes
// (a trailing LF that a decoder keeps is not counted).
type Result struct {
	Events    int
	DataBytes int
}

func (r *Result) add(data int, trailingLF bool) {
	r.Events++
	if trailingLF && data > 0 {
		data--
	}
	r.DataBytes += data
}

// Adapter parses a whole stream from r.
type Adapter struct {
	Name  string
	Parse func(r io.Reader) (Result, error)
}

const bigLimit = 32 << 20

var reused = sse.NewReader(nil, sse.Options{})

// Adapters lists ours first, then the peers, then the baseline.
var Adapters = []Adapter{
	{"agentwire-Reader", func(r io.Reader) (Result, error) {
		var res Result
		rd := sse.NewReader(r, sse.Options{})
		for {
			f, err := rd.Next()
			if err == io.EOF {
				return res, nil
			}
			if err != nil {
				return res, err
			}
			res.add(len(f.Data), false)
		}
	}},
	{"agentwire-Reader-reset", func(r io.Reader) (Result, error) {
		// One Reader reused across streams with Reset: no per-stream
		// buffer growth.
		var res Result
		reused.Reset(r, sse.Options{})
		for {
			f, err := reused.Next()
			if err == io.EOF {
				return res, nil
			}
			if err != nil {
				return res, err
			}
			res.add(len(f.Data), false)
		}
	}},
	{"agentwire-Reader-spans-tee", func(r io.Reader) (Result, error) {
		var res Result
		rd := sse.NewReader(r, sse.Options{Spans: true, Tee: io.Discard})
		for {
			f, err := rd.Next()
			if err == io.EOF {
				return res, nil
			}
			if err != nil {
				return res, err
			}
			if f.Kind == sse.KindEvent {
				res.add(len(f.Data), false)
			}
		}
	}},
	{"agentwire-Decoder", func(r io.Reader) (Result, error) {
		var res Result
		d := sse.NewDecoder(sse.Options{}, func(f *sse.Frame, err error) error {
			if err != nil {
				return err
			}
			res.add(len(f.Data), false)
			return nil
		})
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			if _, werr := d.Write(buf[:n]); werr != nil {
				return res, werr
			}
			if err == io.EOF {
				return res, d.Close()
			}
			if err != nil {
				return res, err
			}
		}
	}},
	{"openai-go", func(r io.Reader) (Result, error) {
		var res Result
		d := openaisse.NewDecoder(sdkResponse(r))
		for d.Next() {
			res.add(len(d.Event().Data), true)
		}
		return res, d.Err()
	}},
	{"anthropic-sdk-go", func(r io.Reader) (Result, error) {
		var res Result
		d := anthropicsse.NewDecoder(sdkResponse(r))
		for d.Next() {
			res.add(len(d.Event().Data), true)
		}
		return res, d.Err()
	}},
	{"tmaxmax-go-sse", func(r io.Reader) (Result, error) {
		var res Result
		for ev, err := range gosse.Read(r, &gosse.ReadConfig{MaxEventSize: bigLimit}) {
			if err != nil {
				return res, err
			}
			res.add(len(ev.Data), false)
		}
		return res, nil
	}},
	{"launchdarkly-eventsource", func(r io.Reader) (Result, error) {
		var res Result
		d := eventsource.NewDecoder(r)
		for {
			ev, err := d.Decode()
			if err == io.EOF {
				return res, nil
			}
			if err != nil {
				return res, err
			}
			res.add(len(ev.Data()), false)
		}
	}},
	{"r3labs-sse", func(r io.Reader) (Result, error) {
		var res Result
		c := r3sse.NewClient("http://bench.invalid/stream", r3sse.ClientMaxBufferSize(bigLimit))
		c.Connection = &http.Client{Transport: bodyTransport{r}}
		c.ReconnectStrategy = &backoff.StopBackOff{}
		err := c.SubscribeRawWithContext(context.Background(), func(ev *r3sse.Event) {
			res.add(len(ev.Data), false)
		})
		if errors.Is(err, io.EOF) {
			err = nil
		}
		return res, err
	}},
	{"ceiling-ReadSlice", func(r io.Reader) (Result, error) {
		// The streaming ceiling: bufio.Reader.ReadSlice for every LF with
		// a 64 KiB buffer (sse.Reader's initial size), so that the reads,
		// the buffer refills and one scan of every byte are counted, and
		// nothing else.
		var res Result
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := br.ReadSlice('\n')
			res.DataBytes += len(line)
			if err == io.EOF {
				return res, nil
			}
			if err != nil && err != bufio.ErrBufferFull {
				return res, err
			}
		}
	}},
	{"baseline-IndexByte", func(r io.Reader) (Result, error) {
		// The physical limit: find every LF in 64 KiB-buffered reads.
		var res Result
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			b := buf[:n]
			for {
				i := bytes.IndexByte(b, '\n')
				if i < 0 {
					break
				}
				res.DataBytes++
				b = b[i+1:]
			}
			if err == io.EOF {
				return res, nil
			}
			if err != nil {
				return res, err
			}
		}
	}},
}

func sdkResponse(r io.Reader) *http.Response {
	h := http.Header{}
	h.Set("Content-Type", "text/event-stream")
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(r)}
}

// bodyTransport answers every request with r as the body, so that the
// r3labs client (whose event parser is unexported) reads the workload.
type bodyTransport struct{ r io.Reader }

func (t bodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp := sdkResponse(t.r)
	resp.Request = req
	return resp, nil
}
