package record

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/agentwire/agentwire/corpus/internal/ojson"
)

// A recording must depend only on the protocol and the scenario. What
// depends on the machine it was made on (its kernel, host name, time zone,
// the scratch root), on when it was made (dates, times, durations) or on
// chance (the CLIs' random ids, process ids, ports) is rewritten by the
// normalisation in this file:
//
//   - requests.jsonl is written normalised: each request body is rewritten
//     by NormalizeRequest before it is summarised, so its long strings are
//     cut at the same place on every machine and a fresh recording is byte
//     for byte the committed one wherever the protocol agrees;
//   - stdout, stderr, stdin and meta.json keep the CLI's exact bytes (the
//     parsers and the goldens are built on them); Verify normalises both
//     sides before comparing them.
//
// corpus/README.md ("What is normalised") lists every rewrite and the case
// it was found in.

// normaliser is one rewrite.
type normaliser struct {
	re   *regexp.Regexp
	repl string
}

// machineFacts rewrite text a CLI derives from the machine it runs on. Each
// is anchored on the context it was found in, so that the same words in a
// model's answer or a tool's output are left alone.
var machineFacts = []normaliser{
	// Claude Code 2.1's environment system message: "OS Version: Linux
	// 6.18.44-fc-v782", the kernel release (requests.jsonl).
	{regexp.MustCompile(`(OS Version: )[^"\\\n]*`), "${1}<OS_VERSION>"},
	// Codex 0.169's <environment_context>: the machine's time zone, read
	// from /etc/localtime (requests.jsonl).
	{regexp.MustCompile(`(<timezone>)[^<"\\]*(</timezone>)`), "${1}<TZ>${2}"},
	// codex app-server 0.169's remoteControl/status/changed: the host
	// name (stdout).
	{regexp.MustCompile(`("serverName":")[^"]*"`), `${1}<HOST>"`},
	// The app-server's initialize result: "userAgent":"codex_cli_rs/0.58.0
	// (Debian 12.0.0; x86_64) unknown (...)", the OS name and version and
	// the architecture (stdout).
	{regexp.MustCompile(`("userAgent":"[^"(]*\()[^;()"]*; [^()"]*\)`), "${1}<OS>; <ARCH>)"},
}

// volatile rewrite what changes between two recordings on the same
// machine: ids, timestamps, durations, process ids, ports and random chunk
// and task ids.
var volatile = []normaliser{
	// Gemini CLI's error report file names,
	// gemini-client-error-<where>-2026-12-02T01-04-21-534Z.json (stderr):
	// a time with dashes and milliseconds after a dash.
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z`), "<TIME>"},
	// opencode's ids: a three-letter kind, 12 hex digits of time, 14
	// random base-62 characters (ses_dcbb9486fffeASOkWow9zHLCaY,
	// msg_23446bcf4001csSwMv1g30BKfJ; stdout and stdin).
	{regexp.MustCompile(`\b([a-z]{3}_)[0-9a-f]{12}[0-9A-Za-z]{14}\b`), "${1}<ID>"},
	// UUIDs (session, thread, turn, item, message and request ids).
	{regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`), "<UUID>"},
	// RFC 3339 timestamps, Codex rollout file stamps, dates.
	{regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d[:-]\d\d[:-]\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?`), "<TIME>"},
	{regexp.MustCompile(`\d{4}[-/]\d\d[-/]\d\d`), "<DATE>"},
	// Dates in words: Gemini CLI and Qwen Code put "Today's date is
	// Wednesday, December 2, 2026" into every request's first message, so
	// the request's length, and where its long strings are cut, changed
	// with the day until this rule (requests.jsonl, acp and gemini-cli).
	{regexp.MustCompile(`\b(?:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, )?(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}\b`), "<DATE>"},
	// JSON numbers whose key names a time, a duration, a pid or a cost of
	// time: durations, emittedAtMs, createdAt, ttft_ms, retry_delay_ms, ...
	{regexp.MustCompile(`"([A-Za-z_]*(?:[Dd]uration|_ms|Ms|At|_at|[Tt]imestamp|ttft|[Tt]ime|[Dd]elay|[Pp]id|processId|Seconds|secs|nanos)[A-Za-z_]*)":\s*"?-?\d+(\.\d+)?"?`), `"$1":0`},
	// Free-text durations (Codex tool output, app-server stderr).
	{regexp.MustCompile(`(Wall time: )\d+(\.\d+)? seconds`), "${1}0 seconds"},
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|µs|s)\b`), "<DUR>"},
	// Codex exec_command chunk ids, Claude's per-process socket path.
	{regexp.MustCompile(`(Chunk ID: )[0-9a-f]+`), "${1}<ID>"},
	{regexp.MustCompile(`(cc-socks/)\d+`), "${1}<PID>"},
	// Gemini CLI's tool call ids: <tool>__<tool>_<Unix ms>_<n> on stdout,
	// <tool>_<Unix ms>_<n> as the functionCall ids of its requests.
	{regexp.MustCompile(`\b([a-z][a-z_]*_)\d{13}(_\d+)\b`), "${1}<MS>${2}"},
	// The shell tool results of Qwen Code (stdout) and Gemini CLI (its
	// requests) name the command's process group.
	{regexp.MustCompile(`(Process Group PGID: )\d+`), "${1}<PID>"},
	// Copilot CLI's usage_update counts the context window's tokens, which
	// include the current date and time in words (stdout).
	{regexp.MustCompile(`("sessionUpdate":"usage_update","used":)\d+`), "${1}0"},
	// Ephemeral ports.
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:<PORT>"},
	// Node's socket dump in Gemini CLI's stack trace of a dropped
	// connection (stderr): localPort: 55746, remotePort: 36489.
	{regexp.MustCompile(`\b(localPort|remotePort): \d+`), "${1}: <PORT>"},
	// The same dump counts the socket's bytes, and what Gemini CLI writes
	// holds the paths the CLI was installed and run under: a CI clone
	// recorded bytesWritten: 31837 where the committed case has 31827.
	{regexp.MustCompile(`\b(bytesWritten|bytesRead): \d+`), "${1}: <N>"},
	// Gemini CLI 0.61's startup profiler warns on stderr when a phase's
	// start mark was cleared before its end, which depends on timing: CI
	// recorded "[STARTUP] Cannot measure phase 'cleanup_ops': start mark
	// 'startup:cleanup_ops:start' not found (likely cleared by reset)." in
	// the disconnect case three times out of three where the committed case
	// has no such line. The whole line goes.
	{regexp.MustCompile(`(?m)^\[STARTUP\] Cannot measure phase [^\n]*\n`), ""},
	// Claude Code 2.1's random task ids, also used in the name of the file
	// a large tool output is persisted to.
	{regexp.MustCompile(`("task_id":"|"run_id":"|tool-results/)[0-9a-z-]+`), "${1}<ID>"},
}

