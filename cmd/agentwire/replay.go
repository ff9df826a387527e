package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentwire/agentwire/corpus"
)

const replayHelp = `Replay every corpus case below each DIR (a directory holding stdout and
meta.json is a case) under the whole, per-line, 1-byte and random chunkings,
and compare the JSON document with the case's golden.json. Prints "ok" or
"FAIL" per case and a diff (-want +got) for each drift. Exit status 1 when a
case drifted, differs between chunkings, has a contract violation or has no
golden.json.

With --update the golden.json of every case whose document changed is
rewritten instead (cases with violations are still reported).`

func runReplay(e *env, args []string) int {
	fs := newFlags("replay")
	update := fs.Bool("update", false, "rewrite golden.json where the document differs")
	pos, code, done := parseFlags(e, fs, "[--update] DIR...", replayHelp, args)
	if done {
		return code
	}
	if len(pos) == 0 {
		return fail(e, "replay", fmt.Errorf("no DIR given (try: agentwire replay corpus)"))
	}
	total, drift := 0, 0
	for _, dir := range pos {
		st, err := os.Stat(dir)
		if err != nil {
			return fail(e, "replay", fileError(dir, err))
		}
		if !st.IsDir() {
			return fail(e, "replay", fmt.Errorf("%s: not a directory", dir))
		}
		cases, err := corpus.Load(os.DirFS(dir), ".")
		if err != nil {
			return fail(e, "replay", fmt.Errorf("%s: %w", dir, err))
		}
		if len(cases) == 0 {
			return fail(e, "replay", fmt.Errorf("%s: no corpus case (a directory with %s and %s) below it", dir, corpus.FileStdout, corpus.FileMeta))
		}
		for _, c := range cases {
			total++
			name := filepath.Join(dir, filepath.FromSlash(c.Name))
			problems, got, err := replayCase(c)
			if err != nil {
				return fail(e, "replay", err)
			}
			switch {
			case *update && !bytes.Equal(c.Golden, got):
				if err := os.WriteFile(filepath.Join(name, corpus.FileGolden), got, 0o644); err != nil {
					return fail(e, "replay", err)
				}
				fmt.Fprintf(e.stdout, "updated %s\n", name)
			case *update:
			case c.Golden == nil:
				problems = append(problems, "no golden.json (run agentwire replay --update)")
			case !bytes.Equal(c.Golden, got):
				problems = append(problems, "golden.json differs (-want +got):\n"+corpus.DiffJSON(c.Golden, got))
			}
			if len(problems) == 0 {
				if !*update {
					fmt.Fprintf(e.stdout, "ok   %s\n", name)
				}
				continue
			}
			drift++
			fmt.Fprintf(e.stdout, "FAIL %s\n", name)
			for _, p := range problems {
				fmt.Fprintf(e.stdout, "     %s\n", p)
			}
		}
	}
	fmt.Fprintf(e.stderr, "agentwire replay: %d cases, %d failed\n", total, drift)
	if drift > 0 {
		return 1
	}
	return 0
}

// replayCase replays c under every chunking and returns what is wrong
// besides the golden, and the document.
func replayCase(c *corpus.Case) (problems []string, doc []byte, err error) {
	for _, ch := range corpus.Chunkings(uint64(len(c.Stdout))) {
		r, err := corpus.Options{Chunking: ch}.Replay(c)
		if err != nil {
			return nil, nil, err
		}
		got, err := r.JSON()
		if err != nil {
			return nil, nil, err
		}
		if doc == nil {
			doc = got
			for _, v := range r.Violations() {
				problems = append(problems, "violation "+v.String())
			}
			continue
		}
		if !bytes.Equal(doc, got) {
			problems = append(problems, fmt.Sprintf("the %s chunking differs from whole (-whole +%s):\n%s", ch.Name, ch.Name, corpus.DiffJSON(doc, got)))
		}
	}
	return problems, doc, nil
}
