package appserver

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzParser from the corpus and the unit-test sessions")

// FuzzParser parses any stdout (and optionally a fixed client side) with
// the validators as oracle: no panic, zero violations of CheckStream,
// CheckRun and CheckResponse, the same result whole and chunked, raw
// stdout kept byte-exact, and no valid checkpoint without this run's
// turn/completed with status completed.
func FuzzParser(f *testing.F) {
	f.Add([]byte(lines(sSession...)), []byte(sStdin), uint8(1))
	f.Add([]byte(lines(sInit, sThreadResp, sTurnResp, sCmdStart, sApproval, sResolved, sCmdDone, sFailed)), []byte(""), uint8(3))
	f.Fuzz(func(t *testing.T, stdout, stdin []byte, flags uint8) {
		opts := Options{Streaming: flags&1 != 0, SessionData: map[string]string{"cwd": "/w"}}
		out := Outcome{}
		if flags&2 != 0 {
			out.ExitCode = 1
		}
		if flags&4 != 0 {
			out.Cancelled = true
		}
		whole, v := run(string(stdin), string(stdout), "", opts, out, nil)
		if len(v) > 0 {
			t.Fatalf("violations:\n%s", v)
		}
		if whole.Response.RawStreams.Stdout != string(stdout) {
			t.Fatal("raw stdout differs")
		}
		if cp := whole.Response.Checkpoint; cp != nil && cp.Valid {
			term := whole.Response.RawStreams.Terminal
			if term == nil || !bytes.Contains(stdout, term.JSON) || !strings.Contains(string(term.JSON), `"completed"`) || !out.Clean() {
				t.Fatalf("valid checkpoint without a successful terminal: %+v", term)
			}
		}
		sizes := []int{int(flags>>3) + 1, 1, 7}
		chunked, v := run(string(stdin), string(stdout), "", opts, out, func(s string) io.Reader { return &chunkReader{S: s, Sizes: sizes} })
		if len(v) > 0 {
			t.Fatalf("chunked violations:\n%s", v)
		}
		if !reflect.DeepEqual(whole, chunked) {
			t.Fatalf("chunked differs (-whole +chunked):\n%s", cmp.Diff(whole, chunked, rawEqual))
		}
	})
}

// TestWriteFuzzSeeds writes the seed corpus of FuzzParser (with
// -update-seeds): the small corpus cases and the public capture.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*updateSeeds {
		t.Skip("run with -update-seeds")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzParser")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range corpusCases(t) {
		if len(c.stdout) > 16<<10 {
			continue
		}
		name := strings.ReplaceAll(c.name, "/", "_")
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n[]byte(%q)\nuint8(%d)\n", c.stdout, c.stdin, 1)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
