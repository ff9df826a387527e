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
	"strings"
	"syscall"
)

// Command holds the recorder's command-line settings; Flags declares them
// (once, for cmd/agentwire-record and the agentwire record subcommand) and
// Run runs them.
type Command struct {
	Cache, Scenarios, Out, Scratch, Match string
	Install, Verify, Keep, Check          bool
	Jobs, Retries                         int
}

// Flags declares the recorder's flags on fs and returns the settings they
// fill.
func Flags(fs *flag.FlagSet) *Command {
	c := &Command{}
	fs.StringVar(&c.Cache, "cache", ".cache/npm", "`directory` the pinned CLIs are installed in")
	fs.StringVar(&c.Scenarios, "scenarios", "corpus/scenarios", "scenario `directory`")
	fs.StringVar(&c.Out, "out", "corpus", "corpus root `directory`")
	fs.StringVar(&c.Scratch, "scratch", DefaultScratch, "root `directory` of the per-case scratch directories (outside any git work tree)")
	fs.StringVar(&c.Match, "run", "", "only cases whose <provider>/<cli>@<version>/<case> matches this `regexp`")
	fs.BoolVar(&c.Install, "install", false, "install the pinned CLIs with npm and exit")
	fs.BoolVar(&c.Verify, "verify", false, "re-record into a temporary directory and diff against -out")
	fs.BoolVar(&c.Keep, "keep", false, "with -verify, keep the temporary recording")
	fs.IntVar(&c.Jobs, "jobs", 1, "cases recorded at once")
	fs.IntVar(&c.Retries, "retries", 0, "with -verify, record a drifting case up to `n` more times; it drifts only when it drifts every time")
	fs.BoolVar(&c.Check, "check", false, "exit 0 when recording is possible here (CLIs installed, unshare works), else print why and exit 3")
	return c
}

// Main is the recorder's command line as cmd/agentwire-record runs it:
// Flags parsed from args, then Run.
func Main(args, self []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := Flags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %q\n", fs.Args())
		return 2
	}
	return c.Run(self, stdout, stderr)
}

// Run runs the command. self are the arguments that run this same command
// again when the program is re-executed inside its network namespace
// (os.Args[1:] for agentwire-record, e.g. ["record", flags...] for
// agentwire). It returns the exit status: 0 success, 1 failure or drift, 2
// usage, 3 recording impossible here (CLIs missing or no network
// namespace).
func (c *Command) Run(self []string, stdout, stderr io.Writer) int {
	cache, scen, out, scratch, match := &c.Cache, &c.Scenarios, &c.Out, &c.Scratch, &c.Match
	install, verify, jobs, check := &c.Install, &c.Verify, &c.Jobs, &c.Check
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
			fmt.Fprintln(stderr, "--run:", err)
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
	resolvDir, err := os.MkdirTemp("", "agentwire-resolv-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer os.RemoveAll(resolvDir)
	if err := LoopbackResolver(resolvDir); err != nil {
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
	drift, err := c.verifyOnce(ctx, opt, stderr)
	for try := 1; err == nil && len(drift) > 0 && try <= c.Retries; try++ {
		// The CLIs race with themselves in ways normalisation cannot
		// all foresee; a drift must reproduce. Only the drifting cases
		// are recorded again, and a case drifts only when it drifts
		// every time (the last diff is the one shown).
		cases := sortedCases(drift)
		fmt.Fprintf(stderr, "corpus-verify: %d case(s) drifted; recording them again (%d of %d) to see whether the drift reproduces: %s\n",
			len(cases), try, c.Retries, strings.Join(cases, " "))
		for _, k := range cases {
			fmt.Fprintf(stderr, "corpus-verify: drift of %s on the try before:\n%s", k, drift[k])
		}
		again := opt
		again.Match = exactCases(cases)
		var next map[string]string
		if next, err = c.verifyOnce(ctx, again, stderr); err != nil {
			break
		}
		for k := range drift {
			if d, ok := next[k]; ok {
				drift[k] = d
			} else {
				delete(drift, k)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if len(drift) > 0 {
		for _, k := range sortedCases(drift) {
			fmt.Fprint(stdout, drift[k])
		}
		fmt.Fprintln(stderr, "corpus-verify: drift found (see the diff on stdout)")
		return 1
	}
	fmt.Fprintln(stderr, "corpus-verify: no drift")
	return 0
}

// verifyOnce records the cases opt selects into a temporary directory and
// returns their drift from the corpus under c.Out (VerifyCases).
func (c *Command) verifyOnce(ctx context.Context, opt Options, stderr io.Writer) (map[string]string, error) {
	tmp, err := os.MkdirTemp("", "agentwire-verify-")
	if err != nil {
		return nil, err
	}
	if c.Keep {
		fmt.Fprintln(stderr, "verify: recording kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	opt.Out = tmp
	if _, err := Record(ctx, opt); err != nil {
		return nil, err
	}
	return VerifyCases(c.Out, tmp, opt.Match)
}

// exactCases returns the regexp that selects exactly the given cases.
func exactCases(cases []string) *regexp.Regexp {
	quoted := make([]string, len(cases))
	for i, k := range cases {
		quoted[i] = regexp.QuoteMeta(k)
	}
	return regexp.MustCompile(`^(?:` + strings.Join(quoted, "|") + `)$`)
}
