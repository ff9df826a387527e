package emit

import (
	"strconv"

	"github.com/agentwire/agentwire/driver"
)

// The process outcome's part of a session parser's failure, the same for
// codex, app-server, Gemini CLI and ACP: each parser decides its stream's
// own failures (a failed turn, an error result, a missing terminal) and
// places them between these two in its order of precedence.

// WithLast returns msg, followed by ": " and last when the stream
// reported a last error.
func WithLast(msg, last string) string {
	if last != "" {
		return msg + ": " + last
	}
	return msg
}

// Interrupted is the failure of a run its caller stopped: cancelled
// ("<agent> run cancelled") or timed out ("<agent> run timed out"), with
// meta's metadata; nil for neither.
func Interrupted(agent string, out driver.Outcome, meta func() map[string]any) *driver.RunFailure {
	switch {
	case out.Cancelled:
		return &driver.RunFailure{Code: driver.FailureCancelled, Message: agent + " run cancelled", Metadata: meta()}
	case out.TimedOut:
		return &driver.RunFailure{Code: driver.FailureTimeout, Message: agent + " run timed out", Metadata: meta()}
	}
	return nil
}

// Interruption reports whether f is the failure of a run its caller
// stopped: cancelled or timed out.
func Interruption(f *driver.RunFailure) bool {
	return f != nil && (f.Code == driver.FailureCancelled || f.Code == driver.FailureTimeout)
}

// Exited is the failure of a process that a signal ended ("<agent>
// terminated by signal <name>") or that exited with a non-zero code
// ("<agent> exited with code <n>"), each WithLast the stream's last
// error, with meta's metadata; nil for an exit with code 0.
func Exited(agent string, out driver.Outcome, last string, meta func() map[string]any) *driver.RunFailure {
	switch {
	case out.Signal != "":
		return &driver.RunFailure{Code: driver.FailureAgentError, Message: WithLast(agent+" terminated by signal "+out.Signal, last), Metadata: meta()}
	case out.ExitCode != 0:
		return &driver.RunFailure{Code: driver.FailureAgentError, Message: WithLast(agent+" exited with code "+strconv.Itoa(out.ExitCode), last), Metadata: meta()}
	}
	return nil
}

// End is the end of a session parser's Finish, after its Response is
// built: it emits the terminal (run.finished with resp.Usage and finish,
// or run.error with resp.Failure; when out.Err is set, run.error with an
// agent error "<agent> run failed: <err>", and no usage, unless
// resp.Failure is a cancellation or a timeout: an error of the stop does
// not make a stopped run an agent error), hands the transcript over to
// resp (the Emitter is finished, so it is not copied; its capacity is cut
// so that an append by the caller cannot reach the Emitter's array), and
// returns out.Err when set, else the sink error.
func (e *Emitter) End(resp *driver.Response, finish *driver.Finish, out driver.Outcome, agent string) error {
	failure := resp.Failure
	if out.Err != nil && !Interruption(failure) {
		failure = &driver.RunFailure{Code: driver.FailureAgentError, Message: agent + " run failed: " + out.Err.Error()}
	}
	var usage *driver.Usage
	if failure == nil {
		usage = resp.Usage
	}
	err := e.FinishWith(usage, finish, failure)
	tr := e.Transcript()
	resp.Transcript = tr[:len(tr):len(tr)]
	if out.Err != nil {
		return out.Err
	}
	return err
}
