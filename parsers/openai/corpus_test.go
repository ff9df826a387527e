package openai

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
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

// corpusCase is one case of corpus/openai-responses or corpus/openai-chat:
// the body, and the status and content type its meta.json records.
type corpusCase struct {
	name        string // provider/source/case
	body        string
	status      int
	contentType string
}

// corpusCases finds the cases under corpus/openai-*: public captures
// (provenance in each meta.json) and the mock's scenarios.
func corpusCases(t testing.TB) []corpusCase {
	t.Helper()
	var out []corpusCase
	for _, prov := range []string{ProviderResponses, ProviderChat} {
		root := filepath.Join("..", "..", "corpus", prov)
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "stdout" {
				return err
			}
			dir := filepath.Dir(path)
			body, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var m struct {
				HTTPStatus  int    `json:"http_status"`
				ContentType string `json:"content_type"`
			}
			mb, err := os.ReadFile(filepath.Join(dir, "meta.json"))
			if err != nil {
				return err
			}
			if err := json.Unmarshal(mb, &m); err != nil {
				return fmt.Errorf("%s: %w", dir, err)
			}
			rel, _ := filepath.Rel(filepath.Join("..", "..", "corpus"), dir)
			out = append(out, corpusCase{name: filepath.ToSlash(rel), body: string(body), status: m.HTTPStatus, contentType: m.ContentType})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestCorpusCases replays every case of corpus/openai-* under every
// chunking, with and without streaming: zero violations, identical
// results, the exact body kept, and the parser's golden file (the corpus
// replay holds the same cases to their golden.json).
func TestCorpusCases(t *testing.T) {
	cases := corpusCases(t)
	if len(cases) < 40 {
		t.Fatalf("found only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := replayAs(t, c.body, Options{}, c.status, c.contentType)
			resp := r.Response
			if resp.RawStreams == nil || resp.RawStreams.Stdout != c.body {
				t.Fatal("the raw body was not kept exactly")
			}
			resp.RawStreams = &driver.RawStreams{Terminal: resp.RawStreams.Terminal}
			got := golden{Payloads: kinds(r.Payloads), Items: r.Items, Response: resp}
			gpath := filepath.Join("testdata", "golden", filepath.FromSlash(c.name)+".json")
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
