// Package record records golden corpora from the real agent CLIs.
//
// For each pinned CLI version and each scenario it starts a scripted mock
// model server (package mock) on 127.0.0.1, runs the real CLI against it with
// a scratch home directory, drives its stdin where the protocol needs it
// (Claude's stream-json control protocol, the Codex app-server JSON-RPC
// session), sends signals for cancellation scenarios, and writes
//
//	<out>/<provider>/<cli>@<version>/<case>/{stdout,stderr,stdin,meta.json,requests.jsonl}
//
// A scenario with several runs (resume) writes run-1/, run-2/, ... below the
// case directory, each with the files above, and a case-level meta.json.
//
// The CLIs resolve their vendors' hosts at start-up, so recording must run
// in a network namespace that has only loopback: see Isolate.
package record

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentwire/agentwire/corpus/internal/ojson"
	"github.com/agentwire/agentwire/corpus/mock"
)

// Options configure Record.
type Options struct {
	// Cache is the directory the CLIs are installed in (see CLI.Install).
	Cache string
	// Scenarios is the scenario directory (corpus/scenarios).
	Scenarios string
	// Out is the corpus root the recordings are written under (corpus).
	Out string
	// Scratch is the root of the per-case scratch directories; default
	// DefaultScratch. Each case's directory is wiped first. It must not be
	// inside a git work tree: the CLIs read the repository around their
	// working directory (Claude Code 2.0 sends its git history to the model).
	Scratch string
	// CLIs are the CLI versions to record; default DefaultCLIs.
	CLIs []CLI
	// Match, when set, selects cases by "<provider>/<cli>@<version>/<case>".
	Match *regexp.Regexp
	// Log receives one progress line per case; default io.Discard.
	Log io.Writer
	// Now stamps meta.json; default time.Now.
	Now func() time.Time
	// Jobs is how many cases are recorded at once (default 1).
	Jobs int
}

// DefaultScratch is the default scratch root: a fixed path, so that the
// paths the CLIs print are the same on every machine, outside any git work
// tree and outside /tmp (Codex refuses to put helper binaries under a
// temporary directory and says so on stderr).
const DefaultScratch = "/var/tmp/agentwire-record"

// A Result reports one recorded case.
type Result struct {
	Path string // <provider>/<cli>@<version>/<case>
	Err  error
}

// Record records every selected case. It returns the per-case results and
// an error when any case failed or the CLIs are missing.
func Record(ctx context.Context, opt Options) ([]Result, error) {
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.CLIs == nil {
		opt.CLIs = DefaultCLIs
	}
	if opt.Scratch == "" {
		opt.Scratch = DefaultScratch
	}
	for _, p := range []*string{&opt.Cache, &opt.Scratch, &opt.Out} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, err
		}
		*p = abs
	}
	scens, err := Load(opt.Scenarios)
	if err != nil {
		return nil, err
	}
	type job struct {
		cli CLI
		bin string
		c   Case
	}
	var jobs []job
	for _, cli := range opt.CLIs {
		var todo []Case
		for _, s := range scens {
			if s.Provider != cli.Provider || !s.For(cli) {
				continue
			}
			for _, c := range s.Cases() {
				if opt.Match == nil || opt.Match.MatchString(casePath(cli, c.Name)) {
					todo = append(todo, c)
				}
			}
		}
		if len(todo) == 0 {
			continue
		}
		bin, err := cli.Bin(opt.Cache)
		if err != nil {
			return nil, err
		}
		for _, c := range todo {
			jobs = append(jobs, job{cli, bin, c})
		}
	}
	// Cases are independent (own scratch directory, mock server and
	// process group), so Jobs of them run at once.
	n := max(opt.Jobs, 1)
	results := make([]Result, len(jobs))
	var logMu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				path := casePath(j.cli, j.c.Name)
				start := time.Now()
				err := recordCase(ctx, opt, j.cli, j.bin, j.c)
				results[i] = Result{Path: path, Err: err}
				status := "ok"
				if err != nil {
					status = "FAIL: " + err.Error()
				}
				logMu.Lock()
				fmt.Fprintf(opt.Log, "record %-60s %5.1fs %s\n", path, time.Since(start).Seconds(), status)
				logMu.Unlock()
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return results, ctx.Err()
	}
	failed := 0
	for _, r := range results {
		if r.Err != nil {
			failed++
		}
	}
	if failed > 0 {
		return results, fmt.Errorf("record: %d of %d cases failed", failed, len(results))
	}
	return results, nil
}

