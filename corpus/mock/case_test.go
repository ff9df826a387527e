package mock

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
)

// scenario is a scripted reply the issues name, with what the parser of
// its API must make of it: the output text, the finish reason or else the
// failure code, the tool calls and the refused text.
type scenario struct {
	name    string
	reply   Reply
	output  string
	finish  driver.FinishReason
	code    driver.FailureCode
	calls   int
	refusal string
}

// check holds a streamed parse of a mock's answer to sc (recorded in
// sink, with the parser's capability) to it: no validator violation; the
// output (unless sc leaves it unset for a reply cut off by a disconnect);
// the failure code, or no failure and the finish reason; the tool calls
// that did not fail and the refusal text.
func (sc scenario) check(t *testing.T, capability driver.StreamCapability, sink *adaptertest.RecordingSink, r driver.Response, err error) {
	t.Helper()
	if v := sink.Check(true, capability, r, err, nil); len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	if (sc.output != "" || sc.reply.DisconnectAfter == 0) && r.Output != sc.output {
		t.Errorf("output %q, want %q", r.Output, sc.output)
	}
	switch {
	case sc.code != "":
		if r.Failure == nil || r.Failure.Code != sc.code {
			t.Errorf("failure %+v, want %s", r.Failure, sc.code)
		}
	case r.Failure != nil || r.Finish == nil || r.Finish.Reason != sc.finish:
		t.Errorf("failure %+v finish %+v, want %s", r.Failure, r.Finish, sc.finish)
	}
	calls, refusal := 0, ""
	for _, it := range r.Transcript {
		switch {
		case it.Kind == driver.TranscriptToolCall && !it.IsError:
			calls++
		case it.Metadata["refusal"] == "true":
			refusal += it.Text
		}
	}
	if calls != sc.calls || refusal != sc.refusal {
		t.Errorf("%d tool calls, refusal %q; want %d, %q", calls, refusal, sc.calls, sc.refusal)
	}
}

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
