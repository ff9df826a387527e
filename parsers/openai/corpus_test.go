package openai

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

// golden is what is stored per public capture: the payload kinds (their
// deltas are the Output), the items and the Response without the raw
// body (it is the capture itself).
type golden struct {
	Payloads []string                `json:"payloads"`
	Items    []driver.TranscriptItem `json:"items"`
	Response driver.Response         `json:"response"`
}

// TestPublicCaptures replays every public capture in testdata/public
// (provenance in testdata/public/PROVENANCE.md) under every chunking, with
// and without streaming: zero violations, identical results, the exact
// body kept, and the golden file.
func TestPublicCaptures(t *testing.T) {
	files, err := filepath.Glob("testdata/public/*.sse")
	if err != nil || len(files) < 20 {
		t.Fatalf("found %d captures (%v)", len(files), err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".sse")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r := replay(t, string(b), Options{})
			resp := r.Response
			if resp.RawStreams == nil || resp.RawStreams.Stdout != string(b) {
				t.Fatal("the raw body was not kept exactly")
			}
			resp.RawStreams = &driver.RawStreams{Terminal: resp.RawStreams.Terminal}
			got := golden{Payloads: kinds(r.Payloads), Items: r.Items, Response: resp}
			gpath := filepath.Join("testdata", "golden", name+".json")
			out, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, '\n')
			if *update {
				if err := os.MkdirAll(filepath.Dir(gpath), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(gpath, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gpath)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if d := cmp.Diff(string(want), string(out)); d != "" {
				t.Errorf("golden %s (-want +got):\n%s", gpath, d)
			}
		})
	}
}