func casePath(cli CLI, name string) string {
	return cli.Provider + "/" + cli.Dir() + "/" + name
}

// Meta is the meta.json of one run.
type Meta struct {
	Provider    string `json:"provider"`
	CLI         string `json:"cli"`
	Package     string `json:"package"`
	Version     string `json:"version"`
	Scenario    string `json:"scenario"`
	Variant     string `json:"variant,omitempty"`
	Description string `json:"description"`
	Run         int    `json:"run,omitempty"` // 1-based, for multi-run cases
	// Argv has the scratch paths, the CLI path and the mock URL replaced by
	// <SCRATCH>, <CLI> and <MOCK_URL>.
	Argv []string `json:"argv"`
	// Env lists the names of the environment variables set (nothing is
	// inherited).
	Env []string `json:"env"`
	// CodexConfig is the config.toml written into CODEX_HOME (Codex only).
	CodexConfig string `json:"codex_config,omitempty"`
	// GeminiSettings is the $HOME/.gemini/settings.json written for Gemini
	// CLI.
	GeminiSettings string `json:"gemini_settings,omitempty"`
	Cwd            string `json:"cwd"`
	Stdin          bool   `json:"stdin"`
	ExitCode       int    `json:"exit_code"`
	Signal         string `json:"signal,omitempty"`      // signal that ended the CLI
	SentSignal     string `json:"sent_signal,omitempty"` // signal the recorder sent
	Interrupt      bool   `json:"interrupt,omitempty"`   // protocol interrupt sent
	TimedOut       bool   `json:"timed_out,omitempty"`
	Killed         string `json:"recorder_note,omitempty"`
	SessionID      string `json:"session_id,omitempty"`
	// ErrorReports are the names of the error reports Gemini CLI left in
	// TMPDIR during the run (gemini-client-error-<where>-<TIME>.json,
	// normalised); stderr names them with their paths.
	ErrorReports []string `json:"error_reports,omitempty"`
	// Requests is the number of HTTP requests the mock saw during the run,
	// ModelRequests those answered from the script.
	Requests      int `json:"requests"`
	ModelRequests int `json:"model_requests"`
	// SideRequests are model requests outside the conversation (Claude
	// Code's warmups, title and git-history prompts), answered with a
	// fixed reply that consumes nothing from the script.
	SideRequests int    `json:"side_requests,omitempty"`
	Recorded     string `json:"recorded"` // RFC 3339 date
	DurationMS   int64  `json:"duration_ms"`
}

// CaseMeta is the case-level meta.json of a multi-run case.
type CaseMeta struct {
	Provider    string       `json:"provider"`
	CLI         string       `json:"cli"`
	Package     string       `json:"package"`
	Version     string       `json:"version"`
	Scenario    string       `json:"scenario"`
	Variant     string       `json:"variant,omitempty"`
	Description string       `json:"description"`
	Runs        []string     `json:"runs"`
	ResumeProof *ResumeProof `json:"resume_proof,omitempty"`
	Recorded    string       `json:"recorded"`
}

// ResumeProof records where the marker of the first run was found in the
// last run's model requests.
type ResumeProof struct {
	Marker     string   `json:"marker"`
	SessionIDs []string `json:"session_ids"`
	Request    int      `json:"request"` // mock request seq of the last run containing it
}

