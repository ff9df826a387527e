package apistream

import (
	"strings"
	"testing"
	"unsafe"
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

// TestOutputRoom: text decoded into Room's bytes goes in where it is (the
// delta is those very bytes), bytes written there and not appended
// are not the Output's, the Output grows by doubling, and the strings it
// handed out keep their bytes as it grows and after Reset.
func TestOutputRoom(t *testing.T) {
	var o Output
	var a Span
	var deltas []string
	var want strings.Builder
	grows, last := 0, 0
	for i := range 20000 {
		room := o.Room(32)
		if len(room) != 0 || cap(room) < 32 {
			t.Fatalf("Room(32) = len %d cap %d", len(room), cap(room))
		}
		room = append(room, "0123456789abcdefghij"...)
		if i%3 == 0 {
			continue // decoded, then dropped: not the Output's
		}
		d := o.Append(&a, room)
		if unsafe.StringData(d) != &room[0] {
			t.Fatal("the text in Room's bytes was moved")
		}
		deltas = append(deltas, d)
		want.WriteString(d)
		if c := cap(o.buf); c != last {
			grows, last = grows+1, c
		}
	}
	if o.String() != want.String() || o.Text(&a) != want.String() {
		t.Fatal("contents differ")
	}
	if grows > 20 {
		t.Errorf("%d reallocations for %d bytes; want doubling", grows, o.Len())
	}
	o.Reset()
	o.Append(&Span{}, []byte("overwrite"))
	for _, d := range deltas {
		if d != "0123456789abcdefghij" {
			t.Fatalf("a delta handed out changed to %q", d)
		}
	}
	// Text from elsewhere is copied in.
	var b Span
	src := []byte("xyz")
	if d := o.Append(&b, src); d != "xyz" || unsafe.StringData(d) == &src[0] || o.String() != "overwritexyz" {
		t.Fatalf("Append of outside bytes = %q, Output %q", d, o.String())
	}
}
