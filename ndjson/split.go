package ndjson

import (
	"bytes"

	"github.com/agentwire/agentwire/internal/quote"
)

// Buffer sizes, variables so that tests can shrink them.
var (
	// initialBufferSize is the first allocation of a reader's buffer. It
	// grows by doubling for longer lines, up to MaxLineSize+2.
	initialBufferSize = 64 << 10
	// excerptSize bounds the input quoted in error messages.
	excerptSize = 40
	// skipRead bounds the free space space offers while a line over the
	// limit is skipped.
	skipRead = 256 << 10
)

// poisonBorrowed is a test hook: when set, the bytes of a frame are
// overwritten with '#' as soon as they stop being valid (at the next call
// to Next, or when a Decoder callback returns), so tests catch callers that
// keep borrowed slices.
var poisonBorrowed = false

var bom = []byte{0xEF, 0xBB, 0xBF}

// splitter is the NDJSON grammar. split is a function of the unconsumed
// input and the position state only, in the shape of bufio.SplitFunc; both
// the Reader and the Decoder drive it.
type splitter struct {
	maxLine int   // largest accepted line content
	offset  int64 // stream offset of the first unconsumed byte
	line    int   // line number of the first unconsumed byte
	bomDone bool  // the BOM decision at offset 0 has been made
	scanned int   // leading bytes of the unconsumed input known to hold no LF

	skipping bool      // inside a line longer than maxLine
	skip     LineError // the pending ErrLineTooLong report
}

func (s *splitter) reset(maxLine int) {
	*s = splitter{maxLine: maxLine, line: 1}
}

// split looks at data, the unconsumed input starting at s.offset, and
// returns how many bytes it consumed and at most one result (ok true): a
// frame, written to *f, or a *LineError for a line over the limit (*f is
// then left as it was). n == 0 with ok false means more input is needed;
// at EOF it means the input is exhausted.
//
// The frame goes out through f, not as a result: a Frame is ten words, and
// split runs once per line, so for a line of a few bytes returning it (and
// copying it again in every caller) cost more than finding its end.
//
// Contract with the caller: after a call that returns n == 0 and ok false,
// the next call passes the same bytes followed by more (or atEOF). The
// caller must be able to hold s.maxLine+2 unconsumed bytes; with that many
// bytes and no LF, split decides the line is too long and consumes them.
func (s *splitter) split(data []byte, atEOF bool, f *Frame) (n int, err error, ok bool) {
	if !s.bomDone {
		if len(data) < len(bom) && !atEOF && bytes.HasPrefix(bom, data) {
			return 0, nil, false
		}
		s.bomDone = true
		if bytes.HasPrefix(data, bom) {
			*f = Frame{Kind: KindBOM, Data: data[:0], Raw: data[:3], Offset: s.offset, Line: s.line}
			s.offset += 3
			return 3, nil, true
		}
	}
	if s.skipping {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if len(data) == 0 && atEOF {
				s.skipping = false
				e := s.skip
				return 0, &e, true
			}
			s.skip.Len += int64(len(data))
			s.offset += int64(len(data))
			return len(data), nil, false
		}
		s.skipping = false
		s.skip.Len += int64(i + 1)
		s.offset += int64(i + 1)
		s.line++
		e := s.skip
		return i + 1, &e, true
	}
	if len(data) == 0 {
		return 0, nil, false
	}
	i := bytes.IndexByte(data[s.scanned:], '\n')
	if i < 0 {
		if len(data) >= s.maxLine+2 {
			// At least maxLine+1 bytes of content: too long whatever
			// follows. Report it once the line ends; do not buffer it.
			s.scanned = 0
			s.skipping = true
			s.skip = s.tooLong(data)
			s.skip.Len = int64(len(data))
			s.offset += int64(len(data))
			return len(data), nil, false
		}
		if !atEOF {
			s.scanned = len(data)
			return 0, nil, false
		}
		// A final line without LF. A CR at its end is data: no LF
		// follows it.
		s.scanned = 0
		if len(data) > s.maxLine {
			e := s.tooLong(data)
			e.Len = int64(len(data))
			s.offset += int64(len(data))
			return len(data), &e, true
		}
		*f = Frame{Kind: kindOf(data), Data: data, Raw: data, Offset: s.offset, Line: s.line, Unterminated: true}
		s.offset += int64(len(data))
		return len(data), nil, true
	}
	i += s.scanned
	s.scanned = 0
	raw := data[: i+1 : i+1]
	content := raw[:i]
	if i > 0 && content[i-1] == '\r' {
		content = content[:i-1]
	}
	if len(content) > s.maxLine {
		e := s.tooLong(content)
		e.Len = int64(len(raw))
		s.offset += int64(len(raw))
		s.line++
		return len(raw), &e, true
	}
	*f = Frame{Kind: kindOf(content), Data: content, Raw: raw, Offset: s.offset, Line: s.line}
	s.offset += int64(len(raw))
	s.line++
	return len(raw), nil, true
}

