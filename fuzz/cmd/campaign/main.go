// Command campaign runs fuzz campaigns over every fuzz test of the module
// (make fuzz, fuzz-regress, fuzz-minimize call it). The go command fuzzes
// one target per invocation, so campaign runs them in turn:
//
//	campaign list     [-match RE]
//	campaign run      [-match RE] [-fuzztime 30s] [-parallel 1] [-jobs 1] [-minimize 60s] [-logdir DIR]
//	campaign regress  [-commit]
//	campaign minimize [-dry-run] [-export DIR]
//	campaign table    -logdir DIR
//	campaign import   [-timeout S] Target ARTIFACT...
//	campaign engine   -out DIR [-match RE] [-fuzztime 30s] [-workdir DIR] [-logdir DIR] [-max_len N] [-rss_limit_mb N] [-timeout S] [-fresh]
//
// run discovers the targets with `go test -list '^Fuzz' ./...`, runs
// `go test -run '^$' -fuzz '^T$' -fuzztime ... -parallel ...` for each,
// keeps each full log under -logdir, and prints a table (target, time,
// execs, execs/s, new inputs, crashers) parsed from the fuzzer's progress
// lines. With -jobs N, N targets run at once (each with its own -parallel
// workers): on a machine with N cores and -parallel 1, a campaign over
// every target takes 1/N of the time. New interesting inputs stay in the Go fuzz cache
// ($(go env GOCACHE)/fuzz/<pkg>/<T>/), where the next run starts from
// them; crashers are written by the go command under the package's
// testdata/fuzz/<T>/. It goes on after a failing target and exits 1 if
// any target failed.
//
// regress replays every crasher that is not yet committed (untracked
// files under */testdata/fuzz/) with `go test -run '^T$/^name$'`. One
// that now passes (its bug is fixed) is staged as a regression input, and
// committed alone with -commit; one that still fails is listed and left
// out, because a committed failing input would break `go test ./...`.
//
// table prints the table of a finished run again from the logs it kept.
//
// engine runs the libFuzzer builds of the fuzz.Targets registry instead
// (make engine-run; see engine.go). import does for libFuzzer inputs found
// elsewhere (an OSS-Fuzz or ClusterFuzzLite crash report) what engine does
// for its own artifacts: each becomes a Go corpus file of the native test
// of Target and is replayed with go test -run. An artifact already in Go's
// corpus format ("go test fuzz v1") is taken as it is, not decoded again.
//
// minimize dedupes the generated corpus of the end-to-end targets of
// package fuzz in the Go fuzz cache by outcome: inputs with the same
// fuzz.Signature (the shape of the frames or transcript they produce, not
// their bytes) are redundant, and only the smallest of each group is kept.
// It is not coverage-guided minimisation (golang/go#49290); see
// fuzz/README.md.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentwire/agentwire/fuzz"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("campaign: ")
	if len(os.Args) < 2 {
		log.Fatal("usage: campaign list|run|regress|minimize|table|engine|import [flags]")
	}
	cmd, args := os.Args[1], os.Args[2:]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	match := fs.String("match", ".", "run only targets whose \"pkg FuzzName\" matches this regexp")
	fuzztime := fs.String("fuzztime", "30s", "time (or Nx executions) per target")
	parallel := fs.Int("parallel", 1, "fuzz worker processes per target")
	jobs := fs.Int("jobs", 1, "run: targets fuzzed at the same time")
	minimize := fs.String("minimize", "60s", "-fuzzminimizetime for crashers")
	logdir := fs.String("logdir", "", "where to keep each target's log (default: a new temporary directory)")
	commit := fs.Bool("commit", false, "regress: commit the passing crashers")
	dry := fs.Bool("dry-run", false, "minimize: report without deleting")
	export := fs.String("export", "", "minimize: also copy the kept inputs to DIR/<Target>/")
	out := fs.String("out", "", "engine: the directory of the libFuzzer binaries ($OUT of make engine-build)")
	workdir := fs.String("workdir", filepath.Join(os.TempDir(), "agentwire-engine", "run"), "engine: where the corpora, seeds, artifacts and logs go")
	maxLen := fs.Int("max_len", fuzz.MaxInput+4, "engine: libFuzzer -max_len (the 4-byte length prefix included)")
	rss := fs.Int("rss_limit_mb", 2560, "engine: libFuzzer -rss_limit_mb")
	timeout := fs.Int("timeout", 25, "engine: libFuzzer -timeout, in seconds")
	fresh := fs.Bool("fresh", false, "engine: start from the seeds alone, dropping the kept corpus")
	fs.Parse(args)
	re, err := regexp.Compile(*match)
	if err != nil {
		log.Fatal(err)
	}
	switch cmd {
	case "list":
		ts, err := list(re)
		if err != nil {
			log.Fatal(err)
		}
		for _, t := range ts {
			fmt.Println(t.pkg, t.name)
		}
	case "run":
		ts, err := list(re)
		if err != nil {
			log.Fatal(err)
		}
		if *logdir == "" {
			*logdir, err = os.MkdirTemp("", "agentwire-fuzz-")
			if err != nil {
				log.Fatal(err)
			}
		}
		if err := os.MkdirAll(*logdir, 0o755); err != nil {
			log.Fatal(err)
		}
		os.Exit(run(ts, *fuzztime, *parallel, max(1, *jobs), *minimize, *logdir))
	case "regress":
		os.Exit(regress(*commit))
	case "table":
		if err := tableFromLogs(*logdir); err != nil {
			log.Fatal(err)
		}
	case "engine":
		d, err := time.ParseDuration(*fuzztime)
		if err != nil || *out == "" {
			log.Fatalf("engine needs -out DIR and a -fuzztime duration (got %q)", *fuzztime)
		}
		os.Exit(engine(re, engineOpts{out: *out, workdir: *workdir, logdir: *logdir, fuzztime: d,
			maxLen: *maxLen, rss: *rss, timeout: *timeout, fresh: *fresh}))
	case "import":
		if fs.NArg() < 2 {
			log.Fatal("usage: campaign import [-timeout S] Target ARTIFACT...")
		}
		if !slices.ContainsFunc(fuzz.Targets, func(t fuzz.Target) bool { return t.Name == fs.Arg(0) }) {
			log.Fatalf("%s is not a target of fuzz.Targets", fs.Arg(0))
		}
		root, err := moduleRoot()
		if err != nil {
			log.Fatal(err)
		}
		for _, a := range fs.Args()[1:] {
			fmt.Println(reproduce(fs.Arg(0), a, root, *timeout))
		}
	case "minimize":
		if err := minimizeCache(*dry, *export); err != nil {
			log.Fatal(err)
		}
	default:
		log.Fatalf("unknown command %q", cmd)
	}
}

