package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentwire/agentwire/corpus"
	"github.com/agentwire/agentwire/provider"
)

// inputFlags are the flags parse and check share.
type inputFlags struct {
	provider    string
	streaming   bool
	exitCode    int
	signal      string
	timedOut    bool
	cancelled   bool
	stderrFile  string
	stdinFile   string
	httpStatus  int
	contentType string
	follow      string
	// switches holds a flag per provider switch (provider.Switch), by name.
	switches map[string]*bool
}

func (f *inputFlags) register(fs *flag.FlagSet) {
	var names []string
	for _, p := range provider.All() {
		names = append(names, p.Name+" ("+p.Summary+")")
	}
	fs.StringVar(&f.provider, "provider", "", "the provider: "+strings.Join(names, ", ")+"; detected from the content when absent")
	fs.BoolVar(&f.streaming, "streaming", true, "ask the parser for stream payloads (the lifecycle events); --streaming=false gives the transcript only")
	fs.IntVar(&f.exitCode, "exit-code", 0, "the process exit code of the capture (default: meta.json's for a case, else 0)")
	fs.StringVar(&f.signal, "signal", "", "the `NAME` of the signal that ended the process, such as SIGINT")
	fs.BoolVar(&f.timedOut, "timed-out", false, "the run hit its time limit")
	fs.BoolVar(&f.cancelled, "cancelled", false, "the run was cancelled or interrupted by the host")
	fs.StringVar(&f.stderrFile, "stderr", "", "the `FILE` holding the process's stderr")
	fs.StringVar(&f.stdinFile, "stdin", "", "the `FILE` holding what was written to the process's stdin (the client side of the protocol, where it has one)")
	fs.IntVar(&f.httpStatus, "http-status", 0, "a model API capture: the HTTP `STATUS` of the response whose body the input is (default: meta.json's for a case)")
	fs.StringVar(&f.contentType, "content-type", "", "a model API capture: the response's Content-Type (default: meta.json's for a case)")
	fs.StringVar(&f.follow, "follow", "", "follow `FILE` as it is written (like tail -f), printing each event as it is parsed; it ends at the run's terminal, at the end of the file once --exit-code or --signal is given, or on interrupt (the partial response is printed)")
	f.switches = map[string]*bool{}
	for _, p := range provider.All() {
		for _, sw := range p.Switches {
			f.switches[sw.Name] = fs.Bool(sw.Name, false, sw.Usage)
		}
	}
}

const inputHelp = `
The input is FILE (a capture of the CLI's stdout), - (standard input), a corpus
case directory DIR (stdout, meta.json and optionally stderr, stdin; a file named
stdout next to a meta.json counts as its directory), or nothing: the sample
case embedded from the corpus (` + corpus.SampleName + `).

For a case the provider, the parser options and the process outcome come from
meta.json, and flags given explicitly always win over it; a meta.json that is
not agentwire's (another tool's layout) is noted on stderr and ignored, and
stdout is parsed as a file. For a file they come from the flags, and the
provider is detected from the content. An empty capture (a CLI that failed
before writing a line) is parsed like any other when --provider names its
provider.`

// input is a loaded capture.
type input struct {
	name string // for messages: the file, "<stdin>" or the sample
	c    *corpus.Case
	bare bool // a capture without meta.json
	// live, when set, is the stdout to read as it is written (standard
	// input, a pipe, a followed file); c.Stdout then holds only the head
	// read for detection.
	live   io.Reader
	follow *follower
	// rest, when set, is the stdout of a regular file, read as the parse
	// goes (never whole); c.Stdout then holds only its head, read for
	// detection, and size is the file's size.
	rest io.Reader
	size int
}

// stdout is the reader a replay reads stdout from, or nil for c.Stdout.
func (in *input) stdout() io.Reader {
	if in.live != nil {
		return in.live
	}
	return in.rest
}

// stdoutSize is the length of stdout as far as it is known before the
// parse.
func (in *input) stdoutSize() int {
	if in.rest != nil {
		return in.size
	}
	return len(in.c.Stdout)
}

