package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/agentwire/agentwire/provider"
)

// volatileMeta are meta.json lines dropped before compare: the date, the
// duration, and the request counts that include Claude Code's side requests
// (warmups and title prompts race with the end of the run).
var volatileMeta = regexp.MustCompile(`(?m)^\s*"(recorded|duration_ms|requests|side_requests|request)": .*\n`)

// exitMeta are the meta.json lines that say how a run ended.
var exitMeta = regexp.MustCompile(`(?m)^\s*"(exit_code|signal|recorder_note)": .*\n`)

// stoppedAfterSession reports whether the meta.json m is of a run the
// recorder had to signal after its session was over (Qwen Code often does
// not exit on EOF, Gemini CLI not once it has run a shell command): whether
// the CLI exits by itself in time, dies of the SIGTERM, exits 0 on it, or
// needs the SIGKILL is a race, so when either side was stopped so the exit
// is left out of the comparison.
func stoppedAfterSession(m []byte) bool {
	return bytes.Contains(m, []byte(`"recorder_note": "`+provider.SessionOverNote))
}

// sideRequestLine matches a requests.jsonl line of a side request.
var sideRequestLine = regexp.MustCompile(`(?m)^\{"seq":\d+,"method":"[A-Z]+","path":"[^"]*","reply":-3,.*\n`)

// claudeTasks are Claude Code 2.1's system task_* lines: it turns a Bash
// call into a task (with a random task_id) only when the command runs long
// enough, which depends on machine load.
var claudeTasks = regexp.MustCompile(`(?m)^\{"type":"system","subtype":"task_(started|progress|notification|updated)".*\n`)

// backgroundEvents are codex 0.58's informational legacy notifications
// ("Snapshots disabled: ..."), sent from another task: their place among
// the turn's events varies.
var backgroundEvents = regexp.MustCompile(`(?m)^\{"method":"codex/event/background_event".*\n`)

// unterminatedMark replaces a cut last line (see dropUnterminated).
const unterminatedMark = "<unterminated last line>\n"

func truncated(b []byte) bool { return bytes.HasSuffix(b, []byte(unterminatedMark)) }

func untruncated(b []byte) []byte { return bytes.TrimSuffix(b, []byte(unterminatedMark)) }

// messageStartContent is the content of a message_start stream_event line:
// Claude Code 2.0.50 serialises the event object after its SDK has already
// appended blocks to it, so it may or may not show the first block.
var messageStartContent = regexp.MustCompile(`(?m)(^\{"type":"stream_event","event":\{"type":"message_start","message":\{.*?"content":)\[.*?\](,"stop_reason")`)

// assistantStopReason is the stop_reason of a complete Claude assistant
// line: Claude Code 2.0.50 serialises the message when its content block
// stops, and whether the message_delta carrying stop_reason has been
// applied by then is a race (tool-success and resume run-2 showed both
// "end_turn" and null on an idle machine).
var assistantStopReason = regexp.MustCompile(`(?m)(^\{"type":"assistant","message":\{.*?"stop_reason":)(null|"[a-z_]*")`)

// dropUnterminated drops a last line without a newline: Claude Code 2.0.50
// (a node program) exits before a large pending stdout write has drained, so
// its stdout ends mid-line at a point that depends on timing.
func dropUnterminated(b []byte) []byte {
	if i := bytes.LastIndexByte(b, '\n'); i+1 < len(b) {
		return append(b[:i+1:i+1], unterminatedMark...)
	}
	return b
}

