package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentwire/agentwire/corpus"
	"github.com/agentwire/agentwire/driver"
)

const parseHelp = `Parse a capture with its provider's parser and print the result: a readable
timeline (--format text, coloured when standard output is a terminal and
NO_COLOR is unset) or the JSON document (--format json), the golden format
documented in the README ("The JSON document").

The timeline and --format jsonl print each event as it is parsed and keep
no lifecycle once it is over, so their memory does not grow with the
input: an id the provider reuses after its lifecycle ended is shown as a
new lifecycle under the same id and not reported as a reuse, and the
timeline lists the first 1000 malformed lines one by one and the rest in
one finding that counts them. --format json and agentwire check judge such
reuse exactly and list every malformed line.
` + inputHelp

const checkHelp = `Parse a capture and print only what is wrong with it, one finding per line,
each with the byte offset and line of the frame that produced the offending
event ("whole run" when the finding concerns the run as a whole):

  EVT-*, RUN-*, TRN-*, RSP-*  the adaptertest violations (clause catalogue in
              go doc github.com/agentwire/agentwire/adaptertest)
  MALFORMED   input the parser reported as malformed: a line that is not the
              protocol, an event out of order, a line after the terminal
  UNPAIRED    a provider message whose partner is missing (an item started and
              never completed in a turn that ended, a tool_use without its
              tool_result, a turn/completed without its turn/started, a stream
              without its session announcement): the parsers repair such
              streams, so this is how a capture with a line removed shows
  TRUNCATED   a final line cut off without a newline, mid-value (a killed
              process); it counts only when the process exited 0 without a
              signal (a clean exit does not lose its last line); any other
              bad final line is MALFORMED
  INCOMPLETE  the process exited 0 without a signal but the stream has no
              terminal event

Exit status 1 when there is a finding that counts, 0 when there is none.
` + inputHelp

