package mock

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/sse"
)

// sseEvent is one parsed event of a mock stream.
type sseEvent struct {
	Name string
	Data map[string]any
}

// readEvents decodes the mock's stream with the project's sse.Reader; it
// returns the events and the read error (nil at a clean end).
func readEvents(t *testing.T, r io.Reader) ([]sseEvent, error) {
	t.Helper()
	var evs []sseEvent
	rd := sse.NewReader(r, sse.Options{})
	for {
		f, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		if f.Kind != sse.KindEvent || f.Incomplete {
			t.Fatalf("unexpected frame %v (incomplete %v): %q", f.Kind, f.Incomplete, f.Raw)
		}
		ev := sseEvent{Name: f.Event}
		if err := json.Unmarshal(f.Data, &ev.Data); err != nil {
			t.Fatalf("data is not JSON: %q", f.Data)
		}
		evs = append(evs, ev)
	}
}

func names(evs []sseEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

func newServer(t *testing.T, opt Options) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestResponsesStream(t *testing.T) {
	reply := Reply{Items: []Item{
		{Type: "reasoning", Deltas: []string{"**Plan**", " it"}},
		{Type: "text", Deltas: []string{"Hel", "lo"}},
		{Type: "tool_call", Name: "exec_command", Input: json.RawMessage(`{"cmd": "echo hi"}`), Chunks: 3},
	}, Usage: &Usage{InputTokens: 7, OutputTokens: 3}}
	s, ts := newServer(t, Options{API: Responses, Replies: []Reply{reply}})
	resp := post(t, ts.URL+"/v1/responses", `{"model":"m1","input":[]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	evs, err := readEvents(t, resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added",
		"response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.delta", "response.output_text.done",
		"response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta",
		"response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.completed"}
	if got := names(evs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	for i, e := range evs {
		if e.Data["type"] != e.Name {
			t.Errorf("event %d: name %q, data type %v", i, e.Name, e.Data["type"])
		}
		if e.Data["sequence_number"] != float64(i) {
			t.Errorf("event %d: sequence_number %v", i, e.Data["sequence_number"])
		}
	}
	done := evs[21].Data["item"].(map[string]any)
	if done["arguments"] != `{"cmd":"echo hi"}` || done["name"] != "exec_command" {
		t.Errorf("function_call item = %v", done)
	}
	last := evs[len(evs)-1].Data["response"].(map[string]any)
	if last["model"] != "m1" || last["status"] != "completed" {
		t.Errorf("completed response = %v", last)
	}
	if u := last["usage"].(map[string]any); u["total_tokens"] != float64(10) {
		t.Errorf("usage = %v", u)
	}
	if reqs := s.Requests(); len(reqs) != 1 || reqs[0].Reply != 0 || string(reqs[0].Body) != `{"model":"m1","input":[]}` {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestMessagesStream(t *testing.T) {
	reply := Reply{Items: []Item{
		{Type: "reasoning", Deltas: []string{"hmm"}},
		{Type: "tool_call", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
	}}
	_, ts := newServer(t, Options{API: Messages, Replies: []Reply{reply}})
	evs, err := readEvents(t, post(t, ts.URL+"/v1/messages", `{"model":"claude-x"}`).Body)
	if err != nil {
		t.Fatal(err)
	}
	want := "message_start ping content_block_start content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names(evs), " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	if d := evs[7].Data["delta"].(map[string]any); d["partial_json"] != "" {
		t.Errorf("first input_json_delta = %v, want empty partial_json", d)
	}
	var js string
	for _, e := range evs[7:10] {
		js += e.Data["delta"].(map[string]any)["partial_json"].(string)
	}
	if js != `{"command":"ls"}` {
		t.Errorf("joined partial_json = %q", js)
	}
	if d := evs[11].Data["delta"].(map[string]any); d["stop_reason"] != "tool_use" {
		t.Errorf("stop_reason = %v", d["stop_reason"])
	}
}

func TestHTTPErrorAndAuxiliary(t *testing.T) {
	s, ts := newServer(t, Options{API: Messages, Replies: []Reply{{Status: 529}}})
	// Auxiliary endpoints consume no reply.
	if r := post(t, ts.URL+"/v1/messages/count_tokens", `{}`); r.StatusCode != 200 {
		t.Fatalf("count_tokens status %d", r.StatusCode)
	}
	r := post(t, ts.URL+"/v1/messages", `{}`)
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 529 || !strings.Contains(string(b), `"overloaded_error"`) {
		t.Fatalf("got %d %s", r.StatusCode, b)
	}
	// The script is exhausted: the default reply still terminates.
	evs, err := readEvents(t, post(t, ts.URL+"/v1/messages", `{}`).Body)
	if err != nil || evs[len(evs)-1].Name != "message_stop" {
		t.Fatalf("default reply: %v %v", names(evs), err)
	}
	var got []int
	for _, q := range s.Requests() {
		got = append(got, q.Reply)
	}
	if want := []int{-2, 0, -1}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("reply indexes = %v, want %v", got, want)
	}
}

func TestStreamErrorAndDisconnect(t *testing.T) {
	_, ts := newServer(t, Options{API: Responses, Replies: []Reply{
		{Items: []Item{{Type: "text", Deltas: []string{"a"}}}, Error: &StreamError{Type: "server_error", Code: "server_error", Message: "boom"}},
		{Items: []Item{{Type: "text", Deltas: []string{"a", "b", "c"}}}, DisconnectAfter: 4},
	}})
	evs, err := readEvents(t, post(t, ts.URL+"/v1/responses", `{}`).Body)
	if err != nil {
		t.Fatal(err)
	}
	n := len(evs)
	if evs[n-2].Name != "error" || evs[n-1].Name != "response.failed" {
		t.Fatalf("tail = %v", names(evs[n-2:]))
	}
	evs, err = readEvents(t, post(t, ts.URL+"/v1/responses", `{}`).Body)
	if err == nil {
		t.Fatalf("disconnect: clean end after %v", names(evs))
	}
	if len(evs) != 4 {
		t.Errorf("disconnect: %d events before the abort, want 4", len(evs))
	}
}

func TestValidate(t *testing.T) {
	for name, r := range map[string]Reply{
		"status range":   {Status: 200},
		"status+items":   {Status: 500, Items: []Item{{Type: "text", Deltas: []string{"x"}}}},
		"bad body":       {Status: 500, Body: json.RawMessage(`{`)},
		"unknown item":   {Items: []Item{{Type: "image"}}},
		"empty text":     {Items: []Item{{Type: "text"}}},
		"nameless tool":  {Items: []Item{{Type: "tool_call"}}},
		"bad tool input": {Items: []Item{{Type: "tool_call", Name: "x", Input: json.RawMessage(`[`)}}},
	} {
		if err := r.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, r)
		}
	}
	if _, err := New(Options{API: Responses, Replies: []Reply{{Status: 200}}}); err == nil {
		t.Error("New accepted an invalid reply")
	}
}

func TestChunks(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want int
	}{{"abcdef", 3, 3}, {"ab", 5, 2}, {"", 3, 1}, {"日本語テキスト", 2, 2}} {
		got := chunks(tc.s, tc.n)
		if len(got) != tc.want || join(got) != tc.s {
			t.Errorf("chunks(%q, %d) = %q", tc.s, tc.n, got)
		}
	}
}

func TestStallEndsOnClose(t *testing.T) {
	started, written := make(chan int, 1), make(chan int, 2)
	s, err := New(Options{API: Messages, Replies: []Reply{{Items: []Item{{Type: "text", Deltas: []string{"a"}}}, Stall: true}},
		OnRequest: func(seq, reply int) { started <- reply },
		OnWritten: func(seq, reply int) { written <- seq }})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %q is not on 127.0.0.1", s.URL())
	}
	resp := post(t, s.URL()+"/v1/messages", `{}`)
	if r := <-started; r != 0 {
		t.Fatalf("OnRequest reply = %d", r)
	}
	select {
	case seq := <-written:
		if seq != 1 {
			t.Errorf("OnWritten seq = %d", seq)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OnWritten not called when the stall began")
	}
	res := make(chan error, 1)
	var evs []sseEvent
	go func() {
		var err error
		evs, err = readEvents(t, resp.Body)
		res <- err
	}()
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-res:
		t.Fatalf("stream ended before Close: %v", err)
	default:
	}
	go s.Close()
	select {
	case err := <-res:
		if err == nil {
			t.Error("stalled stream ended cleanly; want an aborted connection")
		}
		if n := len(evs); n == 0 || evs[n-1].Name != "content_block_stop" {
			t.Errorf("events before the stall: %v", names(evs))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not release the stalled reply")
	}
	if len(written) != 0 {
		t.Error("OnWritten called twice")
	}
}
