// Package clirun holds what the reference drivers share around
// process.Start, so that each driver keeps only what is provider-specific:
//
//   - the construction Config: resolving a ValidateConfig argument, and
//     the check that a request's Config is the captured one (ConfigType);
//   - the settings every Config has (binary, environment, grace, line
//     limit) and the process command built from them, the session a
//     request asks to resume, the model and prompt placement rules (Base);
//   - the deterministic child environment (Env);
//   - the Run skeleton: start, feed stdout to the parser, wait, flush,
//     finish, fill RawStreams (Run.Exec), with the ndjson push path into a
//     parser (Decoder, Write);
//   - for interactive protocols, the stdin write that tolerates a CLI
//     that is gone (WriteStdin) and the host decision (Decide).
//
// It guesses no provider semantics: flags, protocol lines and parser
// options stay in the drivers.
package clirun

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/feed"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/agentwire/agentwire/process"
)

// Env builds a child environment deterministically: the inherited
// environment when inherit is true (in os.Environ order), then every layer
// in order. A later entry replaces an earlier one with the same name in
// place of it, so each name appears once, at the position it was last set.
func Env(inherit bool, layers ...[]string) []string {
	var all []string
	if inherit {
		all = append(all, os.Environ()...)
	}
	for _, l := range layers {
		all = append(all, l...)
	}
	last := map[string]int{}
	for i, kv := range all {
		k, _, _ := strings.Cut(kv, "=")
		last[k] = i
	}
	out := make([]string, 0, len(last))
	for i, kv := range all {
		k, _, _ := strings.Cut(kv, "=")
		if last[k] == i {
			out = append(out, kv)
		}
	}
	return out
}

// CheckEnv validates KEY=VALUE entries.
func CheckEnv(field string, env []string) error {
	for i, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsRune(k, 0) || strings.ContainsRune(kv, 0) {
			return fmt.Errorf("%s[%d]: want KEY=VALUE", field, i)
		}
	}
	return nil
}

// Outcome maps the process result and the run error to a parser outcome.
func Outcome(res process.Result, err error) driver.Outcome {
	return driver.Outcome{ExitCode: res.ExitCode, Signal: res.Signal, TimedOut: res.TimedOut, Cancelled: res.Cancelled, Err: err}
}

// Feeder is the push face of an ndjson parser.
type Feeder interface {
	Feed(ndjson.Frame) error
	FeedError(error) error
}

// Decoder returns an ndjson decoder feeding f: frames to Feed, over-long
// lines to FeedError (Emit).
func Decoder(maxLine int, f Feeder) *ndjson.Decoder {
	return ndjson.NewDecoder(ndjson.Options{MaxLineSize: maxLine}, Emit[ndjson.Frame](ndjson.IsRecoverable, f))
}

// Emit returns the emit function of a framing package's push Decoder
// (ndjson, jsonrpc, sse) that feeds f through the one feeding loop
// (internal/feed): each frame to Feed, each recoverable error (the
// package's IsRecoverable) to FeedError; after a sink error nothing more is
// fed, and the error is returned, so the Decoder's Write fails and the run
// stops.
func Emit[F feed.Frame](recoverable func(error) bool, f feed.Sink[F]) func(F, error) error {
	l := &feed.Loop[F]{Framing: feed.Framing[F]{Recoverable: recoverable}}
	return l.Push(f)
}

// Write returns a stdout observer writing into d.
func Write(d *ndjson.Decoder) func([]byte) error {
	return func(b []byte) error {
		_, err := d.Write(b)
		return err
	}
}
