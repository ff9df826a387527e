package main

import (
	"archive/zip"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentwire/agentwire/fuzz"
)

// The engine command runs the libFuzzer binaries that `make engine-build`
// (fuzz/engine/build, .clusterfuzzlite/build.sh) puts in -out, one target
// of the fuzz.Targets registry after the other:
//
//	campaign engine -out DIR [-match RE] [-fuzztime 30s] [-workdir DIR] [-logdir DIR]
//	                [-max_len 1048580] [-rss_limit_mb 2560] [-timeout 25] [-fresh]
//
// Each binary runs as ClusterFuzzLite runs it: a working corpus
// (-workdir/corpus/<binary>/, kept from run to run unless -fresh) first,
// where new units go, then the seeds unpacked from <binary>_seed_corpus.zip,
// with -dict=<binary>.dict, -max_total_time, -max_len, -rss_limit_mb,
// -timeout, -artifact_prefix=-workdir/artifacts/<binary>/ and
// -print_final_stats=1. The table gives, from libFuzzer's own lines, the
// executions, executions per second, edge coverage (cov: at INITED and at
// the end), features (ft:), corpus units, units added, peak RSS and the
// crash, timeout and out-of-memory artifacts. Every artifact is decoded
// (fuzz.FromLibFuzzerInput) to the data the fuzz function received,
// written as fuzz/testdata/fuzz/<Target>/engine-<kind>-<sha256[:16]> in
// Go's corpus format, and replayed with `go test -run '^T$/^name$' ./fuzz`;
// once fixed, `make fuzz-regress` stages it as a regression input. The
// command exits 1 when a binary is missing or fails without an artifact,
// else 3 when some binary left an artifact (a finding), else 0.

// engineOpts are the engine command's flags.
type engineOpts struct {
	out, workdir, logdir string
	fuzztime             time.Duration
	maxLen, rss, timeout int
	fresh                bool
}

// engineResult is what one binary's run reported.
type engineResult struct {
	name, binary             string
	elapsed                  time.Duration
	execs, rate              int64
	cov0, cov, ft, corp, new int
	rssMB                    int
	artifacts                []string // kind: regression input and replay verdict
	failed                   bool
	note                     string
}

var (
	// #1234	NEW    cov: 812 ft: 2561 corp: 120/88Kb lim: 4 exec/s: 411 rss: 57Mb ...
	lfProgressRE = regexp.MustCompile(`^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+) corp: (\d+)/`)
	lfStatRE     = regexp.MustCompile(`^stat::(\w+):\s+(\d+)`)
	lfDoneRE     = regexp.MustCompile(`^Done (\d+) runs in (\d+) second`)
	lfArtifactRE = regexp.MustCompile(`Test unit written to (\S+)`)
)

func engine(re *regexp.Regexp, o engineOpts) int {
	root, err := moduleRoot()
	if err != nil {
		log.Fatal(err)
	}
	if o.logdir == "" {
		o.logdir = filepath.Join(o.workdir, "logs")
	}
	for _, d := range []string{o.workdir, o.logdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			log.Fatal(err)
		}
	}
	var rs []engineResult
	for _, t := range fuzz.Targets {
		if !re.MatchString(fuzzPkg + " " + t.Name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "[engine] %s (%s, %s)\n", t.Name, fuzz.BinaryName(t.Name), o.fuzztime)
		rs = append(rs, engineOne(t.Name, o, root))
	}
	if len(rs) == 0 {
		log.Fatalf("no target of fuzz.Targets matches %q", re)
	}
	engineTable(os.Stdout, rs)
	fmt.Printf("\nlogs: %s\n", o.logdir)
	// 1: a binary is missing or failed to run; 3: every binary ran, and
	// some left artifacts (findings).
	status := 0
	for _, r := range rs {
		switch {
		case r.failed:
			status = 1
		case len(r.artifacts) > 0 && status == 0:
			status = 3
		}
	}
	return status
}

// fuzzPkg is the package of the native fuzz tests of the registry's
// targets (fuzz_test.go), where their regression inputs live.
const fuzzPkg = "github.com/agentwire/agentwire/fuzz"

