package corpus

import (
	"bufio"
	"io"
	"os"
	"slices"
)

// spoolMemory is how much of a spool stays in memory before the rest
// goes to a temporary file.
const spoolMemory = 8 << 20

// spool holds the text of a document's transcript items, in order, until
// the response is written (DocumentWriter.TranscriptFromEvents): the first
// spoolMemory bytes in memory, the rest in a temporary file.
type spool struct {
	max   int // bytes held in memory; spoolMemory, or a test's
	chunk int // the size of mem's chunks; spoolChunk, or a test's
	// mem holds the text in memory in chunks of spoolChunk bytes, each
	// filled before the next is made: the memory is what the text needs,
	// allocated once (a buffer doubling to 8 MiB would allocate and fault
	// in twice that, and copy it on the way).
	mem  [][]byte
	used int // bytes in mem
	f    *os.File
	fw   *bufio.Writer
	n    int    // items added
	path string // the file's name while it has one (not on Unix)
}

// itemSep is what precedes an item in the transcript: a newline and the
// indentation of depth 3.
const itemSep = "\n      "

// add appends one item's text (at depth 3), after a comma when it is not
// the first.
func (s *spool) add(text []byte) error {
	comma := s.n > 0
	s.n++
	if need := len(text) + len(itemSep) + 1; s.f == nil && s.used+need <= s.max {
		if comma {
			put(s, ",")
		}
		put(s, itemSep)
		put(s, text)
		return nil
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "agentwire-transcript-*")
		if err != nil {
			return err
		}
		s.f, s.path = f, f.Name()
		if os.Remove(s.path) == nil {
			// Unlinked while open (Unix): nothing is left behind, whatever
			// happens to the process.
			s.path = ""
		}
		s.fw = bufio.NewWriterSize(f, 64<<10)
	}
	if comma {
		s.fw.WriteByte(',')
	}
	s.fw.WriteString(itemSep)
	_, err := s.fw.Write(text)
	return err
}

// spoolChunk is the size of the spool's chunks of memory.
const spoolChunk = 64 << 10

// put appends b to the chunks in memory.
func put[T string | []byte](s *spool, b T) {
	s.used += len(b)
	for len(b) > 0 {
		if k := len(s.mem); k == 0 || len(s.mem[k-1]) == cap(s.mem[k-1]) {
			s.mem = append(s.mem, make([]byte, 0, s.chunk))
		}
		c := &s.mem[len(s.mem)-1]
		n := copy((*c)[len(*c):cap(*c)], b)
		*c = (*c)[:len(*c)+n]
		b = b[n:]
	}
}

// growDoubling returns b with room for n more bytes, grown, when it must
// be, to twice its capacity (at most limit, at least what n needs): a
// buffer that grows to megabytes by append's own steps (a quarter at a
// time past 256 bytes) allocates five times its final size on the way,
// each a fresh allocation the process faults in.
func growDoubling(b []byte, n, limit int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return slices.Grow(b, max(n, min(2*cap(b), limit)-len(b)))
}

// writeTo writes the spooled text to w.
func (s *spool) writeTo(w io.Writer) error {
	for _, c := range s.mem {
		if _, err := w.Write(c); err != nil {
			return err
		}
	}
	if s.f == nil {
		return nil
	}
	if err := s.fw.Flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.f)
	return err
}

// close releases the spool and removes its file.
func (s *spool) close() error {
	s.mem, s.used = nil, 0
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.path != "" {
		if rerr := os.Remove(s.path); err == nil {
			err = rerr
		}
	}
	s.f = nil
	return err
}