type runOut struct {
	meta     Meta
	res      *runResult
	requests []mock.Request
}

func recordCase(ctx context.Context, opt Options, cli CLI, bin string, c Case) error {
	scratch := filepath.Join(opt.Scratch, cli.Provider, cli.Dir(), c.Name)
	if err := os.RemoveAll(scratch); err != nil {
		return err
	}
	for _, d := range []string{"home", "work", "tmp", "config"} {
		if err := os.MkdirAll(filepath.Join(scratch, d), 0o755); err != nil {
			return err
		}
	}
	api := cli.API()
	var mu sync.Mutex
	var cur chan int
	srv, err := mock.New(mock.Options{API: api, Replies: c.RepliesFor(cli),
		Side: sideRequest(api), SideReply: sideReply,
		OnWritten: func(seq, reply int) {
			mu.Lock()
			ch := cur
			mu.Unlock()
			if ch != nil && reply >= -1 {
				select {
				case ch <- seq:
				default:
				}
			}
		}})
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Close()

	if cli.Provider == "codex" || cli.Provider == "appserver" {
		cfg := filepath.Join(scratch, "config", "config.toml")
		if err := os.WriteFile(cfg, []byte(codexConfig(srv.URL())), 0o644); err != nil {
			return err
		}
	}
	timeout := time.Duration(c.TimeoutSec) * time.Second
	if timeout == 0 {
		timeout = 90 * time.Second
	}
	var outs []runOut
	var sids []string
	sid := ""
	runs := c.RunsFor(cli)
	var ended time.Time // when the previous run ended (ACPAgent.WaitToLoad)
	for i, run := range runs {
		if a, ok := ACPAgents[cli.Name]; ok && cli.Provider == "acp" && run.Resume && i > 0 {
			time.Sleep(a.WaitToLoad(ended, time.Now()))
		}
		ch := make(chan int, 64)
		mu.Lock()
		cur = ch
		mu.Unlock()
		before := len(srv.Requests())
		reportsBefore := errorReports(scratch)
		inv, err := invocation(cli, bin, opt.Cache, c, run, sid, scratch, srv.URL())
		if err != nil {
			return err
		}
		grace := 15 * time.Second
		if inv.exitGrace > 0 {
			grace = inv.exitGrace
		}
		res, err := execute(ctx, runSpec{Argv: inv.argv, Env: inv.env, Dir: filepath.Join(scratch, "work"),
			Timeout: timeout, Requests: ch, Signal: run.Signal, Intr: run.Interrupt, ExitGrace: grace}, inv.drv)
		ended = time.Now()
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		// What the run wrote and the mock received stay in the scratch
		// directory, for debugging a run that fails below.
		_ = os.WriteFile(filepath.Join(scratch, fmt.Sprintf("stdout-%d", i+1)), res.Stdout, 0o644)
		_ = os.WriteFile(filepath.Join(scratch, fmt.Sprintf("stderr-%d", i+1)), res.Stderr, 0o644)
		_ = os.WriteFile(filepath.Join(scratch, fmt.Sprintf("stdin-%d", i+1)), res.Stdin, 0o644)
		reqs := srv.Requests()[before:]
		dumpRequests(filepath.Join(scratch, fmt.Sprintf("requests-%d.jsonl", i+1)), reqs)
		if strings.HasPrefix(res.Killed, "driver") || strings.HasPrefix(res.Killed, "interrupt") {
			return fmt.Errorf("run %d: %s", i+1, res.Killed)
		}
		if res.TimedOut {
			return fmt.Errorf("run %d: timed out after %v", i+1, timeout)
		}
		if s := inv.drv.session(); s != "" {
			sid = s
		}
		sids = append(sids, inv.drv.session())
		m := Meta{Provider: cli.Provider, CLI: cli.Name, Package: cli.Package, Version: cli.Version,
			Scenario: c.Scenario.Name, Variant: c.Variant, Description: c.Description,
			Argv: placeholders(inv.argv, bin, scratch, srv.URL(), inv.port), Env: envNames(inv.env), Cwd: "<SCRATCH>/work",
			Stdin: res.StdinUsed, ExitCode: res.ExitCode, Signal: res.Signal, SentSignal: res.SentSignal,
			Interrupt: res.Interrupted, TimedOut: res.TimedOut, Killed: res.Killed, SessionID: inv.drv.session(),
			Requests: len(reqs), Recorded: opt.Now().UTC().Format(time.RFC3339), DurationMS: res.Duration.Milliseconds()}
		for _, r := range reqs {
			switch {
			case r.Reply >= -1:
				m.ModelRequests++
			case r.Reply == -3:
				m.SideRequests++
			}
		}
		if len(runs) > 1 {
			m.Run = i + 1
		}
		for _, r := range errorReports(scratch) {
			if !slices.Contains(reportsBefore, r) {
				m.ErrorReports = append(m.ErrorReports, string(Normalize([]byte(r))))
			}
		}
		if cli.Provider == "codex" || cli.Provider == "appserver" {
			m.CodexConfig = strings.ReplaceAll(codexConfig(srv.URL()), srv.URL(), "<MOCK_URL>")
		}
		if cli.Provider == "gemini-cli" {
			m.GeminiSettings = geminiSettings
		}
		outs = append(outs, runOut{meta: m, res: res, requests: reqs})
	}
	mu.Lock()
	cur = nil
	mu.Unlock()

	var proof *ResumeProof
	if c.ResumeProof != "" {
		last := outs[len(outs)-1]
		for _, r := range last.requests {
			if r.Reply >= -1 && strings.Contains(string(r.Body), c.ResumeProof) {
				proof = &ResumeProof{Marker: c.ResumeProof, SessionIDs: sids, Request: r.Seq}
				break
			}
		}
		if proof == nil {
			return fmt.Errorf("resume proof: marker %q not in any model request of the last run", c.ResumeProof)
		}
	}

	dst := filepath.Join(opt.Out, cli.Provider, cli.Dir(), c.Name)
	if err := clearRecording(dst); err != nil {
		return err
	}
	if len(outs) == 1 {
		return writeRun(dst, api, opt.Scratch, opt.Cache, outs[0])
	}
	cm := CaseMeta{Provider: cli.Provider, CLI: cli.Name, Package: cli.Package, Version: cli.Version,
		Scenario: c.Scenario.Name, Variant: c.Variant, Description: c.Description, ResumeProof: proof,
		Recorded: opt.Now().UTC().Format(time.RFC3339)}
	for i, ro := range outs {
		name := fmt.Sprintf("run-%d", i+1)
		cm.Runs = append(cm.Runs, name)
		if err := writeRun(filepath.Join(dst, name), api, opt.Scratch, opt.Cache, ro); err != nil {
			return err
		}
	}
	return writeJSON(filepath.Join(dst, "meta.json"), cm)
}

