package driver

// Outcome is what became of the provider process (or of the HTTP exchange
// of a model API), given to a parser's Finish. The zero value is a clean
// exit with code 0.
type Outcome struct {
	// ExitCode is the process exit status (0 when it exited cleanly).
	ExitCode int `json:"exit_code,omitempty"`
	// Signal names the signal that ended the process ("SIGINT"), if any.
	Signal string `json:"signal,omitempty"`
	// TimedOut: the run hit its time limit.
	TimedOut bool `json:"timed_out,omitempty"`
	// Cancelled: the run's context was cancelled or the turn interrupted
	// at the host's request.
	Cancelled bool `json:"cancelled,omitempty"`
	// Err is an infrastructure error (a read error, a failed wait). It makes
	// any checkpoint invalid.
	Err error `json:"-"`
}

// Clean reports whether the outcome allows a valid checkpoint: exit code 0,
// no signal, timeout, cancellation or error.
func (o Outcome) Clean() bool {
	return o.ExitCode == 0 && o.Signal == "" && !o.TimedOut && !o.Cancelled && o.Err == nil
}