func runParse(e *env, args []string) int {
	fs := newFlags("parse")
	var f inputFlags
	f.register(fs)
	format := fs.String("format", "text", "the output `format`: text (a timeline), json (the JSON document) or jsonl (one JSON object per event as it is parsed, then the response and the violations)")
	color := fs.String("color", "auto", "colour the text timeline: auto (when stdout is a terminal and NO_COLOR is unset), always or never")
	pos, code, done := parseFlags(e, fs, "[flags] [FILE|DIR|-]", parseHelp, args)
	if done {
		return code
	}
	if *format != "text" && *format != "json" && *format != "jsonl" {
		return fail(e, "parse", fmt.Errorf("--format %q: want text, json or jsonl", *format))
	}
	if *color != "auto" && *color != "always" && *color != "never" {
		return fail(e, "parse", fmt.Errorf("--color %q: want auto, always or never", *color))
	}
	in, err := loadInput(e, &f, fs, pos)
	if err != nil {
		return fail(e, "parse", err)
	}
	if in.follow != nil {
		defer in.follow.close()
	}
	useColor := *color == "always" || *color == "auto" && isTerminal(e.stdout) && os.Getenv("NO_COLOR") == ""
	p := palette{useColor}
	// Every format writes the events as the parser emits them, and the
	// replay keeps none (Discard): a long run costs the parser's memory,
	// not a copy of every event. The parser keeps no transcript either
	// (DiscardTranscript): the timeline and JSON lines print its items as
	// they come, and the document prints the transcript from the item
	// events (DocumentWriter.TranscriptFromEvents). RUN-04, which compares
	// the two, is judged by `agentwire check`, not here. The timeline
	// prints no digest of stdout: it is not computed (NoDigest). The
	// timeline and JSON lines need no lifecycle once it is over (Bounded):
	// their memory is then what is open, whatever the input's length, and
	// an id reused after its lifecycle ended is shown as a new lifecycle,
	// not reported; the document (json) and `agentwire check` are exact.
	o := corpus.Options{NoStream: !f.streaming, Stdout: in.stdout(), Discard: true, DiscardTranscript: true, NoDigest: *format == "text", Bounded: *format != "json"}
	live := in.live != nil && *format != "json"
	// Output nobody watches as it comes is buffered (the document has its
	// own buffer); a live timeline or live JSON lines are written line by
	// line.
	out := io.Writer(e.stdout)
	var buf *bufio.Writer
	if !live && *format != "json" {
		buf = bufio.NewWriterSize(e.stdout, 64<<10)
		out = buf
	}
	jw := newJSONLines(out)
	var dw *corpus.DocumentWriter
	var tl *timelineWriter
	switch {
	case *format == "json":
		// Written as the parse goes: a long run's document is several
		// times its input, and is never held whole.
		o.Begin = func(prov string, cp corpus.Capability) {
			dw = corpus.NewDocumentWriter(e.stdout, prov, cp)
			dw.TranscriptFromEvents()
		}
	case *format == "text" && live:
		fmt.Fprintf(out, "%s  %s  live\n", p.c("1", in.name), p.c("1", in.c.Provider))
		fmt.Fprintf(out, "%s\n", p.c("2", "   #   line  event"))
	case *format == "text":
		o.Begin = func(prov string, cp corpus.Capability) {
			// The parse reads a file's stdout to its end (internal/feed), so
			// the document's stdout_bytes is the case's length.
			tl = newTimeline(out, p)
			fmt.Fprintf(out, "%s  %s  %s\n", p.c("1", in.name), p.c("1", prov), streamsLine(cp, in.stdoutSize(), len(in.c.Stderr)))
			fmt.Fprintf(out, "%s\n", p.c("2", "   #   line  event"))
		}
	}
	var werr error
	items := 0 // the transcript's length: every item is emitted once
	o.Live = func(i int, ev corpus.Event, at corpus.Origin) {
		if in.follow != nil {
			in.follow.see(ev)
		}
		if ev.Item != nil {
			items++
		}
		switch {
		case *format == "json":
			if err := dw.Event(&ev); err != nil && werr == nil {
				werr = err
			}
		case *format == "jsonl":
			jw.event(&ev)
		case live:
			eventLine(out, p, i, at, ev)
		default:
			tl.event(i, at, ev)
		}
	}
	r, err := o.Replay(in.c)
	if err != nil {
		return fail(e, "parse", err)
	}
	d := r.Document
	switch {
	case *format == "json":
		// Closed even after a failed write: it removes the spool.
		if cerr := dw.Close(&d.Response, d.Violations); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fail(e, "parse", werr)
		}
	case *format == "jsonl":
		jw.write(map[string]any{"response": d.Response})
		jw.write(map[string]any{"violations": d.Violations})
	case live:
		fmt.Fprintf(out, "%s  %s\n", p.c("1", "streams"), streamsLine(d.Capability, d.Response.StdoutBytes, d.Response.StderrBytes))
		footer(out, p, r, items)
	default:
		tl.flush()
		footer(out, p, r, items)
	}
	if buf != nil && buf.Flush() != nil {
		return 3
	}
	return jw.err()
}

// jsonLines writes one JSON value per line, each in one write (a live
// consumer reads each as it comes), without HTML escaping, as the JSON
// document does.
type jsonLines struct {
	w    io.Writer
	enc  *json.Encoder
	ev   corpus.EventLines
	line []byte
	werr error
}

func newJSONLines(w io.Writer) *jsonLines {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonLines{w: w, enc: enc}
}

func (j *jsonLines) write(v any) {
	if j.werr == nil {
		j.werr = j.enc.Encode(v)
	}
}

// event writes one event's line (corpus.EventLines: encoding/json's
// bytes, by hand).
func (j *jsonLines) event(ev *corpus.Event) {
	if j.werr != nil {
		return
	}
	if j.line, j.werr = j.ev.Append(j.line[:0], ev); j.werr == nil {
		_, j.werr = j.w.Write(j.line)
	}
}

// err returns the exit status: 3 if a line could not be written.
func (j *jsonLines) err() int {
	if j.werr != nil {
		return 3
	}
	return 0
}

