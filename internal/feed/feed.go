// Package feed is the one loop that feeds a capture to a provider parser:
// framing with a tee that keeps every byte, Feed for each frame, FeedError
// for each recoverable framing error, an observer told where each frame
// starts, Finish with the process outcome, and RawStreams. Every parser's
// Parse, the provider registry (and through it corpus, fuzz and the CLI)
// and the reference drivers' push path use it, so the rules below hold for
// all of them:
//
//   - a sink error (the error Feed, FeedError or a client-side feed
//     returns) stops the feeding: nothing more is given to the parser, but
//     the source is read to its end, so RawStreams.Stdout is the complete
//     stream; Finish still runs (its emissions fail on the sticky sink
//     error), and the sink error is returned when Finish returns none;
//   - a fatal read error (the source's, or a Tee's) ends the reading; it is
//     joined into Outcome.Err, so no checkpoint can be valid, and returned;
//   - the push face (Loop.Push, for a live process's stdout) returns the
//     sink error to its Decoder instead, so the writer stops; the process
//     helper records the raw stream to its end;
//   - the observer is called with the frame's offset and line before each
//     frame and each recoverable error is fed (a frame-less error gives the
//     error's own position), and with (len(stdout), 0) before Finish.
//
// The loop is generic over the framing: F is the frame type of ndjson,
// jsonrpc or sse, each of which has Pos, IsRecoverable and errors with Pos.
// It starts no goroutine and reads stdout to its end before stderr, so it is
// for captures (or for sources that never block on each other), not for two
// live pipes.
package feed

import (
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/agentwire/agentwire/driver"
)

// Frame is a frame of a framing package: ndjson.Frame, jsonrpc.Frame,
// sse.Frame. Pos returns where it starts; the zero Frame that comes with a
// frame-less error has line 0.
type Frame interface {
	Pos() (offset int64, line int)
}

// Reader is the pull face of a framing package, handing out frames by
// pointer: the frame, and the bytes it points to, are valid until the next
// call to Next. With an error the frame is nil. sse.Reader is one; Copied
// makes one of a framing whose Next returns frames by value.
//
// The loop copies a frame once, into the call of the parser's Feed: a
// Reader that returned frames by value would cost a copy of the frame per
// layer it passes (Next, the loop, the feed function), which for an
// sse.Frame of some 120 bytes and the small events of the model APIs
// is a measurable share of the feeding.
type Reader[F Frame] interface {
	Next() (*F, error)
}

// Copied is the Reader of a framing whose Next returns frames by value
// (ndjson.Reader, jsonrpc.Reader): it keeps the last frame and hands it out
// by pointer, valid until the next Next. With an error the frame is nil
// (those framings return the zero Frame with an error).
type Copied[F Frame] struct {
	R interface{ Next() (F, error) }
	f F
}

// Next returns R's next frame, kept in c.
func (c *Copied[F]) Next() (*F, error) {
	var err error
	if c.f, err = c.R.Next(); err != nil {
		return nil, err
	}
	return &c.f, nil
}

// Framing is what the loop needs of a framing package.
type Framing[F Frame] struct {
	// Open returns a Reader of src that writes every byte it reads to tee
	// before decoding it (tee may be nil).
	Open func(src io.Reader, tee io.Writer) Reader[F]
	// Recoverable is the package's IsRecoverable: the error concerns one
	// frame and the stream reads on.
	Recoverable func(error) bool
}

// Sink is what the loop feeds: each frame to Feed, each recoverable
// framing error to FeedError.
type Sink[F Frame] interface {
	Feed(F) error
	FeedError(error) error
}

// Parser is the push face of a provider parser.
type Parser[F Frame] interface {
	Sink[F]
	Finish(driver.Outcome) (driver.Response, error)
}

// Observer is told where the frame about to be fed starts: its byte offset
// in stdout and its 1-based line; (len(stdout), 0) before Finish.
type Observer func(offset int64, line int)

// Loop reads frames and feeds them under the sink-error policy of the
// package doc. The zero Loop is not usable: set Framing.
type Loop[F Frame] struct {
	Framing Framing[F]
	// Observe, when set, is called before each frame and recoverable error
	// that Read feeds.
	Observe Observer
	// SinkErr is the first error Feed or FeedError returned; once it is
	// set nothing more is fed.
	SinkErr error
	// ReadErr joins the fatal read errors of every source read.
	ReadErr error
}

// Read reads src to its end, or to its first fatal error (joined into
// ReadErr), teeing every byte to tee (may be nil). Each frame goes to
// s.Feed and each recoverable error to s.FeedError while SinkErr is nil;
// the first error either returns becomes SinkErr.
func (l *Loop[F]) Read(src io.Reader, tee io.Writer, s Sink[F]) {
	r := l.Framing.Open(src, tee)
	for {
		f, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil && !l.Framing.Recoverable(err) {
			l.ReadErr = errors.Join(l.ReadErr, err)
			return
		}
		if l.SinkErr != nil {
			continue // the sink failed: read on for the raw bytes
		}
		if err == nil && l.Observe == nil {
			l.SinkErr = s.Feed(*f) // deliver's step, the common case in line
			continue
		}
		l.deliver(f, err, s)
	}
}

