package clirun

import (
	"context"
	"errors"
	"os"
	"syscall"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/process"
)

// Run is the provider-specific half of one run; Exec drives it.
type Run struct {
	// Stdout receives the stdout bytes in order as they arrive (the push
	// path into the parser). An error ends the run (see process.Command).
	Stdout func([]byte) error
	// Started, when set, runs once the process has started and before
	// Stdout sees a byte: an interactive driver records the process and
	// writes its first protocol line there. Its error is the run's error
	// when waiting for the process gives none.
	Started func(*process.Process) error
	// Flush, when set, runs after the process was waited for (a framing
	// decoder parses an unterminated last line then). Its error is the
	// run's error when there was none before.
	Flush func() error
	// Finish ends the parser with the outcome and returns its Response.
	Finish func(driver.Outcome) (driver.Response, error)
	// Terminal, when set, gives RawStreams.Terminal; otherwise the
	// Terminal of the RawStreams that Finish returned is kept.
	Terminal func() *driver.TerminalPayload
	// Done, when set, edits the Response of a run whose process started,
	// after RawStreams are filled.
	Done func(*driver.Response)
}

// Exec runs cmd, its Stdout replaced by r.Stdout, with process.Start
// (sink gets the run events; give it the serialized sink the parser
// emits to), waits for it, runs r.Flush and finishes the parser with the
// outcome (Outcome).
//
// When the process cannot start, Finish gets exit code -1 and the start
// error, RawStreams is empty, and Exec returns that Response and the start
// error. Otherwise RawStreams holds the exact stdout and stderr the process
// wrote and the terminal payload, and the error is the first of the wait
// error, Started's and Flush's, else Finish's.
func (r Run) Exec(ctx context.Context, cmd process.Command, sink driver.EventSink) (driver.Response, error) {
	cmd.Stdout = r.Stdout
	var ready chan struct{}
	if r.Started != nil {
		ready = make(chan struct{}) // the observer may run before Start returns
		cmd.Stdout = func(b []byte) error {
			<-ready
			return r.Stdout(b)
		}
	}
	proc, err := process.Start(ctx, cmd, sink)
	if err != nil {
		resp, _ := r.Finish(Outcome(process.Result{ExitCode: -1}, err))
		resp.RawStreams = &driver.RawStreams{}
		return resp, err
	}
	var serr error
	if r.Started != nil {
		serr = r.Started(proc)
		close(ready)
	}
	res, werr := proc.Wait()
	if werr == nil {
		werr = serr
	}
	if r.Flush != nil {
		if ferr := r.Flush(); ferr != nil && werr == nil {
			werr = ferr
		}
	}
	resp, ferr := r.Finish(Outcome(res, werr))
	var term *driver.TerminalPayload
	if r.Terminal != nil {
		term = r.Terminal()
	} else if resp.RawStreams != nil {
		term = resp.RawStreams.Terminal
	}
	resp.RawStreams = &driver.RawStreams{Stdout: string(res.Stdout), Stderr: string(res.Stderr), Terminal: term}
	if r.Done != nil {
		r.Done(&resp)
	}
	if werr != nil {
		return resp, werr
	}
	return resp, ferr
}

// WriteStdin writes b to the process's stdin. A CLI that is gone or has
// closed its stdin is not an error, nor is a write abandoned because the
// process was killed (a CLI that does not read its stdin blocks the write
// until the grace ends); the run's outcome says what happened. Any other
// write error is returned.
func WriteStdin(p *process.Process, b []byte) error {
	_, err := p.Stdin().Write(b)
	if errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
		return nil
	}
	return err
}

// NoDecision is the answer to a permission request that no host decided:
// a rejection.
func NoDecision() driver.DecisionResponse {
	return driver.DecisionResponse{Result: driver.DecisionRejected, Text: "no host decision available"}
}

// Decide asks sink for the decision of req when it is a
// driver.DecisionCapableSink, and answers NoDecision otherwise. A failed
// request is an aborted decision that carries the error text.
func Decide(ctx context.Context, sink driver.EventSink, req driver.DecisionRequest) driver.DecisionResponse {
	ds, ok := sink.(driver.DecisionCapableSink)
	if !ok {
		return NoDecision()
	}
	r, err := ds.RequestDecision(ctx, req)
	if err != nil {
		return driver.DecisionResponse{Result: driver.DecisionAborted, Text: "decision aborted: " + err.Error()}
	}
	return r
}