type target struct{ pkg, name string }

// list runs go test -list '^Fuzz' ./... and returns the fuzz tests that
// match re. A package that fails to build is reported and skipped.
func list(re *regexp.Regexp) ([]target, error) {
	cmd := exec.Command("go", "test", "-run", "^$", "-list", "^Fuzz", "./...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return nil, fmt.Errorf("go test -list: %v", err)
	}
	var ts, pending []target
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case len(f) == 1 && strings.HasPrefix(f[0], "Fuzz"):
			pending = append(pending, target{name: f[0]})
		case len(f) >= 2 && f[0] == "ok":
			for _, t := range pending {
				t.pkg = f[1]
				if re.MatchString(t.pkg + " " + t.name) {
					ts = append(ts, t)
				}
			}
			pending = nil
		case len(f) >= 2 && f[0] == "FAIL":
			log.Printf("skipping %s: it does not build or list", f[1])
			pending = nil
		}
	}
	return ts, nil
}

// result is what one target's run reported.
type result struct {
	target
	elapsed  time.Duration
	execs    int64
	newIn    int
	crashers []string
	failed   bool
	note     string
}

var (
	progressRE = regexp.MustCompile(`fuzz: elapsed: (\S+), execs: (\d+) \((\d+)/sec\), new interesting: (\d+)`)
	crasherRE  = regexp.MustCompile(`Failing input written to (\S+)`)
)

