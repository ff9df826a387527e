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
	max  int // bytes held in memory; spoolMemory, or a test's
	mem  []byte
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
	if need := len(text) + len(itemSep) + 1; s.f == nil && len(s.mem)+need <= s.max {
		s.mem = growDoubling(s.mem, need, s.max)
		if comma {
			s.mem = append(s.mem, ',')
		}
		s.mem = append(s.mem, itemSep...)
		s.mem = append(s.mem, text...)
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
	if _, err := w.Write(s.mem); err != nil || s.f == nil {
		return err
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
	s.mem = nil
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
