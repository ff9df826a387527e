package record

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"syscall"
)

// Main is the recorder's command line, shared by cmd/agentwire-record and
// the agentwire record subcommand. args are the recorder's flags; self are
// the arguments that run this same command again when the program is
// re-executed inside its network namespace (os.Args[1:] for
// agentwire-record, e.g. ["record", flags...] for agentwire). It returns the
// exit status: 0 success, 1 failure or drift, 2 usage, 3 recording
// impossible here (CLIs missing or no network namespace).
func Main(args, self []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cache := fs.String("cache", ".cache/npm", "directory the pinned CLIs are installed in")
	scen := fs.String("scenarios", "corpus/scenarios", "scenario directory")
	out := fs.String("out", "corpus", "corpus root")
	scratch := fs.String("scratch", DefaultScratch, "root of the per-case scratch directories (outside any git work tree)")
	match := fs.String("run", "", "only cases whose <provider>/<cli>@<version>/<case> matches this regexp")
	install := fs.Bool("install", false, "install the pinned CLIs with npm and exit")
	verify := fs.Bool("verify", false, "re-record into a temporary directory and diff against -out")
	keep := fs.Bool("keep", false, "with -verify, keep the temporary recording")
	jobs := fs.Int("jobs", 1, "cases recorded at once")
	check := fs.Bool("check", false, "exit 0 when recording is possible here (CLIs installed, unshare works), else print why and exit 3")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *install {
		if err := InstallAll(ctx, *cache, DefaultCLIs); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	var re *regexp.Regexp
	if *match != "" {
		var err error
		if re, err = regexp.Compile(*match); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	}
	if *check {
		for _, c := range DefaultCLIs {
			if _, err := c.Bin(*cache); err != nil {
				fmt.Fprintln(stdout, err)
				return 3
			}
		}
		if err := CheckUnshare(); err != nil {
			fmt.Fprintln(stdout, err)
			return 3
		}
		return 0
	}
	if !InNamespace() {
		code, err := Reexec(self)
		if err != nil {
			fmt.Fprintln(stderr, err)
			if errors.Is(err, ErrNoIsolation) {
				return 3
			}
			return 1
		}
		return code
	}
	if err := SetupNamespace(); err != nil {
		fmt.Fprintln(stderr, err)
		return 3
	}
	opt := Options{Cache: *cache, Scenarios: *scen, Out: *out, Scratch: *scratch, Match: re, Log: stderr, Jobs: *jobs}
	if !*verify {
		if _, err := Record(ctx, opt); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	tmp, err := os.MkdirTemp("", "agentwire-verify-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if *keep {
		fmt.Fprintln(stderr, "verify: recording kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	opt.Out = tmp
	if _, err := Record(ctx, opt); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	drift, err := Verify(*out, tmp, re)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if drift != "" {
		fmt.Fprint(stdout, drift)
		fmt.Fprintln(stderr, "corpus-verify: drift found (see the diff on stdout)")
		return 1
	}
	fmt.Fprintln(stderr, "corpus-verify: no drift")
	return 0
}
