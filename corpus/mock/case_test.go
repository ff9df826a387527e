package mock

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the mock cases under corpus/<provider>/mock (stdout and meta.json) from what the mocks serve; the goldens then come from `agentwire replay --update`")

// serve serves reply on a mock of api (127.0.0.1) and POSTs body to path:
// the response's body, status and Content-Type, and the error that ended
// reading the body (a disconnect's).
func serve(t *testing.T, api API, reply Reply, path, body string) (b []byte, status int, ctype string, err error) {
	t.Helper()
	_, ts := newServer(t, Options{API: api, Replies: []Reply{reply}})
	resp := post(t, ts.URL+path, body)
	b, err = io.ReadAll(resp.Body)
	return b, resp.StatusCode, resp.Header.Get("Content-Type"), err
}

// mockCase requires the corpus case dir (below corpus/mock) to hold body
// as its stdout and meta as its meta.json (indented, ending in a newline),
// so that a change of a mock shows up as drift; -update-corpus writes them
// instead.
func mockCase(t *testing.T, dir string, body []byte, meta map[string]any) {
	t.Helper()
	mj, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"stdout": body, "meta.json": append(mj, '\n')}
	if *updateCorpus {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for name, want := range files {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s/%s differs from what the mock serves (%v); go test ./corpus/mock -run %s -update-corpus rewrites it", dir, name, err, t.Name())
		}
	}
}
