package provider

import (
	"strings"

	"github.com/agentwire/agentwire/driver"
)

// Meta is the part of a recording's meta.json that replay uses. Volatile
// members (recorded, duration_ms, ...) are deliberately absent.
type Meta struct {
	Provider   string   `json:"provider"`
	CLI        string   `json:"cli"`
	Version    string   `json:"version"`
	Scenario   string   `json:"scenario"`
	Variant    string   `json:"variant,omitempty"`
	Argv       []string `json:"argv"`
	Cwd        string   `json:"cwd"`
	ExitCode   int      `json:"exit_code"`
	Signal     string   `json:"signal,omitempty"`
	SentSignal string   `json:"sent_signal,omitempty"`
	Interrupt  bool     `json:"interrupt,omitempty"`
	TimedOut   bool     `json:"timed_out,omitempty"`
	// RecorderNote says how the recorder ended a CLI that did not exit
	// (see SessionOverNote).
	RecorderNote string `json:"recorder_note,omitempty"`
	// HTTPStatus and ContentType are those of a model API's response
	// (the stdout file then holds its body).
	HTTPStatus  int    `json:"http_status,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	// Runs, in a case-level meta.json, lists the run directories of a
	// multi-run case in order.
	Runs []string `json:"runs,omitempty"`
}

// HasArg reports whether argv holds arg, alone or as "arg=value".
func (m Meta) HasArg(arg string) bool {
	for _, a := range m.Argv {
		if a == arg || strings.HasPrefix(a, arg+"=") {
			return true
		}
	}
	return false
}

// SessionOverNote begins the recorder_note of a run whose session was over
// (the client had its last answer and closed stdin) when the CLI still did
// not exit, so that the recorder signalled it: Qwen Code never exits on
// EOF in ACP mode, Gemini CLI not once it has run a shell command.
const SessionOverNote = "SIGTERM: no exit after the session ended"

// Outcome returns the process outcome the meta records: the exit code,
// the signal that ended the process, the timeout, and Cancelled when the
// recorder sent a signal or a protocol interrupt. A CLI the recorder had
// to stop after its session was over (RecorderNote begins with
// SessionOverNote) ended as its client meant it to: the outcome is clean,
// whatever the signal did to it (meta.json keeps the exit code and the
// signal).
func (m Meta) Outcome() driver.Outcome {
	if strings.HasPrefix(m.RecorderNote, SessionOverNote) && !m.TimedOut && m.SentSignal == "" && !m.Interrupt {
		return driver.Outcome{}
	}
	return driver.Outcome{ExitCode: m.ExitCode, Signal: m.Signal, TimedOut: m.TimedOut, Cancelled: m.SentSignal != "" || m.Interrupt}
}

// SessionData returns the checkpoint data the run implies: its working
// directory as driver.ParamCWD (nil when meta.json has none).
func (m Meta) SessionData() map[string]string {
	if m.Cwd == "" {
		return nil
	}
	return map[string]string{driver.ParamCWD: m.Cwd}
}
