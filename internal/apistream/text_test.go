package apistream

import (
	"strings"
	"testing"
)

func TestAppendGrowsByDoubling(t *testing.T) {
	var sb strings.Builder
	grows, last := 0, 0
	piece := []byte("0123456789abcdefghij")
	var want strings.Builder
	for range 20000 {
		d := Append(&sb, piece)
		if d != string(piece) {
			t.Fatalf("Append returned %q", d)
		}
		want.Write(piece)
		if c := sb.Cap(); c != last {
			grows, last = grows+1, c
		}
	}
	if sb.String() != want.String() {
		t.Fatal("contents differ")
	}
	// 400,000 bytes from 20-byte pieces: doubling takes about 15 steps;
	// growth by a quarter would take about 40.
	if grows > 20 {
		t.Errorf("%d reallocations for %d bytes; want doubling", grows, sb.Len())
	}
}

func TestOutputSpans(t *testing.T) {
	var o Output
	var a, b, c Span
	got := o.Append(&a, []byte("Hello")) + o.Append(&a, []byte(", "))
	got += o.Append(&b, []byte("[b1]")) // b interleaves: a must keep its own copy from its next delta
	got += o.Append(&a, []byte("world"))
	got += o.Append(&b, []byte("[b2]"))
	if got != "Hello, [b1]world[b2]" || o.String() != got {
		t.Fatalf("deltas %q, Output %q", got, o.String())
	}
	if o.Text(&a) != "Hello, world" || o.Text(&b) != "[b1][b2]" || o.Text(&c) != "" {
		t.Fatalf("spans %q %q %q", o.Text(&a), o.Text(&b), o.Text(&c))
	}
	if o.Append(&c, nil) != "" || o.Len() != len(got) {
		t.Fatal("an empty delta changed the Output")
	}
}
