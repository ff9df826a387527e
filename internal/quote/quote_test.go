package quote

import "testing"

func TestBytes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"short", "abc", 10, `"abc"`},
		{"exact", "abcd", 4, `"abcd"`},
		{"cut", "abcdef", 3, `"abc"...(6 bytes)`},
		{"control", "a\x1b[31m", 10, `"a\x1b[31m"`},
		{"invalid utf8", "\xff\xfe", 10, `"\xff\xfe"`},
		{"no split rune", "ab\u00e9cd", 3, `"ab"...(6 bytes)`},
		{"default max", string(make([]byte, 81)), 0, `"` + repeat(`\x00`, 80) + `"...(81 bytes)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Bytes([]byte(tc.in), tc.max); got != tc.want {
				t.Errorf("Bytes(%q, %d) = %s, want %s", tc.in, tc.max, got, tc.want)
			}
			if got := String(tc.in, tc.max); got != tc.want {
				t.Errorf("String(%q, %d) = %s, want %s", tc.in, tc.max, got, tc.want)
			}
		})
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