// CacheDir replaces the CLI cache directory (Options.Cache) in what the
// CLIs write: Gemini CLI's stack traces name its bundle's path, which
// depends on where the repository is checked out.
const CacheDir = "<CLI_CACHE>"

// errorReports lists the error reports Gemini CLI wrote into the run's
// TMPDIR, sorted.
func errorReports(scratch string) []string {
	files, _ := filepath.Glob(filepath.Join(scratch, "tmp", "gemini-client-error-*.json"))
	for i, f := range files {
		files[i] = filepath.Base(f)
	}
	return files
}

// writeRun writes the files of one run into dir. scratch is the scratch
// root the run was recorded under, cache the CLI cache: in stdout, stderr
// and stdin they are rewritten to DefaultScratch (with the directory slugs
// Claude Code derives from it) and CacheDir, requests.jsonl is
// normalised whole (see NormalizeRequest).
func writeRun(dir string, api mock.API, scratch, cache string, ro runOut) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string][]byte{"stdout": ro.res.Stdout, "stderr": ro.res.Stderr}
	if ro.res.StdinUsed {
		files["stdin"] = ro.res.Stdin
	}
	if rewrite := scratchRewriter(scratch, cache); rewrite != nil {
		for name, b := range files {
			files[name] = rewrite(b)
		}
	}
	reqs, err := requestsJSONL(api, scratch, cache, ro.requests)
	if err != nil {
		return err
	}
	files["requests.jsonl"] = reqs
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return writeJSON(filepath.Join(dir, "meta.json"), ro.meta)
}

