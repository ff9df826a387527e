package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/corpus"
	"github.com/google/go-cmp/cmp"
)

// corpusDir is the project corpus.
const corpusDir = "../../corpus"

// runCmd runs the command in-process.
func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	if strings.Contains(errb.String(), "goroutine ") || strings.Contains(errb.String(), "panic:") {
		t.Fatalf("stack trace on stderr:\n%s", errb.String())
	}
	return code, out.String(), errb.String()
}

func corpusCases(t *testing.T) []*corpus.Case {
	t.Helper()
	cases, err := corpus.Load(os.DirFS(corpusDir), ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("only %d corpus cases", len(cases))
	}
	return cases
}

// TestParseJSONEqualsGolden: `agentwire parse --format json DIR` prints
// exactly the golden.json of every corpus case, and so does giving the
// case's stdout file.
func TestParseJSONEqualsGolden(t *testing.T) {
	for _, c := range corpusCases(t) {
		dir := filepath.Join(corpusDir, filepath.FromSlash(c.Name))
		code, out, errs := runCmd(t, "", "parse", "--format", "json", dir)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", c.Name, code, errs)
			continue
		}
		if c.Golden == nil {
			t.Errorf("%s: no golden.json", c.Name)
			continue
		}
		if out != string(c.Golden) {
			t.Errorf("%s: parse --format json differs from golden.json (-want +got):\n%s", c.Name, corpus.DiffJSON(c.Golden, []byte(out)))
			continue
		}
		if _, out2, _ := runCmd(t, "", "parse", filepath.Join(dir, "stdout"), "--format=json"); out2 != out {
			t.Errorf("%s: the stdout file does not give the case's document", c.Name)
		}
	}
}

// damagedByTheCLI are the corpus cases whose capture the CLI itself
// damaged, with what check must say about them: Claude Code 2.0.50 loses
// its stdout past about 64 KiB, cutting a line mid-value, and still exits
// 0, so the capture ends without its result; so does Gemini CLI 0.61.0
// inside a large tool_result line. The mocks' disconnect cases
// (Messages, Gemini, Chat Completions, Responses) are bodies cut off on
// purpose. Two public Responses captures are test fixtures their authors
// cut by hand, and check says so: openai/codex's cli_responses_fixture.sse
// (hand-made, minimal) has an output_item.done without its
// output_item.added, and vercel/ai's openai-phase.1.chunks.txt leaves out
// runs of events, which its sequence_number gaps show.
var damagedByTheCLI = map[string][]string{
	"openai-responses/public/codex-upstream-cli-responses-fixture": {corpus.Unpaired + " at offset 85 (line 4): output_item.done of item_0 (message) without its output_item.added"},
	"openai-responses/public/vercel-openai-responses-phase": {
		corpus.Unpaired + " at offset 1389 (line 13): sequence_number 41 after 5: 35 event(s) missing",
		corpus.Unpaired + " at offset 2615 (line 19): sequence_number 49 after 43: 5 event(s) missing",
		corpus.Unpaired + " at offset 3481 (line 27): sequence_number 126 after 52: 73 event(s) missing",
	},
	"claude/claude-code@2.0.50/big-text":      {corpus.Truncated + " at offset 760 (line 2)", corpus.Incomplete + " (whole run)"},
	"gemini-cli/gemini-cli@0.61.0/big-output": {corpus.Truncated + " at offset 490 (line 4)", corpus.Incomplete + " (whole run)"},
	"anthropic-messages/mock/disconnect":      {corpus.Incomplete + " (whole run)"},
	"gemini/mock/disconnect":                  {corpus.Incomplete + " (whole run)"},
	"openai-chat/mock/disconnect":             {corpus.Incomplete + " (whole run)"},
	"openai-responses/mock/disconnect":        {corpus.Incomplete + " (whole run)"},
}

// TestCheckCorpus: check finds nothing on any corpus case but those the
// CLI damaged, where it finds exactly that damage and exits 1.
func TestCheckCorpus(t *testing.T) {
	for _, c := range corpusCases(t) {
		dir := filepath.Join(corpusDir, filepath.FromSlash(c.Name))
		code, out, errs := runCmd(t, "", "check", dir)
		want := damagedByTheCLI[c.Name]
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l != "" {
				got = append(got, l)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: findings %q, want %q", c.Name, got, want)
			continue
		}
		for i := range want {
			if !strings.Contains(got[i], want[i]) {
				t.Errorf("%s: finding %q, want %q", c.Name, got[i], want[i])
			}
		}
		if wantCode := min(len(want), 1); code != wantCode {
			t.Errorf("%s: check exit %d, want %d: %s%s", c.Name, code, wantCode, out, errs)
		}
	}
}