// canonicalModelUsage rewrites Claude result lines with their keys sorted
// and without the zero-usage entries of modelUsage: the entries of models
// used only by side requests, whose presence and order depend on whether
// those requests finished before the result.
func canonicalModelUsage(b []byte) []byte {
	if !bytes.Contains(b, []byte(`"modelUsage"`)) {
		return b
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i, l := range lines {
		if !bytes.Contains(l, []byte(`"modelUsage"`)) {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(l))
		dec.UseNumber()
		var m map[string]any
		if dec.Decode(&m) != nil {
			continue
		}
		for _, k := range []string{"modelUsage", "model_usage_since_last_result"} {
			mu, _ := m[k].(map[string]any)
			for model, v := range mu {
				u, _ := v.(map[string]any)
				if fmt.Sprint(u["inputTokens"]) == "0" && fmt.Sprint(u["outputTokens"]) == "0" {
					delete(mu, model)
				}
			}
		}
		out, err := json.Marshal(m)
		if err != nil {
			continue
		}
		lines[i] = append(out, '\n')
	}
	return bytes.Join(lines, nil)
}

// racyStderr are stderr lines a CLI may or may not print depending on how
// its shutdown races with a signal (codex 0.58 on SIGINT), or on the load
// of the machine (Qwen Code's "[perf] acp agent event loop stall:
// max=1185.9ms", written when its event loop was held up for more than a
// second).
//
// Gemini CLI 0.61.0 writes "[STARTUP] Phase 'cleanup_ops' was started but
// never ended. Skipping metrics." when its exit overtakes its start-up
// metrics (unicode, CI 2026-12-02: absent in the committed recording).
var racyStderr = regexp.MustCompile(`(?m)^(.*sending into a closed channel|\[perf\] acp agent event loop stall:|\[STARTUP\] Phase '[^']*' was started but never ended).*\n`)

// bubblewrapWarning is the line codex app-server 0.169 writes on stdout (a
// configWarning notification) and on stderr (an ERROR log line) when
// bubblewrap is not installed on the machine: whether it is, is a fact of
// the machine, not of the protocol.
var bubblewrapWarning = regexp.MustCompile(`(?m)^.*could not find bubblewrap on PATH.*\n`)

// abortRateLimits are app-server 0.169's account/rateLimits/updated
// notifications. A turn that completes sends one after its token usage; a
// turn the recorder interrupts (turn/interrupt, a signal) sends one or not,
// depending on how the abort races with the stalled stream (interrupt,
// 2026-12-01, under load: present in the committed recording, absent in a
// re-recording).
var abortRateLimits = regexp.MustCompile(`(?m)^\{"method":"account/rateLimits/updated".*\n`)

// commandsUpdates are ACP available_commands_update notifications, left
// out of the comparison. An agent sends them when it has loaded its
// commands, apart from the turn: their place among the turn's updates
// varies, and Qwen Code may be gone before it sent its one (text and
// cancel, 2026-12-02: absent in one recording, present in the next, once
// signalled after the session, once exiting 0 by itself).
var commandsUpdates = regexp.MustCompile(`(?m)^\{"jsonrpc":"2.0","method":"session/update","params":\{"sessionId":"[^"]*","update":\{"sessionUpdate":"available_commands_update".*\n`)

// floatingUpdates are notifications an agent sends from a task of its own,
// apart from the stream they land in, so that their place among their
// neighbours races: Copilot CLI 1.0.102's config_option_update after
// session/new lands before or after the session_info_update of the first
// prompt (text, CI 2026-12-02), and codex app-server 0.169's
// thread/status/changed before or after the item/completed of a declined
// command (approval-decline, CI 2026-12-02). Verify compares them as they
// are, in their order, but moved to the end of the capture (floatLines):
// what they say and how many there are still count.
var floatingUpdates = regexp.MustCompile(`^(\{"jsonrpc":"2.0","method":"session/update","params":\{"sessionId":"[^"]*","update":\{"sessionUpdate":"config_option_update"|\{"method":"thread/status/changed",)`)

// floatLines moves the lines of b that re matches to its end, keeping the
// order of both parts.
func floatLines(b []byte, re *regexp.Regexp) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	var kept, floated [][]byte
	for _, l := range lines {
		if re.Match(l) {
			if !bytes.HasSuffix(l, []byte("\n")) {
				l = append(l[:len(l):len(l)], '\n')
			}
			floated = append(floated, l)
			continue
		}
		kept = append(kept, l)
	}
	if len(floated) == 0 {
		return b
	}
	return bytes.Join(append(kept, floated...), nil)
}

