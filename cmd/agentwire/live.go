package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"time"

	"github.com/agentwire/agentwire/corpus"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/provider"
)

// Live input: standard input, a pipe or terminal named as FILE, and a file
// followed with --follow are read as they are written. Only the first
// lines are read before parsing starts (as many as provider detection
// needs, none with --provider); every event is printed as the parser
// emits it.

// isLive reports whether the file at path is read live: a pipe, a socket
// or a character device (a terminal), whose content is not there yet.
func isLive(st os.FileInfo) bool {
	return st.Mode()&(os.ModeNamedPipe|os.ModeSocket|os.ModeCharDevice) != 0
}

// liveInput makes a bare capture of a live source: the provider named by
// --provider, or detected from the first lines read (held in the case's
// Stdout for detection and the switches), and the rest of the source.
func liveInput(name string, src io.Reader, f *inputFlags) (*input, error) {
	var head []byte
	if f.provider == "" {
		var err error
		if head, err = readHead(src); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	in, err := fileInput(name, head, f, nil)
	if err != nil {
		return nil, err
	}
	in.live = io.MultiReader(bytes.NewReader(head), src)
	return in, nil
}

// readHead reads src until the registry recognises a provider in what was
// read, or provider.DetectLimit bytes or the end of src are reached. It
// returns what it read; detection runs again on it (with the errors of
// detect) once the source gives no more.
func readHead(src io.Reader) ([]byte, error) {
	buf := make([]byte, 0, 4096)
	for len(buf) < provider.DetectLimit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := src.Read(buf[len(buf):min(cap(buf), provider.DetectLimit)])
		buf = buf[:len(buf)+n]
		if n > 0 && bytes.IndexByte(buf, '\n') >= 0 {
			if _, ok, _ := provider.Detect(buf); ok {
				return buf, nil
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// follower reads a file that is still being written, like tail -f: at the
// end of the file it waits for more. It reports the end when the stream
// reached its terminal (a result or failure item of the run was emitted)
// and the file has no more, when the process outcome is known (an exit
// code was given) and the file has no more, or on interrupt.
type follower struct {
	f           *os.File
	outcomeSet  bool
	terminal    atomic.Bool
	interrupted atomic.Bool
	stop        chan os.Signal
}

const followPoll = 50 * time.Millisecond

func (r *follower) Read(p []byte) (int, error) {
	for {
		if r.interrupted.Load() {
			return 0, io.EOF
		}
		n, err := r.f.Read(p)
		if n > 0 || err != nil && !errors.Is(err, io.EOF) {
			return n, err
		}
		if r.outcomeSet || r.terminal.Load() {
			return 0, io.EOF
		}
		select {
		case <-r.stop:
			r.interrupted.Store(true)
		case <-time.After(followPoll):
		}
	}
}

// see is the follower's view of each emitted event: the run's own result
// or failure item is its terminal.
func (r *follower) see(ev corpus.Event) {
	if it := ev.Item; it != nil && it.ScopeID == "" && (it.Kind == driver.TranscriptResult || it.Kind == driver.TranscriptFailure) {
		r.terminal.Store(true)
	}
}

// followInput opens path for --follow.
func followInput(path string, f *inputFlags, set map[string]bool) (*input, *follower, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, nil, fileError(path, err)
	}
	fo := &follower{f: file, outcomeSet: set["exit-code"] || set["signal"], stop: make(chan os.Signal, 1)}
	signal.Notify(fo.stop, os.Interrupt)
	in, err := liveInput(path, fo, f)
	if err != nil {
		fo.close()
		return nil, nil, err
	}
	return in, fo, nil
}

func (r *follower) close() {
	signal.Stop(r.stop)
	r.f.Close()
}
