package gemini

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/driver"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

type publicCase struct {
	name   string
	status int
	body   string
}

// publicCases are the public captures of testdata/public (see its
// PROVENANCE.md); the crewAI one is an HTTP 400 body.
func publicCases(t testing.TB) []publicCase {
	t.Helper()
	files, _ := filepath.Glob("testdata/public/*.sse")
	if len(files) < 15 {
		t.Fatalf("found %d public captures", len(files))
	}
	var cases []publicCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := publicCase{name: strings.TrimSuffix(filepath.Base(f), ".sse"), status: 200, body: string(b)}
		if strings.Contains(c.name, "http400") {
			c.status = 400
		}
		cases = append(cases, c)
	}
	return cases
}

// golden is the stored form of a result: the raw body is left out (it is
// the capture itself), the terminal stays.
func golden(r result) result {
	if rs := r.Response.RawStreams; rs != nil {
		r.Response.RawStreams = &driver.RawStreams{Terminal: rs.Terminal}
	}
	return r
}

// TestPublicCaptures replays every public capture under every chunking,
// with and without streaming: zero violations, identical results, the raw
// body byte-exact, and the golden file.
func TestPublicCaptures(t *testing.T) {
	for _, c := range publicCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var want result
			for i, ch := range chunkings(uint64(len(c.body))) {
				got, v := run(c.status, c.body, Options{Streaming: true}, ch.Mk)
				if len(v) > 0 {
					t.Fatalf("%s: violations:\n%s", ch.Name, v)
				}
				if got.Response.RawStreams.Stdout != c.body {
					t.Fatalf("%s: raw body differs from the capture", ch.Name)
				}
				if i == 0 {
					want = got
					continue
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("%s differs from whole (-whole +%s):\n%s", ch.Name, ch.Name, d)
				}
			}
			if term := want.Response.RawStreams.Terminal; term != nil && !strings.Contains(c.body, string(term.JSON)) {
				t.Fatalf("terminal JSON is not the exact bytes of an event: %s", term.JSON)
			}
			plain, v := run(c.status, c.body, Options{}, nil)
			if len(v) > 0 || len(plain.Payloads) != 0 {
				t.Fatalf("non-streaming: %d payloads, violations:\n%s", len(plain.Payloads), v)
			}
			if d := cmp.Diff(want.Response, plain.Response); d != "" {
				t.Fatalf("non-streaming response differs:\n%s", d)
			}
			checkGolden(t, "public/"+c.name, golden(want))
		})
	}
}

func checkGolden(t *testing.T, name string, r result) {
	t.Helper()
	got, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", filepath.FromSlash(name)+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no golden (run go test -update): %v", err)
	}
	if string(want) != string(got) {
		t.Errorf("golden %s differs (-want +got):\n%s", path, cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")))
	}
}