// requestsJSONL is the requests.jsonl of a run recorded under the scratch
// root scratch: one normalised summary per request.
func requestsJSONL(api mock.API, scratch, cache string, requests []mock.Request) ([]byte, error) {
	norm := NormalizeRequest(scratch, cache)
	var out []byte
	for _, r := range requests {
		b, err := ojson.Marshal(summarize(api, r, norm))
		if err != nil {
			return nil, err
		}
		out = append(append(out, b...), '\n')
	}
	return out, nil
}

func writeJSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// placeholders returns argv with the CLI path, the scratch root and the
// mock URL replaced, and the argument that is port (when not 0) by <PORT>.
func placeholders(argv []string, bin, scratch, url string, port int) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if port != 0 && a == strconv.Itoa(port) {
			out[i] = "<PORT>"
			continue
		}
		a = strings.ReplaceAll(a, bin, "<CLI>")
		a = strings.ReplaceAll(a, scratch, "<SCRATCH>")
		a = strings.ReplaceAll(a, url, "<MOCK_URL>")
		out[i] = a
	}
	return out
}

func envNames(env []string) []string {
	var names []string
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// dumpRequests keeps the full request bodies in the scratch directory, for
// debugging a scenario; errors are ignored (the scratch is disposable).
func dumpRequests(path string, reqs []mock.Request) {
	var b []byte
	for _, r := range reqs {
		line, err := json.Marshal(r)
		if err != nil {
			continue
		}
		b = append(append(b, line...), '\n')
	}
	_ = os.WriteFile(path, b, 0o644)
}

// sideReply answers side requests.
// It reports zero usage, so that whether a side request finished before the
// run's result does not change the result's token counts and cost.
var sideReply = mock.Reply{Items: []mock.Item{{Type: "text", Deltas: []string{"agentwire mock side reply"}}},
	Usage: &mock.Usage{}}

// sideRequest classifies Messages and Chat Completions requests that are
// not part of the scripted conversation: Claude Code's and the ACP agents'
// main-loop requests always declare tools, Claude Code's warmup, title and
// git-history requests and opencode's title request declare none.
func sideRequest(api mock.API) func([]byte) bool {
	if api != mock.Messages && api != mock.Chat {
		return nil
	}
	return func(body []byte) bool {
		var v struct {
			Tools []json.RawMessage `json:"tools"`
		}
		return json.Unmarshal(body, &v) == nil && len(v.Tools) == 0
	}
}

// recorderFiles are the files the recorder writes in a case or run
// directory. Anything else there (golden.json, written by the replay tests)
// is left alone when a case is re-recorded.
var recorderFiles = []string{"stdout", "stderr", "stdin", "meta.json", "requests.jsonl"}

// clearRecording removes the recorder's files from dir and its run-N
// subdirectories, keeping every other file.
func clearRecording(dir string) error {
	runs, err := filepath.Glob(filepath.Join(dir, "run-*"))
	if err != nil {
		return err
	}
	for _, d := range append(runs, dir) {
		for _, f := range recorderFiles {
			if err := os.Remove(filepath.Join(d, f)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		if d != dir {
			_ = os.Remove(d) // only if now empty
		}
	}
	return nil
}
