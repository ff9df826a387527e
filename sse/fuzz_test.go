package sse

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planOptions derives the options and read sizes from the fuzzer's plan:
// plan[0] holds flags, plan[1] a small size limit (so that the limit code is
// reached with small inputs), and the rest the read sizes.
func planOptions(plan []byte) (Options, []int) {
	var o Options
	var sizes []int
	if len(plan) > 0 {
		o.Spans = plan[0]&1 != 0
		o.DiscardIncomplete = plan[0]&2 != 0
		if plan[0]&4 != 0 && len(plan) > 1 {
			o.MaxEventSize = 1 + int(plan[1])
		}
		for _, b := range plan[min(2, len(plan)):] {
			sizes = append(sizes, 1+int(b))
		}
	}
	return o, sizes
}

// FuzzDecoder runs whole streams through the Reader and the Decoder under
// the fuzzer's chunking, one read and 1-byte reads, and checks with
// checkInput that all agree, that every byte is accounted for, that the
// events match the reference parser, and that work stays linear.
func FuzzDecoder(f *testing.F) {
	for _, tc := range matrixCases() {
		if in := strings.Join(tc.in, ""); len(in) < 4096 {
			f.Add([]byte(in), []byte{1, 40, 3, 1, 7})
		}
	}
	f.Fuzz(func(t *testing.T, data, plan []byte) {
		if len(data) > 1<<16 {
			return
		}
		opts, sizes := planOptions(plan)
		checkInput(t, data, opts, sizes)
	})
}

var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/fuzz/FuzzDecoder seeds from the public captures")

// TestWriteFuzzCorpus regenerates the FuzzDecoder seed corpus from the public
// captures (shared/reference/public-captures) with -update-corpus: each
// capture as is (at most 16 KiB), and the small ones also with CRLF and
// bare-CR line endings and with a BOM. Files are named like the go command
// names them (the first 16 hex digits of their SHA-256).
func TestWriteFuzzCorpus(t *testing.T) {
	if !*updateCorpus {
		t.Skip("run with -update-corpus")
	}
	src := filepath.Join("..", "..", "shared", "reference", "public-captures")
	if s := os.Getenv("AGENTWIRE_CAPTURES"); s != "" {
		src = s
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzDecoder")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sub := range []string{"anthropic-sse", "openai-responses-sse", "openai-chat-sse"} {
		files, err := filepath.Glob(filepath.Join(src, sub, "*.sse"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no captures in %s: %v", filepath.Join(src, sub), err)
		}
		for i, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			b = b[:min(len(b), 16<<10)]
			plan := []byte{byte(i % 8), byte(50 + 10*i), byte(i), 16, 255, 1}
			variants := [][]byte{b}
			if len(b) <= 4096 {
				s := string(b)
				variants = append(variants,
					[]byte(strings.ReplaceAll(s, "\n", "\r\n")),
					[]byte(strings.ReplaceAll(s, "\n", "\r")),
					[]byte("\xEF\xBB\xBF"+strings.TrimSuffix(s, "\n\n")))
			}
			for _, v := range variants {
				content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n[]byte(%q)\n", v, plan)
				sum := sha256.Sum256([]byte(content))
				name := hex.EncodeToString(sum[:])[:16]
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				n++
			}
		}
	}
	t.Logf("wrote %d seeds", n)
}
