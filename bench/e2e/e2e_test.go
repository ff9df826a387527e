// Package e2e measures the whole parse path a user runs, on long streams
// built from corpus captures and on hostile streams, against the naive
// baseline most peer libraries are (bufio.Scanner with a large buffer and
// encoding/json into a map[string]any per line) and the physical limit
// (bytes.IndexByte over the input in memory).
//
// Run with
//
//	E2E_ROUNDS=3 go test -run TestE2E -v -timeout 60m ./e2e/
//
// (make bench-e2e). E2E_MB sizes the shapes (default 50) and E2E_LINES
// the hostile streams (default 1,000,000); E2E_SHAPES and E2E_CONTENDERS,
// when set, are regular expressions that keep only the shapes and
// contenders whose names match (scan+map always runs: it is the unit;
// names hold brackets, so write `check \(command\)`, not `check (command)`,
// which matches nothing);
// E2E_BIG, when set, adds the streams of the command's absolute memory
// bound, written to the input file rather than held (a 600 MB line, 1 GiB
// of small codex items: scan+map and the command only);
// E2E_BASE_BIN, when set, names another build of the agentwire command
// whose runs (named "[base]") join the rounds, for a before and after in
// one run. Contenders run interleaved
// round by round; each is scored by CPU time (getrusage: the garbage
// collector's threads count, other processes do not) and its best round.
// The command runs as a child process: its CPU time and peak RSS come
// from the kernel's accounting of that child.
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/agentwire/agentwire/parsers/appserver"
	"github.com/agentwire/agentwire/parsers/claude"
	"github.com/agentwire/agentwire/parsers/codex"
	"github.com/agentwire/agentwire/provider"
)

const corpusDir = "../../corpus"

// shape is one input stream and the provider that parses it.
type shape struct {
	name, provider string
	data           []byte
	settings       map[string]bool
	// write, for a stream too large to hold (E2E_BIG), writes it to the
	// input file instead of data; only scan+map (reading the file) and
	// the command run on it.
	write func(w io.Writer) error
}

// bigShapes are the streams of the command's absolute memory bound (at
// most 256 MiB whatever the input): a 600 MB line the framing skips as
// over-long, and 1 GiB of small codex items (replicate's stream, ids
// renumbered, written as it is made).
func bigShapes(t *testing.T) []shape {
	const capture = "codex/codex@0.169.0/tool-success"
	head := []byte(`{"type":"thread.started","thread_id":"t-1"}` + "\n")
	foot := []byte(`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}` + "\n")
	return []shape{
		{name: "big: a 600 MB line", provider: "codex", write: func(w io.Writer) error {
			w.Write(head)
			w.Write([]byte(`{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"`))
			chunk := bytes.Repeat([]byte("a"), 1<<20)
			for range 600 {
				w.Write(chunk)
			}
			w.Write([]byte("\"}}\n"))
			_, err := w.Write(foot)
			return err
		}},
		{name: "big: 1 GiB of small codex items", provider: "codex", write: func(w io.Writer) error {
			return replicateTo(t, w, capture, 2, 1<<30)
		}},
	}
}

// replicate is parsertest.Replicate's stream of about size bytes from a
// capture of the corpus (its first head lines, its middle lines repeated
// with their ids renumbered, its last line): the builder the parsers' own
// benchmarks use too.
func replicate(t *testing.T, name, prov, capture string, head, size int, settings map[string]bool) shape {
	return shape{name: name, provider: prov, data: parsertest.Replicated(readCapture(t, capture), head, size), settings: settings}
}

// replicateTo writes replicate's stream of at least size bytes to w, as it
// goes (E2E_BIG's 1 GiB is never held), and returns w's first error.
func replicateTo(t *testing.T, w io.Writer, capture string, head, size int) error {
	return parsertest.Replicate(w, readCapture(t, capture), head, size)
}