func run(ts []target, fuzztime string, parallel, jobs int, minimize, logdir string) int {
	root, err := moduleRoot()
	if err != nil {
		log.Fatal(err)
	}
	// Up to jobs targets at once; the table keeps the targets' order.
	results := make([]result, len(ts))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	var mu sync.Mutex // orders the progress lines
	for i, t := range ts {
		sem <- struct{}{}
		mu.Lock()
		fmt.Fprintf(os.Stderr, "[%d/%d] %s %s (fuzztime %s, parallel %d)\n", i+1, len(ts), t.pkg, t.name, fuzztime, parallel)
		mu.Unlock()
		logPath := filepath.Join(logdir, strings.ReplaceAll(strings.TrimPrefix(t.pkg, "github.com/agentwire/agentwire/"), "/", "_")+"."+t.name+".log")
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runOne(t, fuzztime, parallel, minimize, logPath, root)
			<-sem
		}()
	}
	wg.Wait()
	status := 0
	for _, r := range results {
		if r.failed {
			status = 1
		}
	}
	table(os.Stdout, results)
	fmt.Printf("\nlogs: %s\n", logdir)
	if status != 0 {
		fmt.Println("crashers were written under testdata/fuzz; replay with go test -run '^T$/^name$' PKG, fix, then make fuzz-regress")
	}
	return status
}

func runOne(t target, fuzztime string, parallel int, minimize, logPath, root string) result {
	r := result{target: t}
	start := time.Now()
	cmd := exec.Command("go", "test", "-run", "^$", "-fuzz", "^"+t.name+"$", "-fuzztime", fuzztime,
		"-parallel", strconv.Itoa(parallel), "-fuzzminimizetime", minimize, t.pkg)
	cmd.Dir = root
	f, err := os.Create(logPath)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		r.failed, r.note = true, err.Error()
		return r
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(f, line)
			if m := progressRE.FindStringSubmatch(line); m != nil {
				r.progress(m)
			}
			if m := crasherRE.FindStringSubmatch(line); m != nil {
				r.crashers = append(r.crashers, m[1])
			}
		}
		io.Copy(io.Discard, pr)
	}()
	werr := cmd.Wait()
	pw.Close()
	<-done
	if r.elapsed == 0 {
		r.elapsed = time.Since(start).Truncate(time.Second)
	}
	if werr != nil {
		r.failed = true
		if len(r.crashers) == 0 {
			r.note = "failed without a crasher: see " + logPath
		}
	}
	return r
}

// progress records a progress line: the last one holds the run's totals.
func (r *result) progress(m []string) {
	r.elapsed, _ = time.ParseDuration(m[1])
	r.execs, _ = strconv.ParseInt(m[2], 10, 64)
	r.newIn, _ = strconv.Atoi(m[4])
}

// tableFromLogs rebuilds the table of a finished campaign from its logs.
func tableFromLogs(logdir string) error {
	logs, err := filepath.Glob(filepath.Join(logdir, "*.log"))
	if err != nil {
		return err
	}
	var rs []result
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			return err
		}
		base := strings.TrimSuffix(filepath.Base(l), ".log")
		i := strings.LastIndexByte(base, '.')
		r := result{target: target{pkg: strings.ReplaceAll(base[:i], "_", "/"), name: base[i+1:]}}
		for _, line := range strings.Split(string(b), "\n") {
			if m := progressRE.FindStringSubmatch(line); m != nil {
				r.progress(m)
			}
			if m := crasherRE.FindStringSubmatch(line); m != nil {
				r.crashers = append(r.crashers, m[1])
			}
			if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "--- FAIL") {
				r.failed = true
			}
		}
		rs = append(rs, r)
	}
	table(os.Stdout, rs)
	return nil
}