// copyCase copies a corpus case to a temporary directory, changing stdout
// with damage.
func copyCase(t *testing.T, name string, damage func(lines []string) []string) string {
	t.Helper()
	src := filepath.Join(corpusDir, filepath.FromSlash(name))
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"stdout", "stderr", "stdin", "meta.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if f == "stdout" {
			lines := strings.SplitAfter(string(b), "\n")
			if lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1]
			}
			b = []byte(strings.Join(damage(lines), ""))
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func indexOf(lines []string, sub string) int {
	for i, l := range lines {
		if strings.Contains(l, sub) {
			return i
		}
	}
	return -1
}

// TestCheckDamaged: check exits 1 on a damaged copy of a corpus case and
// names the clause and the offset of the offending frame.
func TestCheckDamaged(t *testing.T) {
	tests := []struct {
		name, c string
		damage  func(lines []string) []string
		want    string // in the output
	}{
		{"codex terminal duplicated", "codex/codex@0.169.0/text", func(ls []string) []string {
			i := indexOf(ls, `"turn.completed"`)
			return append(ls[:i+1:i+1], ls[i:]...)
		}, "MALFORMED at offset 388 (line 5)"},
		{"appserver terminal duplicated", "appserver/codex@0.169.0/text", func(ls []string) []string {
			i := indexOf(ls, `"method":"turn/completed"`)
			return append(ls[:i+1:i+1], ls[i:]...)
		}, "MALFORMED at offset"},
		{"codex thread.started removed", "codex/codex@0.169.0/text", func(ls []string) []string {
			return ls[1:]
		}, "UNPAIRED at offset 0 (line 1)"},
		{"codex turn.started removed", "codex/codex@0.169.0/tool-success", func(ls []string) []string {
			i := indexOf(ls, `"turn.started"`)
			return append(ls[:i:i], ls[i+1:]...)
		}, "without a turn.started"},
		{"codex command completion removed", "codex/codex@0.169.0/tool-success", func(ls []string) []string {
			i := indexOf(ls, `"item.completed","item":{"id":"item_0"`)
			return append(ls[:i:i], ls[i+1:]...)
		}, "started but never completed"},
		{"claude init removed", "claude/claude-code@2.1.328/text", func(ls []string) []string {
			i := indexOf(ls, `"subtype":"init"`)
			return append(ls[:i:i], ls[i+1:]...)
		}, "system init line"},
		{"claude tool_result removed", "claude/claude-code@2.1.328/tool-success", func(ls []string) []string {
			i := indexOf(ls, `"tool_result"`)
			return append(ls[:i:i], ls[i+1:]...)
		}, "has no tool_result"},
		{"claude content_block_stop removed", "claude/claude-code@2.1.328/text-partial", func(ls []string) []string {
			i := indexOf(ls, `"content_block_stop"`)
			return append(ls[:i:i], ls[i+1:]...)
		}, "never stopped"},
		{"appserver item/completed removed", "appserver/codex@0.169.0/tool-success", func(ls []string) []string {
			i := indexOf(ls, `"method":"item/completed","params":{"item":{"type":"commandExecution"`)
			if i < 0 {
				i = indexOf(ls, `"type":"commandExecution"`)
				for j := i; j < len(ls); j++ {
					if strings.Contains(ls[j], `"item/completed"`) && strings.Contains(ls[j], `"commandExecution"`) {
						i = j
						break
					}
				}
			}
			return append(ls[:i:i], ls[i+1:]...)
		}, "started but never completed"},
		{"appserver turn/started removed", "appserver/codex@0.169.0/text", func(ls []string) []string {
			i := indexOf(ls, `"method":"turn/started"`)
			return append(ls[:i:i], ls[i+1:]...)
		}, "without its turn/started"}, // Damage after the last newline is not a truncation unless the
		// last line is a proper prefix of a JSON value.
		{"codex CR-only line ends", "codex/codex@0.169.0/text", func(ls []string) []string {
			for i := range ls {
				ls[i] = strings.TrimSuffix(ls[i], "\n") + "\r"
			}
			return ls
		}, "MALFORMED at offset 0 (line 1)"},
		{"codex complete line after the terminal without a newline", "codex/codex@0.169.0/text", func(ls []string) []string {
			return append(ls, `{"type":"turn.started"}`)
		}, "MALFORMED at offset 388 (line 5)"},
		{"codex terminal cut mid-line on exit 0", "codex/codex@0.169.0/text", func(ls []string) []string {
			last := ls[len(ls)-1]
			ls[len(ls)-1] = last[:len(last)/2]
			return ls
		}, "TRUNCATED at offset"},
		{"codex terminal removed on exit 0", "codex/codex@0.169.0/text", func(ls []string) []string {
			return ls[:len(ls)-1]
		}, "INCOMPLETE (whole run)"},
		{"claude result removed on exit 0", "claude/claude-code@2.1.328/text", func(ls []string) []string {
			i := indexOf(ls, `"type":"result"`)
			return append(ls[:i:i], ls[i+1:]...)
		}, "INCOMPLETE (whole run)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyCase(t, tt.c, tt.damage)
			if code, _, errs := runCmd(t, "", "check", filepath.Join(corpusDir, filepath.FromSlash(tt.c))); code != 0 {
				t.Fatalf("the original fails check: %d %s", code, errs)
			}
			code, out, errs := runCmd(t, "", "check", dir)
			if code != 1 {
				t.Fatalf("check exit %d on a damaged copy:\n%s%s", code, out, errs)
			}
			if !strings.Contains(out, tt.want) || !strings.Contains(out, dir) {
				t.Errorf("output does not name the file and %q:\n%s", tt.want, out)
			}
			code, jout, _ := runCmd(t, "", "check", "--format", "json", dir)
			var f corpus.Finding
			if code != 1 || json.Unmarshal([]byte(strings.SplitN(jout, "\n", 2)[0]), &f) != nil || f.Clause == "" {
				t.Errorf("json findings: exit %d %q", code, jout)
			}
		})
	}
}

