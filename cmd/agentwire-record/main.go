// Command agentwire-record records the golden corpus from the real agent
// CLIs against scripted mock model servers, or verifies the committed corpus
// by re-recording it into a temporary directory and printing the drift.
//
//	agentwire-record -install            # npm-install the pinned CLIs into -cache
//	agentwire-record [-run REGEXP]       # record into -out (corpus/)
//	agentwire-record -verify [-run RE]   # re-record into a temp dir and diff
//
// Recording re-executes itself under `unshare -n` so that the CLIs and the
// mock share a network namespace with nothing but loopback.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"syscall"

	"github.com/agentwire/agentwire/corpus/record"
)

func main() {
	os.Exit(run())
}

func run() int {
	cache := flag.String("cache", ".cache/npm", "directory the pinned CLIs are installed in")
	scen := flag.String("scenarios", "corpus/scenarios", "scenario directory")
	out := flag.String("out", "corpus", "corpus root")
	match := flag.String("run", "", "only cases whose <provider>/<cli>@<version>/<case> matches this regexp")
	install := flag.Bool("install", false, "install the pinned CLIs with npm and exit")
	verify := flag.Bool("verify", false, "re-record into a temporary directory and diff against -out")
	keep := flag.Bool("keep", false, "with -verify, keep the temporary recording")
	check := flag.Bool("check", false, "exit 0 when recording is possible here (CLIs installed, unshare works), else print why and exit 3")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *install {
		if err := record.InstallAll(ctx, *cache, record.DefaultCLIs); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	var re *regexp.Regexp
	if *match != "" {
		var err error
		if re, err = regexp.Compile(*match); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	if *check {
		for _, c := range record.DefaultCLIs {
			if _, err := c.Bin(*cache); err != nil {
				fmt.Println(err)
				return 3
			}
		}
		if err := record.CheckUnshare(); err != nil {
			fmt.Println(err)
			return 3
		}
		return 0
	}
	if !record.InNamespace() {
		code, err := record.Reexec(os.Args[1:])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			if errors.Is(err, record.ErrNoIsolation) {
				return 3
			}
			return 1
		}
		return code
	}
	if err := record.SetupNamespace(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	opt := record.Options{Cache: *cache, Scenarios: *scen, Out: *out, Match: re, Log: os.Stderr}
	if !*verify {
		if _, err := record.Record(ctx, opt); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	tmp, err := os.MkdirTemp("", "agentwire-verify-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if !*keep {
		defer os.RemoveAll(tmp)
	} else {
		fmt.Fprintln(os.Stderr, "verify: recording kept in", tmp)
	}
	opt.Out = tmp
	if _, err := record.Record(ctx, opt); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	drift, err := record.Verify(*out, tmp, re)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if drift != "" {
		fmt.Print(drift)
		fmt.Fprintln(os.Stderr, "corpus-verify: drift found (see diff above)")
		return 1
	}
	fmt.Fprintln(os.Stderr, "corpus-verify: no drift")
	return 0
}