// deliver is the one step of Read and Push: the observer is told where f
// (or, for an error without its frame, the input err concerns) starts,
// then *f goes to s.Feed, or err to s.FeedError, and what they return
// becomes SinkErr. f may be nil with an error. Calling s itself, rather
// than method values of it, copies the frame once.
func (l *Loop[F]) deliver(f *F, err error, s Sink[F]) {
	if l.Observe != nil {
		var off int64
		var line int
		if f != nil {
			off, line = (*f).Pos()
		}
		if line == 0 && err != nil {
			off, line = errPos(err)
		}
		l.Observe(off, line)
	}
	if err != nil {
		l.SinkErr = s.FeedError(err)
	} else {
		l.SinkErr = s.Feed(*f)
	}
}

// Push returns the emit function of a framing package's push Decoder,
// for a live stream: it feeds like Read (observer, nothing fed after a
// sink error) and returns a fatal framing error as it is. It returns the
// sink error (SinkErr) too, so that the Decoder stops and its writer
// learns of it: the reference drivers then stop the process, whose stdout
// process.Start records to its end, so the raw stream stays complete
// there.
func (l *Loop[F]) Push(s Sink[F]) func(F, error) error {
	return func(f F, err error) error {
		if err != nil && !l.Framing.Recoverable(err) {
			return err
		}
		if l.SinkErr != nil {
			return l.SinkErr
		}
		l.deliver(&f, err, s)
		return l.SinkErr
	}
}

func errPos(err error) (int64, int) {
	var p interface{ Pos() (int64, int) }
	if errors.As(err, &p) {
		return p.Pos()
	}
	return 0, 0
}

// Capture is a finished run as Parse reads it.
type Capture struct {
	// Stdout is the provider stream (a CLI's stdout, a model API's HTTP
	// body).
	Stdout io.Reader
	// Stderr is read to its end after Stdout; nil for none.
	Stderr io.Reader
	// Outcome is given to Finish, with the read errors joined into Err.
	Outcome driver.Outcome
	// DiscardStdout keeps no copy of stdout: RawStreams.Stdout is "" (the
	// parsers' Options.DiscardStdout, outside the driver contract); the
	// observer is still told len(stdout) before Finish.
	DiscardStdout bool
}

// Parse runs a whole capture through p: Stdout framed with fr and teed,
// every frame fed in order (after the client side, when client is set:
// see Client), Stderr read to its end, Finish(outcome), and RawStreams
// filled with the exact stdout and stderr and the terminal Finish put in
// RawStreams. observe may be nil. The error is Finish's, else the sink
// error.
func Parse[F Frame](fr Framing[F], p Parser[F], c Capture, observe Observer, client *Client[F]) (driver.Response, error) {
	l := Loop[F]{Framing: fr}
	if client != nil && client.Src != nil {
		l.Read(client.Src, nil, clientSink[F](client.Feed))
	}
	l.Observe = observe
	// strings.Builder: String does not copy the captured bytes; a source
	// that knows its length sizes it at once.
	var raw strings.Builder
	var n counter
	tee := io.Writer(&n)
	if !c.DiscardStdout {
		raw.Grow(sizeHint(c.Stdout))
		tee = &raw
	}
	l.Read(c.Stdout, tee, p)
	var errb []byte
	if c.Stderr != nil {
		b, err := io.ReadAll(c.Stderr)
		if err != nil {
			l.ReadErr = errors.Join(l.ReadErr, err)
		}
		errb = b
	}
	out := c.Outcome
	if l.ReadErr != nil {
		out.Err = errors.Join(out.Err, l.ReadErr)
	}
	if observe != nil {
		observe(int64(raw.Len())+int64(n), 0)
	}
	resp, err := p.Finish(out)
	if err == nil {
		err = l.SinkErr
	}
	rs := &driver.RawStreams{Stdout: raw.String(), Stderr: string(errb)}
	if resp.RawStreams != nil {
		rs.Terminal = resp.RawStreams.Terminal
	}
	resp.RawStreams = rs
	return resp, err
}

// counter counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}

// sizeHint is how many bytes src will give, when it can tell: a reader with
// Len (bytes.Reader, strings.Reader, bytes.Buffer) or a regular file (its
// size past the current offset), so that the raw copy is made once at its
// size rather than grown by doubling. 0 when it cannot tell (a pipe).
func sizeHint(src io.Reader) int {
	switch r := src.(type) {
	case interface{ Len() int }:
		return r.Len()
	case interface {
		Stat() (fs.FileInfo, error)
		Seek(int64, int) (int64, error)
	}:
		st, err := r.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0
		}
		off, err := r.Seek(0, io.SeekCurrent)
		if err != nil || off > st.Size() {
			return 0
		}
		return int(min(st.Size()-off, 1<<40))
	}
	return 0
}

// Client is the client side of a protocol (what the host wrote to the
// process's stdin): Parse frames Src with the same framing and gives each
// frame to Feed before reading stdout, so that responses pair with their
// requests. Recoverable errors of the client side are skipped; a sink
// error there stops all feeding, as on stdout.
type Client[F Frame] struct {
	Src  io.Reader
	Feed func(F) error
}

// clientSink feeds a client side's frames to its Feed and skips its
// recoverable errors.
type clientSink[F Frame] func(F) error

func (c clientSink[F]) Feed(f F) error      { return c(f) }
func (clientSink[F]) FeedError(error) error { return nil }