// TestInputErrors: a missing, empty, binary or malformed file, or a
// directory that is not a case, is a clear error naming the file (and
// the offset), exit status 2, no stack trace.
func TestInputErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.jsonl", nil)
	binary := write("binary.bin", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe"))
	malformed := write("malformed.jsonl", []byte("{\"type\":\"thread.started\"\nnot json at all\n"))
	text := write("notes.txt", []byte("hello\nworld\n"))
	sseFile := write("events.sse", []byte("event: ping\ndata: {}\n\n"))
	unknown := write("other.jsonl", []byte(`{"hello":"world"}`+"\n"))
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"missing", []string{"parse", filepath.Join(dir, "nope.jsonl")}, []string{"nope.jsonl", "no such file or directory"}},
		{"empty", []string{"parse", empty}, []string{empty, "empty capture (0 bytes): give --provider"}},
		{"binary", []string{"parse", binary}, []string{binary, "offset 7", "binary data"}},
		{"malformed", []string{"check", malformed}, []string{malformed, "line 1 (offset 0)", "not a JSON object"}},
		{"text", []string{"parse", "--format", "json", text}, []string{text, "line 1 (offset 0)"}},
		{"sse", []string{"parse", sseFile}, []string{sseFile, "Server-Sent Events", "frames --format sse"}},
		{"unknown", []string{"parse", unknown}, []string{unknown, "--provider"}},
		{"not a case", []string{"parse", dir}, []string{dir, "not a corpus case"}},
		{"bad provider", []string{"parse", "--provider", "no-such", unknown}, []string{"no-such"}},
		{"missing stderr", []string{"parse", "--stderr", filepath.Join(dir, "none"), unknown, "--provider", "codex"}, []string{"none", "no such file"}},
		{"frames missing", []string{"frames", "--format", "ndjson", filepath.Join(dir, "nope")}, []string{"nope", "no such file"}},
		{"frames no format", []string{"frames", empty}, []string{"--format is required"}},
		{"replay missing", []string{"replay", filepath.Join(dir, "nope")}, []string{"nope", "no such file"}},
		{"replay empty", []string{"replay", dir}, []string{"no corpus case"}},
		{"two inputs", []string{"parse", empty, binary}, []string{"one input at most"}},
		{"bad format", []string{"parse", "--format", "yaml"}, []string{"yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(t, "", tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stdout %q stderr %q", code, out, errs)
			}
			if out != "" {
				t.Errorf("stdout %q", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q does not contain %q", errs, w)
				}
			}
			if strings.Count(strings.TrimSpace(errs), "\n") > 20 {
				t.Errorf("error too long:\n%s", errs)
			}
		})
	}
}

