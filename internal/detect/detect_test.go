package detect

import (
	"slices"
	"testing"
)

func TestLines(t *testing.T) {
	type line struct {
		at int
		l  string
	}
	for _, tc := range []struct {
		head string
		want []line
	}{
		{"", nil},
		{"a", []line{{0, "a"}}},
		{"a\n", []line{{0, "a"}}},
		{"a\r\nb\n\nc", []line{{0, "a"}, {3, "b"}, {5, ""}, {6, "c"}}},
		{"\xef\xbb\xbf{}\r\n\xef\xbb\xbfx", []line{{0, "{}"}, {7, "\xef\xbb\xbfx"}}},
		{"a\r\r\n", []line{{0, "a\r"}}},
	} {
		var got []line
		for at, l := range Lines([]byte(tc.head)) {
			got = append(got, line{at, string(l)})
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Lines(%q) = %+v, want %+v", tc.head, got, tc.want)
		}
	}
	n := 0
	for range Lines([]byte("a\nb\nc\n")) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("break: %d lines yielded", n)
	}
}