func runCheck(e *env, args []string) int {
	fs := newFlags("check")
	var f inputFlags
	f.register(fs)
	format := fs.String("format", "text", "the output `format`: text (one finding per line) or json (one JSON object per finding)")
	pos, code, done := parseFlags(e, fs, "[flags] [FILE|DIR|-]", checkHelp, args)
	if done {
		return code
	}
	if *format != "text" && *format != "json" {
		return fail(e, "check", fmt.Errorf("--format %q: want text or json", *format))
	}
	in, err := loadInput(e, &f, fs, pos)
	if err != nil {
		return fail(e, "check", err)
	}
	if in.follow != nil {
		defer in.follow.close()
	}
	// Only the findings are printed: the replay keeps no event, and
	// computes no digest of stdout.
	o := corpus.Options{NoStream: !f.streaming, Stdout: in.stdout(), Discard: true, NoDigest: true}
	if in.follow != nil {
		o.Live = func(_ int, ev corpus.Event, _ corpus.Origin) { in.follow.see(ev) }
	}
	r, err := o.Replay(in.c)
	if err != nil {
		return fail(e, "check", err)
	}
	bad := r.Damaged()
	for _, x := range r.Findings {
		if *format == "json" {
			b, _ := json.Marshal(x)
			fmt.Fprintf(e.stdout, "%s\n", b)
			continue
		}
		fmt.Fprintf(e.stdout, "%s: %s\n", in.name, x)
	}
	if *format == "text" {
		fmt.Fprintf(e.stderr, "%s: %s, %d bytes: %d violations, %d malformed or unpaired\n", in.name, r.Case.Provider, r.Document.Response.StdoutBytes, len(r.Violations()), len(bad)-len(r.Violations()))
	}
	if len(bad) > 0 {
		return 1
	}
	return 0
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// palette colours the timeline; the zero value prints plain text.
type palette struct{ on bool }

func (p palette) c(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) kind(k string) string {
	switch {
	case strings.HasPrefix(k, "run."):
		return p.c("1", k)
	case strings.HasPrefix(k, "text"):
		return p.c("36", k)
	case strings.HasPrefix(k, "reasoning"):
		return p.c("35", k)
	case strings.HasPrefix(k, "tool_call"):
		return p.c("33", k)
	case strings.HasPrefix(k, "hitl"), strings.HasSuffix(k, "malformed"):
		return p.c("31", k)
	case strings.HasPrefix(k, "step"):
		return p.c("34", k)
	}
	return p.c("2", k)
}

// timelineWriter prints a readable account of a replay as its events
// come: one line per event, consecutive content deltas of one message
// merged into one line (held until the run of deltas ends).
type timelineWriter struct {
	w   io.Writer
	p   palette
	run *deltaRun
}

// deltaRun is a run of content deltas of one kind and id: where its first
// delta stands, how many there are, and as much of their text as the
// timeline prints.
type deltaRun struct {
	i    int
	at   corpus.Origin
	s    driver.StreamPayload // the first delta (Live's is valid for the call only)
	text []byte
	n    int
}

// runText is how much of a run's text is kept: enough for short's 70
// runes (at most utf8.UTFMax bytes each) and to know there is more.
const runText = 70*utf8.UTFMax + 1

func newTimeline(w io.Writer, p palette) *timelineWriter { return &timelineWriter{w: w, p: p} }

func isDelta(s *driver.StreamPayload) bool {
	return s != nil && (s.Kind == driver.StreamTextContent || s.Kind == driver.StreamReasoningContent || s.Kind == driver.StreamToolCallArgs)
}

// event prints event i, or adds it to the run of deltas it continues.
func (t *timelineWriter) event(i int, at corpus.Origin, ev corpus.Event) {
	s := ev.Stream
	if r := t.run; r != nil && isDelta(s) && s.Kind == r.s.Kind && s.MessageID == r.s.MessageID && s.ToolCallID == r.s.ToolCallID && s.ScopeID == r.s.ScopeID {
		r.add(s.Delta)
		return
	}
	t.flush()
	if isDelta(s) {
		t.run = &deltaRun{i: i, at: at, s: *s}
		t.run.add(s.Delta)
		return
	}
	eventLine(t.w, t.p, i, at, ev)
}

func (r *deltaRun) add(delta string) {
	r.n++
	if len(r.text) < runText {
		r.text = append(r.text, delta[:min(len(delta), runText-len(r.text))]...)
	}
}

// flush prints the run of deltas held, if any.
func (t *timelineWriter) flush() {
	r := t.run
	if r == nil {
		return
	}
	t.run = nil
	fmt.Fprintf(t.w, "%4d %s  %s %s %s (%d %s)\n", r.i, where(r.at), t.p.kind(string(r.s.Kind)), r.s.MessageID+r.s.ToolCallID, short(string(r.text), 70), r.n, plural(r.n, "delta", "deltas"))
}

// streamsLine describes the capture's streams and the parser's capability.
func streamsLine(cp corpus.Capability, stdoutBytes, stderrBytes int) string {
	var caps []string
	for _, x := range []struct {
		on   bool
		name string
	}{{cp.Native, "native"}, {cp.TokenLevel, "token-level"}, {cp.Reasoning, "reasoning"}, {cp.ToolCallArgs, "tool-call-args"}, {cp.HITL, "hitl"}} {
		if x.on {
			caps = append(caps, x.name)
		}
	}
	return fmt.Sprintf("stdout %d bytes, stderr %d bytes  capability: %s", stdoutBytes, stderrBytes, strings.Join(caps, " "))
}

// where renders an event's line in stdout ("  end" for what Finish emitted).
func where(o corpus.Origin) string {
	if o.Line > 0 {
		return fmt.Sprintf("%5d", o.Line)
	}
	return "  end"
}

// eventLine prints one timeline line for event i.
func eventLine(w io.Writer, p palette, i int, o corpus.Origin, ev corpus.Event) {
	switch {
	case ev.Stream != nil:
		s := ev.Stream
		if s.Kind == driver.StreamTextContent || s.Kind == driver.StreamReasoningContent || s.Kind == driver.StreamToolCallArgs {
			fmt.Fprintf(w, "%4d %s  %s %s %s\n", i, where(o), p.kind(string(s.Kind)), s.MessageID+s.ToolCallID, short(s.Delta, 70))
			return
		}
		fmt.Fprintf(w, "%4d %s  %s%s\n", i, where(o), p.kind(string(s.Kind)), payloadDetail(s))
	case ev.Item != nil:
		fmt.Fprintf(w, "%4d %s  %s %s%s\n", i, where(o), p.c("2", "item"), p.c("32", string(ev.Item.Kind)), itemDetail(ev.Item))
	case ev.RunEvent != nil:
		fmt.Fprintf(w, "%4d %s  %s %s %s\n", i, where(o), p.c("2", "event"), ev.RunEvent.Type, short(ev.RunEvent.Text, 70))
	}
}

// footer prints the response and the findings; items is the number of
// transcript items (the replay kept none).
func footer(w io.Writer, p palette, r *corpus.Result, items int) {
	resp := r.Document.Response
	fmt.Fprintf(w, "%s\n", p.c("1", "response"))
	fmt.Fprintf(w, "  output      %s\n", short(resp.Output, 100))
	if resp.Summary != "" {
		fmt.Fprintf(w, "  summary     %s\n", short(resp.Summary, 100))
	}
	fmt.Fprintf(w, "  transcript  %d items\n", items)
	if u := resp.Usage; u != nil {
		fmt.Fprintf(w, "  usage       %d input (%d cached), %d output tokens\n", u.InputTokens, u.CachedInputTokens, u.OutputTokens)
	} else {
		fmt.Fprintf(w, "  usage       not reported\n")
	}
	if f := resp.Finish; f != nil {
		fmt.Fprintf(w, "  finish      %s (%s)\n", f.Reason, strconv.Quote(f.Raw))
	}
	if t := resp.Terminal; t != nil {
		fmt.Fprintf(w, "  terminal    %s (%d bytes)\n", t.Event, len(t.JSON))
	} else {
		fmt.Fprintf(w, "  terminal    %s\n", p.c("33", "none"))
	}
	if c := resp.Checkpoint; c != nil {
		state := "valid"
		if !c.Valid {
			state = p.c("33", "not valid")
		} else {
			state = p.c("32", state)
		}
		id := ""
		if c.State != nil {
			id = " resume " + c.State.ResumeID
		}
		fmt.Fprintf(w, "  checkpoint  %s%s\n", state, id)
	} else {
		fmt.Fprintf(w, "  checkpoint  none\n")
	}
	if f := resp.Failure; f != nil {
		fmt.Fprintf(w, "  failure     %s %s\n", p.c("31", string(f.Code)), short(f.Message, 100))
	}
	exit := fmt.Sprintf("exit code %d", resp.ExitCode)
	if resp.Signal != "" {
		exit += ", signal " + resp.Signal
	}
	if resp.TimedOut {
		exit += ", timed out"
	}
	fmt.Fprintf(w, "  process     %s\n", exit)
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "%s none\n", p.c("1", "violations"))
		return
	}
	fmt.Fprintf(w, "%s %d\n", p.c("1", "findings"), len(r.Findings))
	for _, x := range r.Findings {
		fmt.Fprintf(w, "  %s\n", p.c("31", x.String()))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// detail collects the parts of a timeline line after its kind.
type detail []string

// add adds "k v" when v is not empty.
func (d *detail) add(k, v string) {
	if v != "" {
		*d = append(*d, k+" "+v)
	}
}

// put adds a part as it is.
func (d *detail) put(part string) { *d = append(*d, part) }

// usage adds a usage's token counts, when there is one.
func (d *detail) usage(u *driver.Usage) {
	if u != nil {
		d.put(fmt.Sprintf("usage %d in / %d out", u.InputTokens, u.OutputTokens))
	}
}

// String is the parts, each after a space ("" for none).
func (d detail) String() string {
	if len(d) == 0 {
		return ""
	}
	return " " + strings.Join(d, " ")
}

func payloadDetail(s *driver.StreamPayload) string {
	var d detail
	d.add("thread", s.ThreadID)
	d.add("turn", s.TurnID)
	d.add("scope", s.ScopeID)
	d.add("message", s.MessageID)
	d.add("call", s.ToolCallID)
	d.add("name", s.Name)
	if s.Delta != "" {
		d.put(short(s.Delta, 60))
	}
	if len(s.Args) > 0 {
		d.put("args " + shortJSON(s.Args, 60))
	}
	if len(s.Result) > 0 {
		d.put("result " + shortJSON(s.Result, 60))
	}
	d.usage(s.Usage)
	if s.Error != nil {
		d.put(fmt.Sprintf("error %s %s", s.Error.Code, short(s.Error.Message, 60)))
	}
	if h := s.HITLRequested; h != nil {
		d.put("request " + shortJSON(h, 60))
	}
	if h := s.HITLResolved; h != nil {
		d.put("resolved " + shortJSON(h, 60))
	}
	if !s.Kind.IsCanonical() && len(s.Raw) > 0 {
		keys := make([]string, 0, len(s.Raw))
		for k := range s.Raw {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d.put("{" + strings.Join(keys, ",") + "}")
	}
	return d.String()
}

func itemDetail(it *driver.TranscriptItem) string {
	var d detail
	d.add("scope", it.ScopeID)
	d.add("tool", it.ToolName)
	d.add("id", it.ToolUseID)
	d.add("session", it.SessionID)
	d.add("model", it.Model)
	d.add("subtype", it.Subtype)
	if it.IsError {
		d.put("error")
	}
	if it.Input != nil {
		d.put("input " + shortJSON(it.Input, 50))
	}
	if it.Text != "" {
		d.put(short(it.Text, 70))
	}
	d.usage(it.Usage)
	return d.String()
}

// short quotes s, cut to n runes. It looks at no more of s than it prints:
// a timeline line for a 100 MB output costs what a short one does.
func short(s string, n int) string {
	if cut, ok := cutRunes(s, n); ok {
		return fmt.Sprintf("%q…", cut)
	}
	return fmt.Sprintf("%q", s)
}

// cutRunes returns the first n runes of s and true when s is longer.
func cutRunes(s string, n int) (string, bool) {
	i := 0
	for range n {
		if i >= len(s) {
			return s, false
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i >= len(s) {
		return s, false
	}
	return s[:i], true
}

func shortJSON(v any, n int) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	if cut, ok := cutRunes(string(b), n); ok {
		return cut + "…"
	}
	return string(b)
}