// cutToolOutput matches the summary of a request whose shell output Gemini
// CLI 0.61.0 cut ("Output too large. Showing first 8,000 and last 32,000
// characters"): it cuts the output together with the "Process Group PGID:
// 21161" line it appends, so where the last 32,000 characters start moves
// with the number of digits of a process id, and the body's length with it
// (big-output, CI 2026-12-02: 2 bytes more than the committed recording).
// Verify compares such a summary without its two lengths; the rest of the
// summary, the start of every string, still counts.
var cutToolOutput = regexp.MustCompile(`Output too large\. Showing first [0-9,]+ and last [0-9,]+ characters`)

// summaryLengths are the lengths in a requests.jsonl summary line.
var summaryLengths = regexp.MustCompile(`"bytes":\d+|…\[\d+ bytes elided\]`)

// dropCutLengths applies cutToolOutput to each line of a requests.jsonl.
func dropCutLengths(b []byte) []byte {
	if !cutToolOutput.Match(b) {
		return b
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i, l := range lines {
		if cutToolOutput.Match(l) {
			lines[i] = summaryLengths.ReplaceAll(l, []byte("<LEN>"))
		}
	}
	return bytes.Join(lines, nil)
}

// seqField numbers requests; side requests shift it.
var seqField = regexp.MustCompile(`(?m)^\{"seq":\d+,`)

// Verify compares the recordings under got with those under want (both
// corpus roots), for the cases present in got and, when match is set, the
// cases of want it selects; it returns the drift as a unified diff after
// normalisation ("" when there is none). The recorder writes every file with
// the scratch root rewritten to DefaultScratch, so recordings made under
// another root compare as they are.
func Verify(want, got string, match *regexp.Regexp) (string, error) {
	drift, err := VerifyCases(want, got, match)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for _, c := range sortedCases(drift) {
		out.WriteString(drift[c])
	}
	return out.String(), nil
}

// sortedCases returns the cases of drift in order.
func sortedCases(drift map[string]string) []string {
	cases := make([]string, 0, len(drift))
	for c := range drift {
		cases = append(cases, c)
	}
	sort.Strings(cases)
	return cases
}

// VerifyCases is Verify with the drift kept apart per case: it maps each
// drifting case ("<provider>/<cli>@<version>/<case>") to its diff, and is
// empty when there is none.
func VerifyCases(want, got string, match *regexp.Regexp) (map[string]string, error) {
	gotFiles, err := recordedFiles(got)
	if err != nil {
		return nil, err
	}
	wantFiles, err := recordedFiles(want)
	if err != nil {
		return nil, err
	}
	// Compare only the cases that were re-recorded, plus any selected case
	// that should have been.
	gotCases := map[string]bool{}
	for f := range gotFiles {
		gotCases[caseOf(f)] = true
	}
	drift := map[string]string{}
	var paths []string
	seen := map[string]bool{}
	for f := range gotFiles {
		paths, seen[f] = append(paths, f), true
	}
	for f := range wantFiles {
		c := caseOf(f)
		if seen[f] || !(gotCases[c] || (match != nil && match.MatchString(c))) {
			continue
		}
		paths = append(paths, f)
	}
	sort.Strings(paths)
	for _, f := range paths {
		_, inWant := wantFiles[f]
		_, inGot := gotFiles[f]
		switch {
		case !inWant:
			drift[caseOf(f)] += fmt.Sprintf("+++ new file %s (not in the committed corpus)\n", f)
			continue
		case !inGot:
			drift[caseOf(f)] += fmt.Sprintf("--- missing file %s (committed, not re-recorded)\n", f)
			continue
		}
		a, err := os.ReadFile(filepath.Join(want, f))
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(filepath.Join(got, f))
		if err != nil {
			return nil, err
		}
		switch filepath.Base(f) {
		case "meta.json":
			a, b = volatileMeta.ReplaceAll(a, nil), volatileMeta.ReplaceAll(b, nil)
			if stoppedAfterSession(a) || stoppedAfterSession(b) {
				a, b = exitMeta.ReplaceAll(a, nil), exitMeta.ReplaceAll(b, nil)
			}
		case "stdout":
			a, b = dropOutputDeltas(a), dropOutputDeltas(b)
			a, b = dropToolProgress(a), dropToolProgress(b)
			a, b = bubblewrapWarning.ReplaceAll(a, nil), bubblewrapWarning.ReplaceAll(b, nil)
			a, b = backgroundEvents.ReplaceAll(a, nil), backgroundEvents.ReplaceAll(b, nil)
			a, b = messageStartContent.ReplaceAll(a, []byte(`${1}[]$2`)), messageStartContent.ReplaceAll(b, []byte(`${1}[]$2`))
			a, b = assistantStopReason.ReplaceAll(a, []byte(`${1}"<stop_reason>"`)), assistantStopReason.ReplaceAll(b, []byte(`${1}"<stop_reason>"`))
			a, b = claudeTasks.ReplaceAll(a, nil), claudeTasks.ReplaceAll(b, nil)
			a, b = canonicalModelUsage(a), canonicalModelUsage(b)
			a, b = dropUnterminated(a), dropUnterminated(b)
			if stopped(filepath.Join(got, filepath.Dir(f))) {
				a, b = abortRateLimits.ReplaceAll(a, nil), abortRateLimits.ReplaceAll(b, nil)
			}
			a, b = commandsUpdates.ReplaceAll(a, nil), commandsUpdates.ReplaceAll(b, nil)
			a, b = floatLines(a, floatingUpdates), floatLines(b, floatingUpdates)
		case "stderr":
			a, b = racyStderr.ReplaceAll(a, nil), racyStderr.ReplaceAll(b, nil)
			a, b = bubblewrapWarning.ReplaceAll(a, nil), bubblewrapWarning.ReplaceAll(b, nil)
		case "requests.jsonl":
			a, b = sideRequestLine.ReplaceAll(a, nil), sideRequestLine.ReplaceAll(b, nil)
			a, b = seqField.ReplaceAll(a, []byte(`{"seq":0,`)), seqField.ReplaceAll(b, []byte(`{"seq":0,`))
			a, b = dropCutLengths(a), dropCutLengths(b)
		}
		// Written normalised already, requests.jsonl is compared
		// whole: its long strings are cut at the same place and its
		// "bytes" count the same normalised body on every machine.
		a, b = Normalize(a), Normalize(b)
		if bytes.Equal(a, b) {
			continue
		}
		if base := filepath.Base(f); base == "stdout" && (truncated(a) || truncated(b)) &&
			(bytes.HasPrefix(untruncated(a), untruncated(b)) || bytes.HasPrefix(untruncated(b), untruncated(a))) {
			// A stdout cut at exit (see dropUnterminated) matches any
			// recording it is a prefix of.
			continue
		}
		if base := filepath.Base(f); (base == "stdout" || base == "stderr") && signalled(filepath.Join(got, filepath.Dir(f))) &&
			(bytes.HasPrefix(a, b) || bytes.HasPrefix(b, a)) {
			// How much of its shutdown output a CLI writes after a
			// signal races with the signal: one may be a prefix of the
			// other.
			continue
		}
		d, err := diff(f, a, b)
		if err != nil {
			return nil, err
		}
		drift[caseOf(f)] += d
	}
	return drift, nil
}

// outputDeltaMethods are the app-server notifications that stream a
// command's output. How the output is cut into deltas depends on pipe read
// timing, so verify compares their concatenation.
var outputDeltaMethods = map[string]bool{
	"item/commandExecution/outputDelta":     true,
	"codex/event/exec_command_output_delta": true,
}

// dropOutputDeltas removes streamed command-output notifications (the
// app-server's item/commandExecution/outputDelta and the legacy
// codex/event/exec_command_output_delta) from a capture before comparison.
// Streamed output is best effort in codex 0.169: under load it dropped the
// early deltas of a large output (big-output once streamed only its last
// ~900 lines), and for a short output it sometimes streamed no delta at all
// (app-server tool-success and tool-failure, 2026-11-30). The complete
// output is in item/completed, which is compared.
func dropOutputDeltas(b []byte) []byte {
	if !bytes.Contains(b, []byte("utput_delta")) && !bytes.Contains(b, []byte("outputDelta")) {
		return b
	}
	var probe struct {
		Method string `json:"method"`
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	out := make([][]byte, 0, len(lines))
	for _, l := range lines {
		probe.Method = ""
		if bytes.Contains(l, []byte(`"method"`)) && json.Unmarshal(l, &probe) == nil && outputDeltaMethods[probe.Method] {
			continue
		}
		out = append(out, l)
	}
	return bytes.Join(out, nil)
}

// dropToolProgress removes from an ACP capture the tool_call_update
// notifications that carry no status: Copilot CLI 1.0.102 streams a shell
// command's output as it arrives, each notification a snapshot of all the
// output so far ("ls: ", then "ls: cannot access ..."), and how many
// snapshots there are depends on how the command's writes meet its reads
// (GNU ls writes its program name and its message separately: a CI run
// recorded one snapshot where the committed tool-failure case has two).
// The update that completes the call carries the whole output and its
// status, and is compared. The other agents send no update without a
// status (corpus/acp, 2026-12-02).
func dropToolProgress(b []byte) []byte {
	if !bytes.Contains(b, []byte(`"sessionUpdate":"tool_call_update"`)) {
		return b
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	out := make([][]byte, 0, len(lines))
	for _, l := range lines {
		if bytes.Contains(l, []byte(`"sessionUpdate":"tool_call_update"`)) && !bytes.Contains(l, []byte(`"status":`)) {
			continue
		}
		out = append(out, l)
	}
	return bytes.Join(out, nil)
}

// recordedFiles lists the recorder's files under root/<provider>/<cli>@<version>/
// relative to root.
func recordedFiles(root string) (map[string]bool, error) {
	files := map[string]bool{}
	for _, p := range Providers {
		dir := filepath.Join(root, p)
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && path == dir {
					return fs.SkipDir
				}
				return err
			}
			if d.Type().IsRegular() && isRecorderFile(d.Name()) {
				rel, err := filepath.Rel(root, path)
				if err != nil {
					return err
				}
				// Only recordings: <provider>/<cli>@<version>/...,
				// not the cases a parser's author wrote by hand
				// beside them (corpus/acp/spec/).
				rel = filepath.ToSlash(rel)
				if parts := strings.SplitN(rel, "/", 3); len(parts) == 3 && strings.Contains(parts[1], "@") {
					files[rel] = true
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// signalled reports whether the recorder sent a signal in the run recorded
// in dir.
func signalled(dir string) bool { return runMeta(dir).SentSignal != "" }

// stopped reports whether the recorder stopped the run recorded in dir,
// with a signal or a protocol interrupt.
func stopped(dir string) bool {
	m := runMeta(dir)
	return m.SentSignal != "" || m.Interrupt
}

// runMeta reads the meta.json in dir; the zero Meta when there is none.
func runMeta(dir string) Meta {
	var m Meta
	if b, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

func isRecorderFile(name string) bool {
	for _, f := range recorderFiles {
		if f == name {
			return true
		}
	}
	return false
}

// caseOf returns <provider>/<cli>@<version>/<case> of a recorded file path.
func caseOf(f string) string {
	parts := strings.SplitN(f, "/", 4)
	if len(parts) < 3 {
		return f
	}
	return strings.Join(parts[:3], "/")
}

// diff returns a unified diff of a and b, with diff -u when available.
func diff(name string, a, b []byte) (string, error) {
	if _, err := exec.LookPath("diff"); err == nil {
		dir, err := os.MkdirTemp("", "agentwire-diff-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		pa, pb := filepath.Join(dir, "want"), filepath.Join(dir, "got")
		if err := os.WriteFile(pa, a, 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(pb, b, 0o644); err != nil {
			return "", err
		}
		out, err := exec.Command("diff", "-u", "--label", "committed/"+name, "--label", "recorded/"+name, pa, pb).Output()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			return string(out), nil
		}
		if err != nil {
			return "", fmt.Errorf("diff %s: %w", name, err)
		}
		return string(out), nil
	}
	// Fallback: the first differing line.
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("--- committed/%s\n+++ recorded/%s\n@@ line %d @@\n-%s\n+%s\n", name, name, i+1, x, y), nil
		}
	}
	return "", nil
}
