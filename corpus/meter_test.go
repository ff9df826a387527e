package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"testing"
)

// TestMeter: a meter read to its end under every chunking has the
// length, digest, last LF and final line of what it read; it keeps the
// whole input only up to meterWhole bytes and a final line only up to
// meterTail. Without its digest it has all the same but an empty sum.
func TestMeter(t *testing.T) {
	big := strings.Repeat("x", meterTail)
	for _, in := range []string{
		"", "\n", "a", "a\n", "{\"a\":1}\n{\"b\":", "a\nb\nc\n",
		strings.Repeat("{\"type\":\"x\"}\n", meterWhole/13+1) + "{\"t",
		"a\n" + big,       // a final line of exactly meterTail bytes
		"a\n" + big + "y", // one more: not kept
		"a\n" + big + "y\n" + "z",
	} {
		for _, ch := range Chunkings(uint64(len(in))) {
			if ch.Name == "bytes" && len(in) > 1<<16 {
				continue
			}
			bare := newMeter(ch.Reader([]byte(in)), false)
			if _, err := io.Copy(io.Discard, bare); err != nil {
				t.Fatal(err)
			}
			m := newMeter(ch.Reader([]byte(in)), true)
			if _, err := io.Copy(io.Discard, m); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256([]byte(in))
			last := int64(strings.LastIndexByte(in, '\n'))
			final := in[last+1:]
			keepTail := len(final) <= meterTail
			name := in[:min(len(in), 20)]
			if m.n != int64(len(in)) || m.sum() != hex.EncodeToString(sum[:]) || m.lastNL != last {
				t.Errorf("%q (%s): n %d sum %s lastNL %d", name, ch.Name, m.n, m.sum(), m.lastNL)
			}
			if bare.sum() != "" || bare.n != m.n || bare.lastNL != m.lastNL || !bytes.Equal(bare.tail, m.tail) || bare.long != m.long || !bytes.Equal(bare.whole, m.whole) {
				t.Errorf("%q (%s): without the digest: sum %q n %d lastNL %d, tail %d bytes", name, ch.Name, bare.sum(), bare.n, bare.lastNL, len(bare.tail))
			}
			if keepTail == m.long || keepTail && string(m.tail) != final {
				t.Errorf("%q (%s): tail %d bytes long %v, want %d bytes", name, ch.Name, len(m.tail), m.long, len(final))
			}
			if (len(in) <= meterWhole) != (m.whole != nil) || m.whole != nil && !bytes.Equal(m.whole, []byte(in)) {
				t.Errorf("%q (%s): whole %d bytes, kept %v", name, ch.Name, len(m.whole), m.whole != nil)
			}
		}
	}
}

// TestLastLF: lastLF is bytes.LastIndexByte for a LF, wherever the last
// one stands about its blocks, and for none.
func TestLastLF(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 4096, 4097, 3*4096 + 17} {
		b := bytes.Repeat([]byte("a"), n)
		if got := lastLF(b); got != -1 {
			t.Errorf("%d bytes without a LF: %d", n, got)
		}
		for _, at := range []int{0, 1, n / 2, n - 4097, n - 4096, n - 4095, n - 2, n - 1} {
			if at < 0 || at >= n {
				continue
			}
			c := bytes.Clone(b)
			c[at] = '\n'
			if at > 2 {
				c[at/3] = '\n' // an earlier one, in another block or the same
			}
			if got, want := lastLF(c), bytes.LastIndexByte(c, '\n'); got != want {
				t.Errorf("%d bytes, LF at %d: %d, want %d", n, at, got, want)
			}
		}
	}
}