// Normalize rewrites b into the form recordings are compared in: the
// machine facts first, then the volatile values (see machineFacts and
// volatile). It is idempotent. It is applied to text as the CLI or the
// recorder wrote it (JSON text, never a decoded string), so that the
// recorder and Verify see the same bytes.
func Normalize(b []byte) []byte {
	for _, set := range [][]normaliser{machineFacts, volatile} {
		for _, n := range set {
			b = n.re.ReplaceAll(b, []byte(n.repl))
		}
	}
	return b
}

// NormalizeRequest returns the rewrite the recorder applies to a request
// body before summarising it into requests.jsonl: a JSON body is
// re-encoded the way the recorder writes JSON (sorted keys, no HTML
// escaping: a CLI's "\u003c" becomes "<"), the paths under scratch (the
// scratch root the case was recorded under) become paths under
// DefaultScratch and those under cache (where the CLIs are installed)
// paths under CacheDir, then Normalize. The elision of long
// strings and the summary's "bytes" are computed on its result.
func NormalizeRequest(scratch, cache string) func([]byte) []byte {
	rewrite := scratchRewriter(scratch, cache)
	return func(b []byte) []byte {
		b = reencode(b)
		if rewrite != nil {
			b = rewrite(b)
		}
		return Normalize(b)
	}
}

// reencode returns the JSON value b encoded by ojson.Marshal (numbers kept
// as written), or b when it is not one JSON value.
func reencode(b []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.InputOffset() != int64(len(bytes.TrimRight(b, " \t\r\n"))) {
		return b
	}
	out, err := ojson.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

// scratchRewriter returns a rewrite of the paths under the scratch root
// scratch, and of the directory slugs Claude Code derives from them
// ("/var/tmp/x" → "-var-tmp-x"), to those under DefaultScratch, and of the
// paths under the CLI cache cache to CacheDir; nil when there is
// nothing to rewrite (scratch is "" or DefaultScratch, cache is "").
func scratchRewriter(scratch, cache string) func([]byte) []byte {
	var pairs []string
	if cache != "" {
		pairs = append(pairs, cache, CacheDir)
	}
	if scratch != "" && scratch != DefaultScratch {
		slug := func(p string) string { return strings.NewReplacer("/", "-", ".", "-", "@", "-").Replace(p) }
		pairs = append(pairs, scratch, DefaultScratch, slug(scratch), slug(DefaultScratch))
	}
	if len(pairs) == 0 {
		return nil
	}
	r := strings.NewReplacer(pairs...)
	return func(b []byte) []byte { return []byte(r.Replace(string(b))) }
}