// loadInput loads the input named by pos (at most one argument).
func loadInput(e *env, f *inputFlags, fs *flag.FlagSet, pos []string) (*input, error) {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if len(pos) > 1 {
		return nil, fmt.Errorf("one input at most, got %d: %s", len(pos), strings.Join(pos, " "))
	}
	var in *input
	switch {
	case f.follow != "":
		if len(pos) > 0 {
			return nil, fmt.Errorf("--follow %s and %s: one input at most", f.follow, pos[0])
		}
		fi, fo, err := followInput(f.follow, f, set)
		if err != nil {
			return nil, err
		}
		in = fi
		in.follow = fo
	case len(pos) == 0:
		c, err := corpus.Sample()
		if err != nil {
			return nil, err
		}
		in = &input{name: "embedded sample " + corpus.SampleName, c: c}
	case pos[0] == "-":
		var err error
		if in, err = liveInput("<stdin>", e.stdin, f); err != nil {
			return nil, err
		}
	default:
		path := pos[0]
		st, err := os.Stat(path)
		if err != nil {
			return nil, fileError(path, err)
		}
		if !st.IsDir() && filepath.Base(path) == corpus.FileStdout {
			if _, err := os.Stat(filepath.Join(filepath.Dir(path), corpus.FileMeta)); err == nil {
				path, st = filepath.Dir(path), nil
			}
		}
		if st == nil || st.IsDir() {
			in, err = caseInput(path)
			var foreign *foreignMeta
			if !errors.As(err, &foreign) {
				if err != nil {
					return nil, err
				}
				break
			}
			// Someone else's capture layout: a meta.json the corpus does
			// not read is noted and ignored, and stdout is a bare capture.
			fmt.Fprintf(e.stderr, "agentwire: note: %s is not an agentwire meta.json (%v); ignored, %s parsed as a capture\n", foreign.path, foreign.err, foreign.stdout)
			path = foreign.stdout
			if st, err = os.Stat(path); err != nil {
				return nil, fileError(path, err)
			}
		}
		if isLive(st) {
			file, err := os.Open(path)
			if err != nil {
				return nil, fileError(path, err)
			}
			// Closed when the command exits: the parse reads it to its end.
			if in, err = liveInput(path, file, f); err != nil {
				return nil, err
			}
			break
		}
		// Read as the parse goes, once: only the head is read first, for
		// provider and switch detection.
		file, err := os.Open(path)
		if err != nil {
			return nil, fileError(path, err)
		}
		head := make([]byte, min(st.Size(), provider.DetectLimit+1))
		n, err := io.ReadFull(file, head)
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			file.Close()
			return nil, fileError(path, err)
		}
		head = head[:n]
		if in, err = fileInput(path, head, f, set); err != nil {
			file.Close()
			return nil, err
		}
		// Closed when the command exits: the parse reads it to its end.
		in.rest, in.size = io.MultiReader(bytes.NewReader(head), file), int(st.Size())
	}
	return in, applyFlags(in, f, set)
}

func fileError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", path, pe.Err)
	}
	return err
}