// readCapture is the stdout of a corpus case.
func readCapture(t *testing.T, capture string) string {
	b, err := os.ReadFile(filepath.Join(corpusDir, capture, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hostile is parsertest.Repeat's flood of one line between a header and a
// footer.
func hostile(name, prov, header, line, footer string, n int) shape {
	return shape{name: name, provider: prov, data: parsertest.Repeat(header, line, footer, n)}
}

func shapes(t *testing.T) []shape {
	mb, _ := strconv.Atoi(os.Getenv("E2E_MB"))
	if mb <= 0 {
		mb = 50
	}
	n, _ := strconv.Atoi(os.Getenv("E2E_LINES"))
	if n <= 0 {
		n = 1_000_000
	}
	size := mb << 20
	partial := map[string]bool{"partial-messages": true}
	codexHead := `{"type":"thread.started","thread_id":"t-1"}` + "\n" + `{"type":"turn.started"}` + "\n"
	codexFoot := `{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}` + "\n"
	claudeHead := `{"type":"system","subtype":"init","session_id":"s-1","model":"m","cwd":"/w","tools":[]}` + "\n"
	claudeFoot := `{"type":"result","subtype":"success","is_error":false,"result":"x","session_id":"s-1","num_turns":1,"usage":{"input_tokens":1,"output_tokens":1}}` + "\n"
	var big []shape
	if os.Getenv("E2E_BIG") != "" {
		big = bigShapes(t)
	}
	return append([]shape{
		replicate(t, "codex small items", "codex", "codex/codex@0.169.0/tool-success", 2, size, nil),
		replicate(t, "codex big outputs", "codex", "codex/codex@0.169.0/big-output", 2, size, nil),
		replicate(t, "claude mixed", "claude", "claude/claude-code@2.1.328/tool-success", 1, size, nil),
		replicate(t, "claude partial", "claude", "claude/claude-code@2.1.328/tool-success-partial", 1, size, partial),
		// The handshake and turn/started once, then the turn's items and
		// notifications repeated, then turn/completed.
		replicate(t, "appserver small", "appserver", "appserver/codex@0.169.0/tool-success", 8, size, nil),
		hostile("hostile: tiny unknown lines", "codex", codexHead, `{"type":"x"}`, codexFoot, n),
		hostile("hostile: codex todo_list updates", "codex", codexHead+`{"type":"item.started","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":false}]}}`+"\n",
			`{"type":"item.updated","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":false},{"text":"b","completed":true}]}}`, codexFoot, n),
		hostile("hostile: claude keep_alive", "claude", claudeHead, `{"type":"keep_alive"}`, claudeFoot, n),
		hostile("hostile: app-server notifications", "appserver", "", `{"method":"account/rateLimits/updated","params":{"rateLimits":{"primary":null}}}`, "", n),
	}, big...)
}

type nopSink struct{}

func (nopSink) Emit(driver.RunEvent) error            { return nil }
func (nopSink) EmitStream(driver.StreamPayload) error { return nil }

// feed runs the provider's parser over the framed input without the tee:
// the library's Feed path.
func feed(s shape) driver.Response {
	r := bytes.NewReader(s.data)
	switch s.provider {
	case "codex":
		p := codex.New(nopSink{}, codex.Options{Streaming: true})
		drain(ndjson.NewReader(r, ndjson.Options{}).Next, p.Feed, p.FeedError)
		resp, _ := p.Finish(driver.Outcome{})
		return resp
	case "claude":
		p := claude.New(nopSink{}, claude.Options{Streaming: true, PartialMessages: s.settings["partial-messages"]})
		drain(ndjson.NewReader(r, ndjson.Options{}).Next, p.Feed, p.FeedError)
		resp, _ := p.Finish(driver.Outcome{})
		return resp
	case "appserver":
		p := appserver.New(nopSink{}, appserver.Options{Streaming: true})
		drain(jsonrpc.NewReader(r, jsonrpc.Options{}).Next, p.Feed, p.FeedError)
		resp, _ := p.Finish(driver.Outcome{})
		return resp
	}
	panic("no Feed contender for " + s.provider)
}

// drain feeds every frame of next to feed and every framing error to
// feedErr, to the end of the input.
func drain[F any](next func() (F, error), feed func(F) error, feedErr func(error) error) {
	for {
		f, err := next()
		if err == io.EOF {
			return
		}
		if err != nil {
			_ = feedErr(err)
			continue
		}
		_ = feed(f)
	}
}

// parse is the library's Parse through the registry: framing, tee and the
// complete RawStreams.
func parse(s shape) driver.Response {
	p, _ := provider.Lookup(s.provider)
	return p.Parse(provider.Input{Capture: provider.Capture{Stdout: bytes.NewReader(s.data)}, Streaming: true, Settings: s.settings}, nopSink{}).Response
}

// scanMap is the naive baseline; it reads the input file for a shape
// without data.
func scanMap(s shape, file string) int {
	var r io.Reader = bytes.NewReader(s.data)
	if s.data == nil {
		f, err := os.Open(file)
		if err != nil {
			return 0
		}
		defer f.Close()
		r = f
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	n := 0
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			n += len(m)
		}
	}
	return n
}

// limit is the physical limit: finding every line end in memory.
func limit(s shape) int {
	n := 0
	for rest := s.data; len(rest) > 0; n++ {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
	}
	return n
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// result is one contender's best round.
type result struct {
	cpu              time.Duration
	allocPerByte     float64
	retainedPerByte  float64
	peakRSS          int64 // child process only, bytes (0: not measured)
	measured, failed bool
	child            bool // the command, a child process
}

// measure runs f once and returns its CPU time, the bytes it allocated
// and the heap still reachable from what it returned, per input byte.
func measure(n int, f func() any) result {
	runtime.GC()
	var m0, m1, m2 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0 := cpuTime()
	keep := f()
	cpu := cpuTime() - c0
	runtime.ReadMemStats(&m1)
	runtime.GC()
	runtime.ReadMemStats(&m2)
	runtime.KeepAlive(keep)
	retained := float64(int64(m2.HeapAlloc)-int64(m0.HeapAlloc)) / float64(n)
	return result{cpu: cpu, allocPerByte: float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n), retainedPerByte: max(retained, 0), measured: true}
}

// command runs the agentwire binary on the shape's file.
//
// Its peak RSS comes from GNU time (/usr/bin/time -f %M), when present,
// not from this process's wait: Go starts a child with vfork, so the
// child's ru_maxrss starts at this process's own peak (Linux keeps the
// larger across exec), about the size of every shape held here. time
// forks its child from its own small image, and reports that child's
// peak alone. Without GNU time the RSS column is "-". The CPU time is
// that of the child and its descendants, from this process's wait.
func command(bin, file string, prov string, args ...string) result {
	argv := append(append([]string{bin}, args...), "--provider", prov, file)
	rssFile := ""
	if _, err := os.Stat(gnuTime); err == nil {
		f, err := os.CreateTemp("", "e2e-rss")
		if err == nil {
			rssFile = f.Name()
			f.Close()
			defer os.Remove(rssFile)
			argv = append([]string{gnuTime, "-f", "%M", "-o", rssFile}, argv...)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	err := cmd.Run()
	st := cmd.ProcessState
	if st == nil {
		return result{failed: true}
	}
	r := result{cpu: st.UserTime() + st.SystemTime(), measured: true, child: true}
	if rssFile != "" {
		if b, err := os.ReadFile(rssFile); err == nil {
			// The last line: time writes "Command exited with non-zero
			// status 1" before it when the command fails (check finding
			// damage).
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			if kb, err := strconv.ParseInt(lines[len(lines)-1], 10, 64); err == nil {
				r.peakRSS = kb << 10
			}
		}
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
			r.failed = true
		}
	}
	return r
}

const gnuTime = "/usr/bin/time"

// The command's contenders, in table order, and their arguments.
var (
	commandNames = []string{"check (command)", "parse --format json (command)", "parse --format jsonl (command)", "parse text (command)"}
	commandArgs  = map[string][]string{
		"check (command)":                {"check"},
		"parse --format json (command)":  {"parse", "--format", "json"},
		"parse --format jsonl (command)": {"parse", "--format", "jsonl"},
		"parse text (command)":           {"parse", "--color", "never"},
	}
)

func TestE2E(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("E2E_ROUNDS"))
	if rounds <= 0 {
		t.Skip("set E2E_ROUNDS=<rounds> to run (make bench-e2e)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "agentwire")
	build := exec.Command("go", "build", "-o", bin, "github.com/agentwire/agentwire/cmd/agentwire")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	type contender struct {
		name string
		run  func(s shape, file string) result
	}
	contenders := []contender{
		{"IndexByte limit", func(s shape, _ string) result { return measure(len(s.data), func() any { return limit(s) }) }},
		{"scan+map", func(s shape, f string) result { return measure(inputSize(s, f), func() any { return scanMap(s, f) }) }},
		{"Feed", func(s shape, _ string) result { return measure(len(s.data), func() any { return feed(s) }) }},
		{"Parse", func(s shape, _ string) result { return measure(len(s.data), func() any { return parse(s) }) }},
	}
	for _, name := range commandNames {
		args := commandArgs[name]
		contenders = append(contenders, contender{name, func(s shape, f string) result { return command(bin, f, s.provider, args...) }})
	}
	if base := os.Getenv("E2E_BASE_BIN"); base != "" {
		// The same commands run by another build, interleaved with these:
		// a before and after in one run.
		for _, name := range commandNames {
			args := commandArgs[name]
			contenders = append(contenders, contender{name + " [base]", func(s shape, f string) result {
				return command(base, f, s.provider, args...)
			}})
		}
	}
	keep := func(env, name string) bool {
		re := os.Getenv(env)
		if re == "" {
			return true
		}
		ok, err := regexp.MatchString(re, name)
		if err != nil {
			t.Fatalf("%s: %v", env, err)
		}
		return ok
	}
	var table strings.Builder
	fmt.Fprintf(&table, "| input | MB | contender | MB per CPU-s | x scan+map | alloc B/B | retained B/B | peak RSS MiB |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range shapes(t) {
		if !keep("E2E_SHAPES", s.name) {
			continue
		}
		file := filepath.Join(dir, "input")
		if err := writeInput(file, s); err != nil {
			t.Fatal(err)
		}
		size := inputSize(s, file)
		best := make([]result, len(contenders))
		for range rounds {
			for i, c := range contenders {
				if i != 1 && !keep("E2E_CONTENDERS", c.name) || s.data == nil && i != 1 && !strings.Contains(c.name, "(command)") {
					continue
				}
				r := c.run(s, file)
				if !best[i].measured || r.cpu < best[i].cpu {
					best[i] = r
				}
			}
		}
		mb := float64(size) / 1e6
		base := mb / best[1].cpu.Seconds()
		for i, c := range contenders {
			r := best[i]
			if !r.measured {
				continue
			}
			rate := mb / r.cpu.Seconds()
			alloc, ret, rss := fmt.Sprintf("%.1f", r.allocPerByte), fmt.Sprintf("%.1f", r.retainedPerByte), "-"
			if r.child {
				alloc, ret = "-", "-"
			}
			if r.peakRSS > 0 {
				rss = fmt.Sprintf("%.0f", float64(r.peakRSS)/(1<<20))
			}
			status := ""
			if r.failed {
				status = " (failed)"
			}
			row := fmt.Sprintf("| %s | %.1f | %s%s | %.0f | %.2fx | %s | %s | %s |\n", s.name, mb, c.name, status, rate, rate/base, alloc, ret, rss)
			table.WriteString(row)
			t.Log(row) // as it comes: a run on a loaded machine is long
		}
		os.Remove(file)
	}
	t.Logf("best of %d interleaved rounds, CPU time:\n%s", rounds, table.String())
}

// inputSize is the length of the shape's stream (file holds it).
func inputSize(s shape, file string) int {
	if s.data != nil {
		return len(s.data)
	}
	st, err := os.Stat(file)
	if err != nil {
		return 1
	}
	return int(st.Size())
}

// writeInput writes the shape's stream to file.
func writeInput(file string, s shape) error {
	if s.write == nil {
		return os.WriteFile(file, s.data, 0o644)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := s.write(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