func table(w io.Writer, rs []result) {
	fmt.Fprintf(w, "\n%-44s %-14s %8s %12s %9s %4s  %s\n", "package", "target", "time", "execs", "execs/s", "new", "crashers")
	for _, r := range rs {
		rate := int64(0)
		if s := r.elapsed.Seconds(); s > 0 {
			rate = int64(float64(r.execs) / s)
		}
		cr := strconv.Itoa(len(r.crashers))
		if len(r.crashers) > 0 {
			cr += " " + strings.Join(r.crashers, " ")
		}
		if r.note != "" {
			cr += " (" + r.note + ")"
		}
		fmt.Fprintf(w, "%-44s %-14s %8s %12d %9d %4d  %s\n", strings.TrimPrefix(r.pkg, "github.com/agentwire/agentwire/"),
			r.name, r.elapsed, r.execs, rate, r.newIn, cr)
	}
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

// regress replays the uncommitted crashers and stages (or commits) those
// that pass.
func regress(commit bool) int {
	root, err := moduleRoot()
	if err != nil {
		log.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=all", "--", "*testdata/fuzz/*").Output()
	if err != nil {
		log.Fatalf("git status: %v", err)
	}
	var passing []string
	failing := 0
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, "?? ") {
			continue
		}
		path := strings.TrimPrefix(line, "?? ")
		i := strings.Index(path, "testdata/fuzz/")
		parts := strings.Split(path[i+len("testdata/fuzz/"):], "/")
		if len(parts) != 2 {
			continue
		}
		pkg := "./" + strings.TrimSuffix(path[:i], "/")
		if path[:i] == "" {
			pkg = "."
		}
		run := "^" + regexp.QuoteMeta(parts[0]) + "$/^" + regexp.QuoteMeta(parts[1]) + "$"
		cmd := exec.Command("go", "test", "-count=1", "-run", run, pkg)
		cmd.Dir = root
		b, err := cmd.CombinedOutput()
		if err != nil {
			failing++
			fmt.Printf("STILL FAILS  %s (not staged: fix the bug first)\n%s\n", path, indent(b))
			continue
		}
		fmt.Printf("passes       %s\n", path)
		passing = append(passing, path)
	}
	if len(passing) > 0 {
		args := append([]string{"-C", root, "add", "--"}, passing...)
		if err := exec.Command("git", args...).Run(); err != nil {
			log.Fatalf("git add: %v", err)
		}
		if commit {
			args := append([]string{"-C", root, "commit", "-m", fmt.Sprintf("fuzz: %d regression inputs from a campaign", len(passing)), "--"}, passing...)
			c := exec.Command("git", args...)
			c.Stdout, c.Stderr = os.Stdout, os.Stderr
			if err := c.Run(); err != nil {
				log.Fatalf("git commit: %v", err)
			}
		} else {
			fmt.Println("staged; commit them with: git commit -- " + strings.Join(passing, " "))
		}
	}
	if len(passing) == 0 && failing == 0 {
		fmt.Println("no uncommitted crashers under testdata/fuzz")
	}
	if failing > 0 {
		return 1
	}
	return 0
}

func indent(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 20 {
		lines = lines[:20]
	}
	return "    " + strings.Join(lines, "\n    ")
}

// minimizeCache dedupes the fuzz cache of package fuzz by outcome.
func minimizeCache(dry bool, export string) error {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return err
	}
	base := filepath.Join(strings.TrimSpace(string(out)), "fuzz", "github.com", "agentwire", "agentwire", "fuzz")
	for _, t := range fuzz.Targets {
		dir := filepath.Join(base, t.Name)
		files, err := os.ReadDir(dir)
		if os.IsNotExist(err) {
			fmt.Printf("%-14s no cached corpus\n", t.Name)
			continue
		} else if err != nil {
			return err
		}
		type entry struct {
			path string
			size int
		}
		best := map[string]entry{}
		var drop []string
		for _, f := range files {
			p := filepath.Join(dir, f.Name())
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			data, err := fuzz.ParseCorpusFile(b)
			if err != nil || len(data) > fuzz.MaxInput {
				continue
			}
			sig := fuzz.Signature(t.Name, data)
			if sig == "" {
				continue // the target rejects it: keep it, it is a finding
			}
			e := entry{p, len(data)}
			if old, ok := best[sig]; !ok || e.size < old.size {
				if ok {
					drop = append(drop, old.path)
				}
				best[sig] = e
			} else {
				drop = append(drop, p)
			}
		}
		fmt.Printf("%-14s %5d cached, %5d outcomes kept, %5d redundant%s\n", t.Name, len(files), len(best), len(drop), map[bool]string{true: " (dry run)"}[dry])
		if !dry {
			for _, p := range drop {
				if err := os.Remove(p); err != nil {
					return err
				}
			}
		}
		if export != "" {
			kept := make([]string, 0, len(best))
			for _, e := range best {
				kept = append(kept, e.path)
			}
			sort.Strings(kept)
			if err := os.MkdirAll(filepath.Join(export, t.Name), 0o755); err != nil {
				return err
			}
			for _, p := range kept {
				b, _ := os.ReadFile(p)
				if err := os.WriteFile(filepath.Join(export, t.Name, filepath.Base(p)), b, 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
