package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"syscall"

	"github.com/agentwire/agentwire/corpus/record"
)

const recordHelp = `Record the golden corpus from the real agent CLIs against scripted mock model
servers (package corpus/record; corpus/README.md describes the layout and the
scenarios), or verify the corpus by re-recording it into a temporary
directory and printing the drift. The same as the agentwire-record command.

  agentwire record --install            npm-install the pinned CLIs into --cache
  agentwire record [--run REGEXP]       record into --out (corpus/)
  agentwire record --verify [--run RE]  re-record into a temporary directory and diff

Recording re-executes the command under unshare -n, so that the CLIs and the
mocks share a network namespace with nothing but loopback; it needs root or
unprivileged user namespaces (--check says whether recording can run here).
Run it from the repository root.`

func runRecord(e *env, args []string) int {
	fs := newFlags("record")
	cache := fs.String("cache", ".cache/npm", "`directory` the pinned CLIs are installed in")
	scen := fs.String("scenarios", "corpus/scenarios", "scenario `directory`")
	out := fs.String("out", "corpus", "corpus root `directory`")
	match := fs.String("run", "", "only cases whose <provider>/<cli>@<version>/<case> matches this `regexp`")
	install := fs.Bool("install", false, "install the pinned CLIs with npm and exit")
	verify := fs.Bool("verify", false, "re-record into a temporary directory and diff against --out")
	keep := fs.Bool("keep", false, "with --verify, keep the temporary recording")
	check := fs.Bool("check", false, "exit 0 when recording is possible here (CLIs installed, unshare works), else print why and exit 3")
	pos, code, done := parseFlags(e, fs, "[flags]", recordHelp, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return fail(e, "record", fmt.Errorf("unexpected arguments: %q", pos))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *install {
		if err := record.InstallAll(ctx, *cache, record.DefaultCLIs); err != nil {
			fmt.Fprintln(e.stderr, "agentwire record:", err)
			return 1
		}
		return 0
	}
	var re *regexp.Regexp
	if *match != "" {
		var err error
		if re, err = regexp.Compile(*match); err != nil {
			return fail(e, "record", fmt.Errorf("--run: %w", err))
		}
	}
	if *check {
		for _, c := range record.DefaultCLIs {
			if _, err := c.Bin(*cache); err != nil {
				fmt.Fprintln(e.stdout, err)
				return 3
			}
		}
		if err := record.CheckUnshare(); err != nil {
			fmt.Fprintln(e.stdout, err)
			return 3
		}
		return 0
	}
	if !record.InNamespace() {
		code, err := record.Reexec(append([]string{"record"}, args...))
		if err != nil {
			fmt.Fprintln(e.stderr, "agentwire record:", err)
			if errors.Is(err, record.ErrNoIsolation) {
				return 3
			}
			return 1
		}
		return code
	}
	if err := record.SetupNamespace(); err != nil {
		fmt.Fprintln(e.stderr, "agentwire record:", err)
		return 3
	}
	opt := record.Options{Cache: *cache, Scenarios: *scen, Out: *out, Match: re, Log: e.stderr}
	if !*verify {
		if _, err := record.Record(ctx, opt); err != nil {
			fmt.Fprintln(e.stderr, "agentwire record:", err)
			return 1
		}
		return 0
	}
	tmp, err := os.MkdirTemp("", "agentwire-verify-")
	if err != nil {
		fmt.Fprintln(e.stderr, "agentwire record:", err)
		return 1
	}
	if !*keep {
		defer os.RemoveAll(tmp)
	} else {
		fmt.Fprintln(e.stderr, "verify: recording kept in", tmp)
	}
	opt.Out = tmp
	if _, err := record.Record(ctx, opt); err != nil {
		fmt.Fprintln(e.stderr, "agentwire record:", err)
		return 1
	}
	drift, err := record.Verify(*out, tmp, re)
	if err != nil {
		fmt.Fprintln(e.stderr, "agentwire record:", err)
		return 1
	}
	if drift != "" {
		fmt.Fprint(e.stdout, drift)
		fmt.Fprintln(e.stderr, "corpus-verify: drift found (see diff above)")
		return 1
	}
	fmt.Fprintln(e.stderr, "corpus-verify: no drift")
	return 0
}
