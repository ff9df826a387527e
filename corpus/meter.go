package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
)

// meter reads stdout for a replay that keeps no copy of it (Options.Discard,
// provider.Input.DiscardStdout): it counts and hashes every byte as it is
// read, remembers where the last LF stands and the bytes after it (the
// final line, when it has no LF, for Truncated), and keeps the whole of a
// stdout of at most meterWhole bytes, so that a small capture is judged on
// its exact bytes (RSP-03) as a recording replay judges it.
type meter struct {
	r      io.Reader
	h      hash.Hash // nil: not hashed (Options.NoDigest)
	n      int64
	lastNL int64 // offset of the last LF, -1 for none
	// tail holds the bytes after the last LF, nil once they pass
	// meterTail (long is then set).
	tail  []byte
	long  bool
	whole []byte // every byte, nil once they pass meterWhole
}

// meterWhole is the largest stdout a meter keeps whole; meterTail the
// longest final line it keeps for Truncated (a longer final line without
// its LF is Malformed, not Truncated).
const (
	meterWhole = 1 << 20
	meterTail  = 8 << 20
)

// newMeter returns a meter of r, hashing what it reads when digest is set.
func newMeter(r io.Reader, digest bool) *meter {
	m := &meter{r: r, lastNL: -1, whole: []byte{}}
	if digest {
		m.h = sha256.New()
	}
	return m
}

func (m *meter) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	b := p[:n]
	if m.h != nil {
		m.h.Write(b)
	}
	if m.whole != nil {
		if int(m.n)+n <= meterWhole {
			m.whole = append(growDoubling(m.whole, n, meterWhole), b...)
		} else {
			m.whole = nil
		}
	}
	if i := lastLF(b); i >= 0 {
		m.lastNL = m.n + int64(i)
		m.tail, m.long, b = m.tail[:0], false, b[i+1:]
	}
	if !m.long {
		if len(m.tail)+len(b) <= meterTail {
			m.tail = append(growDoubling(m.tail, len(b), meterTail), b...)
		} else {
			m.tail, m.long = nil, true
		}
	}
	m.n += int64(n)
	return n, err
}

// sum is the hex SHA-256 of what was read, "" when it is not hashed.
func (m *meter) sum() string {
	if m.h == nil {
		return ""
	}
	return hex.EncodeToString(m.h.Sum(nil))
}

// lastLF is bytes.LastIndexByte(b, '\n') at the speed of bytes.IndexByte:
// the standard one walks byte by byte, so a final line of hundreds of MB
// (one the framing skips as too long) would be walked whole. Each block
// from the end is searched for a LF with IndexByte first; only the block
// that has one is walked.
func lastLF(b []byte) int {
	const block = 4 << 10
	for end := len(b); end > 0; end -= block {
		start := max(end-block, 0)
		if bytes.IndexByte(b[start:end], '\n') >= 0 {
			return start + bytes.LastIndexByte(b[start:end], '\n')
		}
	}
	return -1
}
