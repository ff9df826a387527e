package parsertest

import (
	"strings"
	"testing"
)

// TestReplicate: the head and the last line once, the middle repeated
// until size, each repetition after the first with the middle's own ids
// (not the head's) suffixed wherever they are quoted.
func TestReplicate(t *testing.T) {
	capture := `{"thread_id":"t"}` + "\n" +
		`{"item":{"id":"a","parent":"t"}}` + "\n" +
		`{"done":"a","ref":"a","call_id":"t"}` + "\n" +
		`{"end":"a"}` + "\n"
	got := string(Replicated(capture, 1, 200))
	want := `{"thread_id":"t"}` + "\n" +
		`{"item":{"id":"a","parent":"t"}}` + "\n" + `{"done":"a","ref":"a","call_id":"t"}` + "\n" +
		`{"item":{"id":"a-r1","parent":"t"}}` + "\n" + `{"done":"a-r1","ref":"a-r1","call_id":"t"}` + "\n" +
		`{"item":{"id":"a-r2","parent":"t"}}` + "\n" + `{"done":"a-r2","ref":"a-r2","call_id":"t"}` + "\n" +
		`{"end":"a"}` + "\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if once := string(Replicated(capture, 1, 0)); once != capture {
		t.Fatalf("size 0: got\n%s\nwant the capture", once)
	}
	if r := string(Repeat("h\n", "x", "f\n", 3)); r != "h\nx\nx\nx\nf\n" {
		t.Fatalf("Repeat %q", r)
	}
	if strings.Count(string(Replicated(capture, 1, 1<<12)), `"end"`) != 1 {
		t.Fatal("the last line repeated")
	}
}