// tooLong builds the report for the line starting at the first unconsumed
// byte; b holds at least maxLine+1 bytes of its content. The excerpt uses
// only bytes every chunking has seen, so the message does not depend on
// read sizes.
func (s *splitter) tooLong(b []byte) LineError {
	n := min(excerptSize, s.maxLine+1, len(b))
	return LineError{
		Line:    s.line,
		Offset:  s.offset,
		Err:     ErrLineTooLong,
		excerpt: quote.Bytes(b[:n], n) + "...",
	}
}

// kindOf classifies a line's content.
func kindOf(content []byte) Kind {
	for _, c := range content {
		switch c {
		case ' ', '\t', '\r':
		default:
			return KindLine
		}
	}
	return KindBlank
}

// machine owns the buffer the splitter runs over. The Reader fills it
// from an io.Reader, the Decoder from Write.
type machine struct {
	s      splitter
	buf    []byte
	r, w   int // unconsumed input is buf[r:w]
	eof    bool
	maxBuf int // maxLine+2: the most unconsumed input split may need

	prevStart, prevEnd int // the last frame's bytes in buf, for poisoning

	// f is the result of the last next that returned one: the frame, or
	// the zero Frame with an error.
	f Frame
}

func (m *machine) init(opts Options) {
	maxLine := opts.MaxLineSize
	if maxLine <= 0 {
		maxLine = DefaultMaxLineSize
	}
	m.s.reset(maxLine)
	m.maxBuf = maxLine + 2
	m.r, m.w, m.eof = 0, 0, false
	m.prevStart, m.prevEnd = 0, 0
}

// next finds the next result in the buffered input: the frame in m.f (the
// zero Frame with an error), or ok false when more input is needed (or, at
// EOF, when the input is exhausted).
func (m *machine) next() (err error, ok bool) {
	if poisonBorrowed {
		m.poison()
	}
	for {
		n, err, ok := m.s.split(m.buf[m.r:m.w], m.eof, &m.f)
		if ok {
			if err != nil {
				m.f = Frame{}
			} else {
				m.prevStart, m.prevEnd = m.r, m.r+n
			}
			m.r += n
			return err, true
		}
		m.r += n
		if n == 0 {
			return nil, false
		}
	}
}

func (m *machine) poison() {
	for i := m.prevStart; i < m.prevEnd && i < len(m.buf); i++ {
		m.buf[i] = '#'
	}
	m.prevStart, m.prevEnd = 0, 0
}

// space returns the free tail of the buffer after moving the unconsumed
// input to its front, growing the buffer when the input fills it. It is
// called only when next needs more input, so the unconsumed input is less
// than maxBuf bytes and the buffer never grows beyond maxBuf.
func (m *machine) space() []byte {
	m.prevStart, m.prevEnd = 0, 0
	if m.r > 0 {
		m.w = copy(m.buf, m.buf[m.r:m.w])
		m.r = 0
	}
	if m.w == len(m.buf) {
		m.grow()
	}
	sp := m.buf[m.w:]
	if m.s.skipping && len(sp) > skipRead {
		// Inside a line over the limit, split consumes whatever comes
		// (one IndexByte over it): a window the size of a core's cache
		// keeps the read's copy and that search out of main memory.
		sp = sp[:skipRead]
	}
	return sp
}

// grow doubles the buffer, but jumps to maxBuf once the doubled size
// passes a quarter of it, so the total allocated for one long line stays
// under 1.5 x maxBuf (1/2 in the doubling steps, 1 in the last).
func (m *machine) grow() {
	size := 2 * len(m.buf)
	if size == 0 {
		size = initialBufferSize
	}
	if size > m.maxBuf/4 || size > m.maxBuf {
		size = m.maxBuf
	}
	buf := make([]byte, size)
	copy(buf, m.buf[:m.w])
	m.buf = buf
}