func engineOne(name string, o engineOpts, root string) engineResult {
	bin := fuzz.BinaryName(name)
	r := engineResult{name: name, binary: bin}
	path := filepath.Join(o.out, bin)
	if _, err := os.Stat(path); err != nil {
		r.failed, r.note = true, "not built (make engine-build): "+err.Error()
		return r
	}
	corpus := filepath.Join(o.workdir, "corpus", bin)
	seeds := filepath.Join(o.workdir, "seeds", bin)
	arts := filepath.Join(o.workdir, "artifacts", bin)
	if o.fresh {
		os.RemoveAll(corpus)
	}
	os.RemoveAll(seeds)
	for _, d := range []string{corpus, seeds, arts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			log.Fatal(err)
		}
	}
	if err := unzip(filepath.Join(o.out, bin+"_seed_corpus.zip"), seeds); err != nil {
		r.failed, r.note = true, "seed corpus: "+err.Error()
		return r
	}
	args := []string{
		"-max_total_time=" + strconv.Itoa(max(1, int(o.fuzztime.Seconds()))),
		"-dict=" + filepath.Join(o.out, bin+".dict"),
		"-max_len=" + strconv.Itoa(o.maxLen),
		"-rss_limit_mb=" + strconv.Itoa(o.rss),
		"-timeout=" + strconv.Itoa(o.timeout),
		"-print_final_stats=1",
		"-artifact_prefix=" + arts + "/",
		corpus, seeds,
	}
	logPath := filepath.Join(o.logdir, bin+".log")
	f, err := os.Create(logPath)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s\n", path, strings.Join(args, " "))
	// libFuzzer stops itself after -max_total_time; the deadline only
	// guards against a run that never returns (a hang it cannot catch).
	ctx, cancel := context.WithTimeout(context.Background(), o.fuzztime+time.Duration(2*o.timeout)*time.Second+2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = o.workdir
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	if err := cmd.Start(); err != nil {
		r.failed, r.note = true, err.Error()
		return r
	}
	var written []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(f, line)
			r.parseLine(line)
			if m := lfArtifactRE.FindStringSubmatch(line); m != nil {
				written = append(written, m[1])
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
	if r.rate == 0 && r.elapsed > 0 {
		r.rate = int64(float64(r.execs) / r.elapsed.Seconds())
	}
	for _, a := range written {
		if !filepath.IsAbs(a) {
			a = filepath.Join(o.workdir, a)
		}
		r.artifacts = append(r.artifacts, reproduce(name, a, root, o.timeout))
	}
	if werr != nil && len(written) == 0 {
		r.failed, r.note = true, fmt.Sprintf("%v without an artifact: see %s", werr, logPath)
	}
	return r
}

// parseLine records one line of libFuzzer's output.
func (r *engineResult) parseLine(line string) {
	if m := lfProgressRE.FindStringSubmatch(line); m != nil {
		r.execs, _ = strconv.ParseInt(m[1], 10, 64)
		r.cov, _ = strconv.Atoi(m[3])
		r.ft, _ = strconv.Atoi(m[4])
		r.corp, _ = strconv.Atoi(m[5])
		if m[2] == "INITED" {
			r.cov0 = r.cov
		}
		return
	}
	if m := lfStatRE.FindStringSubmatch(line); m != nil {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		switch m[1] {
		case "number_of_executed_units":
			r.execs = n
		case "average_exec_per_sec":
			r.rate = n
		case "new_units_added":
			r.new = int(n)
		case "peak_rss_mb":
			r.rssMB = int(n)
		}
		return
	}
	if m := lfDoneRE.FindStringSubmatch(line); m != nil {
		s, _ := strconv.Atoi(m[2])
		r.elapsed = time.Duration(s) * time.Second
	}
}

// artifactData returns the data the fuzz function received for an
// artifact: a file already in Go's one-value corpus format (the native
// engine's crashers, or a libFuzzer artifact someone converted) is taken as
// it is; anything else is a raw libFuzzer input and is decoded with
// fuzz.FromLibFuzzerInput. Decoding a corpus file a second time as a
// libFuzzer input would cut its first 4 bytes and replay other data. ok is
// false for a raw input too short to reach the function.
func artifactData(b []byte) (data []byte, ok bool) {
	if v, err := fuzz.ParseCorpusFile(b); err == nil {
		return v, true
	}
	return fuzz.FromLibFuzzerInput(b)
}

// reproduce turns a libFuzzer artifact into a Go corpus file of the native
// fuzz test and replays it; it returns the table's note for it. The replay
// runs with go test's -timeout at twice libFuzzer's -timeout (plus 10 s),
// so that a timeout artifact that still hangs fails it too.
func reproduce(target, artifact, root string, timeout int) string {
	kind, _, _ := strings.Cut(filepath.Base(artifact), "-")
	b, err := os.ReadFile(artifact)
	if err != nil {
		return fmt.Sprintf("%s: %v", kind, err)
	}
	data, ok := artifactData(b)
	if !ok {
		return fmt.Sprintf("%s %s: the input does not reach the fuzz function (under 5 bytes)", kind, artifact)
	}
	content := fuzz.CorpusFile(data)
	sum := sha256.Sum256(content)
	name := "engine-" + kind + "-" + hex.EncodeToString(sum[:])[:16]
	rel := filepath.Join("fuzz", "testdata", "fuzz", target, name)
	if err := os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, rel), content, 0o644); err != nil {
		log.Fatal(err)
	}
	run := "^" + target + "$/^" + name + "$"
	cmd := exec.Command("go", "test", "-count=1", "-timeout", strconv.Itoa(2*timeout+10)+"s", "-run", run, "./fuzz")
	cmd.Dir = root
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start).Round(time.Millisecond)
	verdict := "go test passes on it (" + took.String() + ")"
	if err != nil {
		verdict = "go test fails on it: reproduced"
	}
	fmt.Fprintf(os.Stderr, "[engine] %s %s -> %s\n  go test -run '%s' ./fuzz: %s\n%s\n", kind, artifact, rel, run, verdict, indent(out))
	return fmt.Sprintf("%s %s: %s", kind, rel, verdict)
}

// unzip extracts the seed corpus archive zipPath into dir.
func unzip(zipPath, dir string) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() || strings.ContainsAny(zf.Name, `/\`) {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, zf.Name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func engineTable(w io.Writer, rs []engineResult) {
	fmt.Fprintf(w, "\n%-14s %-15s %6s %10s %7s %11s %6s %6s %5s %6s  %s\n",
		"target", "binary", "time", "execs", "exec/s", "cov", "ft", "corpus", "new", "rss", "crashes")
	for _, r := range rs {
		cr := strconv.Itoa(len(r.artifacts))
		for _, a := range r.artifacts {
			cr += "; " + a
		}
		if r.note != "" {
			cr += " (" + r.note + ")"
		}
		fmt.Fprintf(w, "%-14s %-15s %6s %10d %7d %11s %6d %6d %5d %4dMB  %s\n", r.name, r.binary, r.elapsed, r.execs, r.rate,
			fmt.Sprintf("%d->%d", r.cov0, r.cov), r.ft, r.corp, r.new, r.rssMB, cr)
	}
}