// TestForcedProviderMalformed: with --provider a malformed capture is
// parsed anyway (the parser keeps bad lines as stdout items) and check
// reports each bad line with its offset.
func TestForcedProviderMalformed(t *testing.T) {
	in := `{"type":"thread.started","thread_id":"t1"}` + "\n" + "garbage\n" + `{"type":"turn.started"}` + "\n"
	code, out, errs := runCmd(t, in, "check", "--provider", "codex", "-")
	if code != 1 || !strings.Contains(out, "MALFORMED at offset 43 (line 2)") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCmd(t, in, "parse", "--provider", "codex", "-")
	if code != 0 || !strings.Contains(out, "codex/malformed") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// TestParseSample: with no input parse prints the timeline of the embedded
// sample, plain when stdout is not a terminal; --color=always colours it.
func TestParseSample(t *testing.T) {
	code, out, errs := runCmd(t, "", "parse")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{corpus.SampleName, "codex", "run.started", "text.content item_0", "turn.completed", "checkpoint  valid", "violations none"} {
		if !strings.Contains(out, w) {
			t.Errorf("timeline lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour codes when stdout is not a terminal")
	}
	if _, col, _ := runCmd(t, "", "parse", "--color", "always"); !strings.Contains(col, "\x1b[") {
		t.Errorf("no colour with --color always")
	}
	code, js, _ := runCmd(t, "", "parse", "--format", "json")
	var doc corpus.Document
	if code != 0 || json.Unmarshal([]byte(js), &doc) != nil || doc.Provider != "codex" || doc.Response.Terminal == nil || len(doc.Violations) != 0 {
		t.Fatalf("json: exit %d %.200s", code, js)
	}
	sample, err := corpus.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if js != string(sample.Golden) {
		t.Errorf("the sample's document differs from its embedded golden.json")
	}
	if code, out, _ := runCmd(t, "", "check"); code != 0 || out != "" {
		t.Errorf("check of the sample: exit %d %q", code, out)
	}
}

// TestParseStdinDetect: a capture on stdin is detected and parsed like the
// case it comes from (same document when the outcome matches).
func TestParseStdinDetect(t *testing.T) {
	for _, name := range []string{"codex/codex@0.169.0/tool-success", "claude/claude-code@2.1.328/text", "appserver/codex@0.169.0/text"} {
		c, err := corpus.LoadCase(os.DirFS(corpusDir), name)
		if err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCmd(t, string(c.Stdout), "parse", "--format", "json", "--stderr", filepath.Join(corpusDir, name, "stderr"), "-")
		if code != 0 {
			t.Fatalf("%s: exit %d %s", name, code, errs)
		}
		var doc, want corpus.Document
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(c.Golden, &want); err != nil {
			t.Fatal(err)
		}
		if doc.Provider != c.Provider || doc.Response.Output != want.Response.Output || doc.Response.StdoutSHA256 != want.Response.StdoutSHA256 || len(doc.Events) != len(want.Events) {
			t.Errorf("%s: stdin parse differs from the case: provider %s output %q events %d/%d", name, doc.Provider, doc.Response.Output, len(doc.Events), len(want.Events))
		}
	}
}

// TestFrames prints one JSON object per frame for each framing.
func TestFrames(t *testing.T) {
	sseIn := "event: message_start\ndata: {\"a\":1}\nid: 7\nretry: 1500\n\n: ping\n\ndata: x\ndata: y\n\n"
	code, out, errs := runCmd(t, sseIn, "frames", "--format", "sse")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	want := `{"offset":0,"line":1,"raw_len":54,"kind":"event","event":"message_start","data":"{\"a\":1}","id":"7","retry":1500}
{"offset":54,"line":6,"raw_len":8,"kind":"comment"}
{"offset":62,"line":8,"raw_len":17,"kind":"event","event":"","data":"x\ny","id":"7"}
`
	if out != want {
		t.Errorf("sse frames:\n%s\nwant:\n%s", out, want)
	}
	code, out, _ = runCmd(t, `{"type":"a"}`+"\n\n"+`{"b":1}`, "frames", "--format=ndjson", "-")
	want = `{"offset":0,"line":1,"raw_len":13,"kind":"line","type":"a"}
{"offset":13,"line":2,"raw_len":1,"kind":"blank"}
{"offset":14,"line":3,"raw_len":7,"kind":"line","unterminated":true}
`
	if code != 0 || out != want {
		t.Errorf("ndjson frames (exit %d):\n%s\nwant:\n%s", code, out, want)
	}
	rpc := `{"id":0,"method":"initialize","params":{}}` + "\n" + `{"method":"turn/started","params":{}}` + "\n" + `{"id":"a","result":{}}` + "\n" + `[1` + "\n"
	code, out, _ = runCmd(t, rpc, "frames", "--format", "jsonrpc")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != 4 ||
		lines[0] != `{"offset":0,"line":1,"raw_len":43,"class":"request","method":"initialize","id":0}` ||
		lines[1] != `{"offset":43,"line":2,"raw_len":38,"class":"notification","method":"turn/started"}` ||
		lines[2] != `{"offset":81,"line":3,"raw_len":23,"class":"response","id":"a"}` ||
		!strings.Contains(lines[3], `"offset":104,"line":4`) || !strings.Contains(lines[3], `"error"`) {
		t.Errorf("jsonrpc frames (exit %d):\n%s", code, out)
	}
}

// TestReplay: replay passes on the corpus, fails on drift, and --update
// writes the golden.
func TestReplay(t *testing.T) {
	code, out, errs := runCmd(t, "", "replay", filepath.Join(corpusDir, "codex"))
	if code != 0 || !strings.Contains(out, "ok   ") || strings.Contains(out, "FAIL") {
		t.Fatalf("replay of the codex corpus: exit %d\n%s%s", code, out, errs)
	}
	dir := copyCase(t, "codex/codex@0.169.0/text", func(ls []string) []string { return ls })
	code, out, _ = runCmd(t, "", "replay", dir)
	if code != 1 || !strings.Contains(out, "no golden.json") {
		t.Fatalf("replay without golden: exit %d\n%s", code, out)
	}
	if code, out, _ = runCmd(t, "", "replay", "--update", dir); code != 0 || !strings.Contains(out, "updated") {
		t.Fatalf("replay --update: exit %d\n%s", code, out)
	}
	if code, _, _ = runCmd(t, "", "replay", dir); code != 0 {
		t.Fatalf("replay after update: exit %d", code)
	}
	// Drift: the golden no longer matches the capture.
	g := filepath.Join(dir, "golden.json")
	b, _ := os.ReadFile(g)
	os.WriteFile(g, bytes.Replace(b, []byte(`"exit_code": 0`), []byte(`"exit_code": 3`), 1), 0o644)
	code, out, _ = runCmd(t, "", "replay", dir)
	if code != 1 || !strings.Contains(out, "FAIL") || !strings.Contains(out, "-want +got") {
		t.Fatalf("replay with drift: exit %d\n%s", code, out)
	}
}

// TestHelp: every command answers --help on stdout with exit 0; an
// unknown command or flag is a usage error.
func TestHelp(t *testing.T) {
	for _, c := range commands {
		for _, h := range []string{"--help", "-h"} {
			code, out, _ := runCmd(t, "", c.name, h)
			if code != 0 || !strings.Contains(out, "Usage: agentwire "+c.name) {
				t.Errorf("%s %s: exit %d\n%s", c.name, h, code, out)
			}
		}
		if code, out, _ := runCmd(t, "", "help", c.name); code != 0 || !strings.Contains(out, "Usage: agentwire "+c.name) {
			t.Errorf("help %s: exit %d", c.name, code)
		}
	}
	if code, out, _ := runCmd(t, "", "--help"); code != 0 || !strings.Contains(out, "agentwire replay") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
	if code, _, errs := runCmd(t, ""); code != 2 || !strings.Contains(errs, "Usage") {
		t.Errorf("no command: exit %d", code)
	}
	if code, _, errs := runCmd(t, "", "frobnicate"); code != 2 || !strings.Contains(errs, "unknown command") {
		t.Errorf("unknown command: exit %d", code)
	}
	if code, _, errs := runCmd(t, "", "parse", "--nope"); code != 2 || !strings.Contains(errs, "nope") {
		t.Errorf("unknown flag: exit %d %s", code, errs)
	}
}

// TestRecordCheck: record's flags reach the recorder library (--check
// reports on this machine with exit 0 or 3, never a crash).
func TestRecordCheck(t *testing.T) {
	code, _, errs := runCmd(t, "", "record", "--check", "--cache", filepath.Join(t.TempDir(), "none"))
	if code != 3 {
		t.Errorf("record --check without CLIs: exit %d %s", code, errs)
	}
	if code, _, errs := runCmd(t, "", "record", "--run", "("); code != 2 || !strings.Contains(errs, "--run") {
		t.Errorf("bad regexp: exit %d %s", code, errs)
	}
}

// TestBinaryREADME builds the command and runs the README's commands as a
// new user would, from the repository root.
func TestBinaryREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	bin := filepath.Join(t.TempDir(), "agentwire")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := func(args ...string) (int, string, string) {
		c := exec.Command(bin, args...)
		c.Dir = root
		c.Env = append(os.Environ(), "NO_COLOR=1")
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(errb.String(), "goroutine ") {
			t.Fatalf("stack trace:\n%s", errb.String())
		}
		return code, out.String(), errb.String()
	}
	if code, out, errs := cmd("parse"); code != 0 || !strings.Contains(out, "run.started") {
		t.Errorf("agentwire parse: exit %d\n%s%s", code, out, errs)
	}
	text := "corpus/codex/codex@0.169.0/text"
	if code, out, errs := cmd("parse", text+"/stdout"); code != 0 || !strings.Contains(out, "turn.completed") {
		t.Errorf("agentwire parse FILE: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := cmd("check", text); code != 0 || out != "" {
		t.Errorf("agentwire check DIR: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := cmd("replay", "corpus/codex"); code != 0 || strings.Contains(out, "FAIL") {
		t.Errorf("agentwire replay corpus/codex: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := cmd("parse", "no/such/file"); code != 2 || !strings.Contains(errs, "no/such/file") {
		t.Errorf("missing file: exit %d %s", code, errs)
	}
}

// TestPanicIsOneLine: a panic inside a command is reported in one line with
// exit status 3, no stack trace.
func TestPanicIsOneLine(t *testing.T) {
	saved := commands
	defer func() { commands = saved }()
	commands = append(commands[:len(commands):len(commands)], command{name: "boom", run: func(*env, []string) int { panic("kaboom") }})
	t.Setenv("AGENTWIRE_DEBUG", "")
	code, _, errs := runCmd(t, "", "boom")
	if code != 3 || !strings.Contains(errs, "internal error: kaboom") || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d stderr %q", code, errs)
	}
}

// TestBOMEveryProvider: a capture saved with a UTF-8 byte order mark in
// front parses the same on every provider: no finding, the same response
// and checkpoint as without it, and findings after it still point at the
// right line (the BOM is on line 1, the line it begins).
func TestBOMEveryProvider(t *testing.T) {
	for _, name := range []string{"codex/codex@0.169.0/text", "claude/claude-code@2.1.328/text", "appserver/codex@0.169.0/text"} {
		plain := copyCase(t, name, func(ls []string) []string { return ls })
		bom := copyCase(t, name, func(ls []string) []string {
			ls[0] = "\ufeff" + ls[0]
			return ls
		})
		code, out, errs := runCmd(t, "", "check", bom)
		if code != 0 || strings.Contains(out, "MALFORMED") {
			t.Errorf("%s with a BOM: check exit %d: %s%s", name, code, out, errs)
		}
		_, want, _ := runCmd(t, "", "parse", "--format", "json", plain)
		_, got, _ := runCmd(t, "", "parse", "--format", "json", bom)
		var w, g map[string]any
		if json.Unmarshal([]byte(want), &w) != nil || json.Unmarshal([]byte(got), &g) != nil {
			t.Fatalf("%s: parse output is not JSON", name)
		}
		for _, doc := range []map[string]any{w, g} {
			r := doc["response"].(map[string]any)
			delete(r, "stdout_bytes")
			delete(r, "stdout_sha256")
		}
		if d := cmp.Diff(w, g); d != "" {
			t.Errorf("%s: a BOM changes the document (-without +with):\n%s", name, d)
		}
		// Damage after the BOM is still found on its own line.
		dup := copyCase(t, name, func(ls []string) []string {
			ls[0] = "\ufeff" + ls[0]
			return append(ls, "not json\n")
		})
		_, out, _ = runCmd(t, "", "check", dup)
		if n := strings.Count(string(mustRead(t, filepath.Join(dup, "stdout"))), "\n"); !strings.Contains(out, "(line "+strconv.Itoa(n)+")") {
			t.Errorf("%s: damage on line %d after a BOM: %s", name, n, out)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestShort(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{{"", 3, `""`}, {"abc", 3, `"abc"`}, {"abcd", 3, `"abc"…`}, {"éèêë", 2, `"éè"…`}, {"é\xff", 1, `"é"…`}, {"\xff\xfe", 2, `"\xff\xfe"`}} {
		if got := short(c.s, c.n); got != c.want {
			t.Errorf("short(%q, %d) = %s, want %s", c.s, c.n, got, c.want)
		}
	}
}

// TestTruncatedKilled: a last line cut mid-value is reported as TRUNCATED
// but is not damage when the process did not exit cleanly (it was killed).
func TestTruncatedKilled(t *testing.T) {
	dir := copyCase(t, "codex/codex@0.169.0/text", func(ls []string) []string {
		last := ls[len(ls)-1]
		ls[len(ls)-1] = last[:len(last)/2]
		return ls
	})
	code, out, errs := runCmd(t, "", "check", "--signal", "SIGKILL", dir)
	if code != 0 || !strings.Contains(out, corpus.Truncated) || strings.Contains(out, corpus.Incomplete) {
		t.Errorf("check exit %d:\n%s%s", code, out, errs)
	}
}

// TestForeignMetaJSON: a folder of captures laid out <case>/stdout,
// <case>/meta.json in another tool's schema: the meta.json is noted on
// stderr and ignored, and the flags given (provider, outcome) apply.
func TestForeignMetaJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run-17")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stdout := mustRead(t, filepath.Join(corpusDir, "codex/codex@0.169.0/text/stdout"))
	for name, b := range map[string][]byte{"stdout": stdout, "meta.json": []byte(`{"tool":"other","exit":0,"started":"2026-01-01"}`)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, arg := range []string{dir, filepath.Join(dir, "stdout")} {
		code, out, errs := runCmd(t, "", "parse", "--provider", "codex", "--exit-code", "0", "--format", "json", arg)
		if code != 0 || !strings.Contains(errs, "meta.json is not an agentwire meta.json") || strings.Count(errs, "\n") != 1 {
			t.Fatalf("%s: exit %d, stderr %q", arg, code, errs)
		}
		var doc struct {
			Provider string
			Response struct{ Checkpoint struct{ Valid bool } }
		}
		if json.Unmarshal([]byte(out), &doc) != nil || doc.Provider != "codex" || !doc.Response.Checkpoint.Valid {
			t.Errorf("%s: document %s", arg, out)
		}
		// Detection works too, and the exit code flag wins.
		code, out, _ = runCmd(t, "", "parse", "--exit-code", "1", "--format", "json", arg)
		if code != 0 || !strings.Contains(out, `"exit_code": 1`) {
			t.Errorf("%s: detected parse: exit %d %s", arg, code, out)
		}
	}
}

// TestEmptyCapture: an empty stdout is a capture (codex exec resume with an
// unknown id, claude --resume with one, exit 1 writing nothing): with
// --provider it gives a failure and no valid checkpoint, and parse exits 0;
// check reports no damage for it.
func TestEmptyCapture(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "stdout")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"codex", "claude", "appserver"} {
		code, out, errs := runCmd(t, "", "parse", "--provider", p, "--exit-code", "1", "--format", "json", empty)
		var doc struct {
			Response struct {
				Failure    *struct{ Message string }
				Checkpoint *struct{ Valid bool }
				ExitCode   int `json:"exit_code"`
			}
		}
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
			t.Fatalf("%s: exit %d: %s%s", p, code, out, errs)
		}
		r := doc.Response
		if r.Failure == nil || r.Failure.Message == "" || r.Checkpoint != nil && r.Checkpoint.Valid || r.ExitCode != 1 {
			t.Errorf("%s: response %+v", p, r)
		}
		if code, out, errs := runCmd(t, "", "check", "--provider", p, "--exit-code", "1", empty); code != 0 {
			t.Errorf("%s: check exit %d: %s%s", p, code, out, errs)
		}
	}
}