// caseInput loads a case directory, with the runs it resumes.
func caseInput(dir string) (*input, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	fsys := os.DirFS(filepath.Dir(abs))
	base := filepath.Base(abs)
	if !corpus.IsCase(fsys, base) {
		return nil, fmt.Errorf("%s: a directory, but not a corpus case (it needs %s and %s); use agentwire replay for a corpus tree", dir, corpus.FileStdout, corpus.FileMeta)
	}
	c, err := corpus.LoadCase(fsys, base)
	if err != nil {
		var me *corpus.MetaError
		if errors.As(err, &me) {
			return nil, &foreignMeta{path: filepath.Join(dir, corpus.FileMeta), stdout: filepath.Join(dir, corpus.FileStdout), err: me.Err}
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return &input{name: dir, c: c}, nil
}

// foreignMeta is a case directory whose meta.json the corpus does not
// recognise (another tool's schema): its stdout is parsed as a bare
// capture instead.
type foreignMeta struct {
	path, stdout string
	err          error
}

func (f *foreignMeta) Error() string { return f.path + ": " + f.err.Error() }

// fileInput makes a case of a bare capture.
func fileInput(name string, b []byte, f *inputFlags, set map[string]bool) (*input, error) {
	c := &corpus.Case{Name: name, Stdout: b, Provider: f.provider}
	if c.Provider == "" && len(b) == 0 {
		// An empty stdout is a real capture (a CLI that fails before its
		// first line), but says nothing of its provider.
		return nil, fmt.Errorf("%s: empty capture (0 bytes): give --provider to parse it", name)
	}
	if c.Provider == "" {
		p, err := detect(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c.Provider = p
	} else if _, ok := provider.Lookup(c.Provider); !ok {
		return nil, unknownProvider(c.Provider)
	}
	c.Meta.Provider = c.Provider
	c.Meta.Argv = []string{"<CLI>"}
	return &input{name: name, c: c, bare: true}, nil
}

func unknownProvider(name string) error {
	return fmt.Errorf("unknown provider %q (want one of %s)", name, strings.Join(provider.Names(), ", "))
}

// applyFlags applies the outcome flags given explicitly, the stderr and
// stdin files, and the provider's switches: a flag given explicitly, else
// (for a bare capture) what the switch detects in the content.
func applyFlags(in *input, f *inputFlags, set map[string]bool) error {
	m := &in.c.Meta
	if set["exit-code"] {
		m.ExitCode = f.exitCode
	}
	if set["signal"] {
		m.Signal = f.signal
	}
	if set["timed-out"] {
		m.TimedOut = f.timedOut
	}
	if set["cancelled"] {
		m.SentSignal, m.Interrupt = "", f.cancelled
	}
	if set["http-status"] {
		m.HTTPStatus = f.httpStatus
	}
	if set["content-type"] {
		m.ContentType = f.contentType
	}
	if set["provider"] && f.provider != in.c.Provider {
		if _, ok := provider.Lookup(f.provider); !ok {
			return unknownProvider(f.provider)
		}
		in.c.Provider = f.provider
	}
	for _, x := range []struct {
		path string
		dst  *[]byte
	}{{f.stderrFile, &in.c.Stderr}, {f.stdinFile, &in.c.Stdin}} {
		if x.path == "" {
			continue
		}
		b, err := os.ReadFile(x.path)
		if err != nil {
			return fileError(x.path, err)
		}
		*x.dst = b
	}
	p, _ := provider.Lookup(in.c.Provider)
	for _, sw := range p.Switches {
		switch {
		case set[sw.Name]:
			setSwitch(in.c, sw.Name, *f.switches[sw.Name])
		case in.bare:
			setSwitch(in.c, sw.Name, sw.Detect != nil && sw.Detect(in.c.Stdout, in.c.Stdin))
		}
	}
	return nil
}

func setSwitch(c *corpus.Case, name string, on bool) {
	if c.Settings == nil {
		c.Settings = map[string]bool{}
	}
	c.Settings[name] = on
}

// detect names the provider of a capture from its content (the registry's
// Detect over its first provider.DetectLimit bytes), or says, with the
// offset, why the content is not a stream agentwire parses.
func detect(b []byte) (string, error) {
	head := b[:min(len(b), provider.DetectLimit)]
	for off := 0; off < len(head); {
		r, size := utf8.DecodeRune(head[off:])
		cut := len(b) > len(head) && len(head)-off < utf8.UTFMax // a rune cut by the limit
		if r == 0 || r == utf8.RuneError && size == 1 && !cut {
			return "", fmt.Errorf("offset %d: binary data (byte 0x%02x), not a text stream", off, head[off])
		}
		off += size
	}
	p, ok, err := provider.Detect(head)
	if err != nil {
		return "", err
	}
	if ok {
		return p.Name, nil
	}
	// No provider recognises it: say what the first line is.
	var off int64
	for line, rest := 1, head; len(rest) > 0; line++ {
		n := bytes.IndexByte(rest, '\n')
		l := rest
		if n >= 0 {
			l, rest = rest[:n], rest[n+1:]
		} else {
			rest = nil
		}
		at := off
		off += int64(len(l)) + 1
		t := bytes.TrimSpace(l)
		if line == 1 {
			t = bytes.TrimPrefix(t, []byte("\xef\xbb\xbf"))
		}
		if len(t) == 0 {
			continue
		}
		if isSSE(t) {
			return "", fmt.Errorf("line %d (offset %d): Server-Sent Events that no provider recognises; agentwire frames --format sse prints its events", line, at)
		}
		var v any
		if err := json.Unmarshal(t, &v); err != nil {
			return "", fmt.Errorf("line %d (offset %d): not a JSON object (%v): %s", line, at, err, quote(t))
		}
		break
	}
	return "", fmt.Errorf("no line of the first %d bytes is a message of any provider (%s); give --provider to parse it anyway", len(head), strings.Join(provider.Names(), ", "))
}

func isSSE(l []byte) bool {
	for _, p := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(l, []byte(p)) {
			return true
		}
	}
	return false
}

// quote quotes at most 60 bytes of b.
func quote(b []byte) string {
	if len(b) > 60 {
		return strconv.Quote(string(b[:60])) + "..."
	}
	return strconv.Quote(string(b))
}
