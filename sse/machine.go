package sse

import (
	"bytes"
	"math"
	"strconv"
	"sync"
	"time"
)

// defaultBufferSize is the initial size of a decoder's input buffer.
const defaultBufferSize = 64 << 10

// bufferSize is the initial size of a decoder's input buffer. It grows by
// doubling while one block needs more room, up to about twice
// MaxEventSize. Tests shrink it to cross buffer boundaries often, which
// also keeps the buffer pool out of their way.
var bufferSize = defaultBufferSize

// nameSlots is how many distinct event names a decoder keeps to avoid an
// allocation per event: the providers use fewer than ten.
const nameSlots = 16

// trackWork enables the work counter of the linear-work tests; the tests
// set it, so that production decoding does no bookkeeping for them.
var trackWork = false

// buffers is what a decoder lends to bufPool when its stream ends, so that
// the next NewReader or NewDecoder starts with grown buffers and known
// event names instead of fresh memory. The holder itself is reused too, so
// that pooling allocates nothing.
type buffers struct {
	buf, dbuf []byte
	names     [nameSlots]string
}

var bufPool sync.Pool // of *buffers

// status is what one step of the machine produced.
type status uint8

const (
	stMore  status = iota // needs more input
	stFrame               // m.out holds a frame
	stError               // m.outErr holds a non-fatal error
	stEOF                 // input exhausted, nothing pending
)

// machine is the single SSE state machine behind Reader and Decoder. It
// consumes buf[pos:w]; the owner appends input at w (after makeRoom) and
// calls step until it returns stMore.
type machine struct {
	maxEvent          int
	spans             bool
	discardIncomplete bool

	buf  []byte
	w    int   // end of buffered input
	pos  int   // start of the pending block (first unconsumed byte)
	ls   int   // start of the line being scanned
	off  int64 // input offset of buf[0]
	line int   // line number of the line starting at ls

	blockLine int  // line number at pos
	started   bool // BOM check done
	done      bool // io.EOF reported

	// eolFrom is where the search for the end of the line at ls goes on:
	// when eolFrom > ls, buf[ls:eolFrom] holds no LF and no CR, so that
	// no byte is searched twice (a CR as the last byte so far is searched
	// again, to see whether an LF follows).
	eolFrom int

	// Current block.
	ndata        int
	d0, d1       int    // the first data value, buf[d0:d1], while ndata == 1
	dbuf         []byte // the joined data once ndata > 1 (empty before)
	ev0, ev1     int
	id0, id1     int // the last valid id value, applied when the block ends
	retry        time.Duration
	hasEvent     bool
	hasID        bool
	hasRetry     bool
	comments     bool // the block has comment lines
	fields       bool // the block has field lines
	skipping     bool // discarding an oversized block
	skipLineData bool // while skipping: the current line has bytes

	blk     block // scanBlock's result
	fastOff int   // blocks left to decode without trying scanBlock (fastBackoff)

	lastID         string
	streamRetry    time.Duration
	hasStreamRetry bool
	names          [nameSlots]string // recent event names, most recent first
	keep           bool              // Reset was called: the buffers stay with the machine
	hold           *buffers          // the pool holder the buffers came in, reused to return them

	// Output of step.
	out    Frame
	outErr error
	queued bool // out holds a frame to return before anything else

	work int64 // bytes examined or copied, counted only when trackWork is set
}

// reset prepares the machine for a new stream with options o, keeping its
// buffers and known event names. A machine that has been reset keeps its
// buffers at the end of its streams too: its owner reuses it.
func (m *machine) reset(o Options) {
	buf, dbuf, names, hold := m.buf, m.dbuf[:0], m.names, m.hold
	*m = machine{buf: buf, dbuf: dbuf, names: names, hold: hold, keep: true}
	m.init(o)
}

func (m *machine) init(o Options) {
	m.maxEvent = o.MaxEventSize
	if m.maxEvent <= 0 {
		m.maxEvent = DefaultMaxEventSize
	}
	m.spans = o.Spans
	m.discardIncomplete = o.DiscardIncomplete
	m.line, m.blockLine = 1, 1
	if m.buf == nil {
		m.acquire()
	}
}

// acquire gives the machine its buffers: grown ones from bufPool when their
// size keeps within the memory bound of the machine's limit, otherwise a
// new input buffer.
func (m *machine) acquire() {
	if bufferSize == defaultBufferSize {
		if b, _ := bufPool.Get().(*buffers); b != nil {
			if lim := m.bufLimit(); len(b.buf) <= lim && cap(b.dbuf) <= lim {
				m.buf, m.dbuf, m.names, m.hold = b.buf, b.dbuf[:0], b.names, b
				b.buf, b.dbuf = nil, nil
				return
			}
			bufPool.Put(b) // for a decoder with a larger limit
		}
	}
	m.buf = make([]byte, max(bufferSize, 4))
}

// release lends the buffers to bufPool at the end of the stream, unless the
// machine is reused through Reset. The caller guarantees that no frame
// handed out still borrows them and that the machine touches them no more:
// a Reader after it returned io.EOF, a Decoder after Close.
func (m *machine) release() {
	if m.keep || m.buf == nil || bufferSize != defaultBufferSize {
		return
	}
	b := m.hold
	if b == nil {
		b = new(buffers)
	}
	b.buf, b.dbuf, b.names = m.buf, m.dbuf[:0], m.names
	m.buf, m.dbuf, m.hold = nil, nil, nil
	m.w, m.pos, m.ls = 0, 0, 0
	bufPool.Put(b)
}

// bufLimit is the most either buffer may hold: twice the limit and two
// initial buffers (see the package doc's memory bound).
func (m *machine) bufLimit() int {
	return 2*m.maxEvent + 2*bufferSize
}

// makeRoom prepares buf[w:] to receive at least one byte, preferably many.
// It may move the pending bytes, which invalidates frames handed out before.
func (m *machine) makeRoom() {
	if m.pos == m.w && m.pos > 0 {
		m.shift(m.pos)
	}
	pending := m.w - m.pos
	if m.pos >= len(m.buf)/2 && pending <= len(m.buf)/32 {
		// Past the middle with little pending: compacting now is cheap,
		// and the next block, however large, starts at the front instead
		// of being moved when the buffer fills up.
		m.count(pending)
		copy(m.buf, m.buf[m.pos:m.w])
		m.shift(m.pos)
	}
	free := len(m.buf) - m.w
	if free > 0 && free >= len(m.buf)/8 {
		return
	}
	if m.pos > 0 && pending <= len(m.buf)/2 {
		m.count(pending)
		copy(m.buf, m.buf[m.pos:m.w])
		m.shift(m.pos)
		return
	}
	// Pending is at most MaxEventSize+1 bytes here (step reports a larger
	// block before asking for input), so capping the growth keeps the
	// buffer within about twice the limit.
	n := max(min(2*len(m.buf), m.bufLimit()), pending+bufferSize)
	nb := make([]byte, n)
	m.count(pending)
	copy(nb, m.buf[m.pos:m.w])
	old := m.buf
	m.buf = nb
	m.shift(m.pos)
	// Recycle the old input buffer as the joined-data buffer when it is
	// larger: large multi-line events then need no separate growth of
	// their data buffer (fresh memory is what large events cost most).
	if cap(old) > cap(m.dbuf) {
		m.count(len(m.dbuf))
		m.dbuf = append(old[:0], m.dbuf...)
	}
}

// shift accounts for the pending bytes having moved n bytes to the left.
func (m *machine) shift(n int) {
	if n == 0 {
		return
	}
	m.off += int64(n)
	m.w -= n
	m.pos -= n
	m.ls -= n
	m.d0 -= n
	m.d1 -= n
	m.ev0 -= n
	m.ev1 -= n
	m.id0 -= n
	m.id1 -= n
	m.eolFrom = max(m.eolFrom-n, 0)
}

// count adds n bytes examined or copied to the work counter of the tests.
func (m *machine) count(n int) {
	if trackWork {
		m.work += int64(n)
	}
}

// lineEnd finds the end of the line starting at m.ls: the index of its
// terminator and the terminator's length. ok is false when more input is
// needed to tell.
//
// One search per line finds its end, an LF or a CR, whichever comes first
// (indexEOL); a CR followed by an LF makes a CRLF. step has the same
// search inlined in its loop.
func (m *machine) lineEnd(atEOF bool) (end, n int, ok bool) {
	buf := m.buf[:m.w]
	p := max(m.ls, m.eolFrom)
	i := indexEOL(buf[p:])
	if i < 0 {
		m.count(len(buf) - p)
		m.eolFrom = len(buf)
		return 0, 0, false
	}
	m.count(i + 1)
	e := p + i
	if buf[e] == '\n' {
		return e, 1, true
	}
	// WHATWG: lines end with CRLF, a lone LF or a lone CR. A CR as the
	// last byte so far may be the first half of a CRLF: wait for the next
	// byte (or the end of input) to keep Raw exact.
	if e+1 < len(buf) {
		if buf[e+1] == '\n' {
			return e, 2, true
		}
		return e, 1, true
	}
	if atEOF {
		return e, 1, true
	}
	m.eolFrom = e
	return 0, 0, false
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// step advances the machine by at most one output. atEOF says no more input
// will be appended. The owner's loop calls fast first, which delivers the
// common block in one call, and step when fast did not.
func (m *machine) step(atEOF bool) status {
	if m.queued {
		m.queued = false
		return stFrame
	}
	if m.done {
		return stEOF
	}
	if !m.started {
		// WHATWG: one leading U+FEFF BOM is stripped, only at the start.
		avail := m.buf[m.pos:m.w]
		if len(avail) < len(bom) && !atEOF && bytes.HasPrefix(bom, avail) {
			return stMore
		}
		m.started = true
		if bytes.HasPrefix(avail, bom) {
			m.setSpan(KindBOM, m.pos+len(bom), false)
			m.pos += len(bom)
			m.ls = m.pos
			if m.spans {
				return stFrame
			}
		}
	}
	if m.skipping {
		if st := m.skip(atEOF); st != stMore || m.skipping {
			return st
		}
	}
	if st := m.lines(atEOF); st != stMore {
		return st
	}
	if m.w-m.pos > m.maxEvent {
		// The block is unterminated and already larger than the limit.
		m.outErr = newError(m.off+int64(m.pos), m.blockLine, ErrEventTooLarge,
			" (limit "+strconv.Itoa(m.maxEvent)+" bytes)", m.errPrefix(m.w))
		m.skipping = true
		lsOld := m.ls
		m.ls = m.w
		if !atEOF && m.w > lsOld && m.buf[m.w-1] == '\r' {
			m.ls = m.w - 1 // keep a trailing CR for the CRLF test
		}
		m.skipLineData = m.ls > lsOld
		m.resetBlock()
		return stError
	}
	if !atEOF {
		return stMore
	}
	return m.finish()
}

// lines consumes the complete lines of buf[ls:w], each ended by the first
// LF or CR after it (one indexEOL per line; a blank line, the end of most
// events, needs none): the hot loop of step, after fast. It returns
// stMore when no complete line is left without output.
func (m *machine) lines(atEOF bool) status {
	buf := m.buf[:m.w]
	ls, line := m.ls, m.line
	for {
		// The end of the line at ls: e is its terminator, next the start
		// of the following line.
		var e int
		if ls < len(buf) && (buf[ls] == '\n' || buf[ls] == '\r') {
			e = ls // a blank line: no search
			m.count(1)
		} else {
			p := max(ls, m.eolFrom)
			i := indexEOL(buf[p:])
			if i < 0 {
				m.count(len(buf) - p)
				m.eolFrom = len(buf)
				break
			}
			m.count(i + 1)
			e = p + i
		}
		next := e + 1
		if buf[e] == '\r' {
			// WHATWG: lines end with CRLF, a lone LF or a lone CR. A CR
			// as the last byte so far may be the first half of a CRLF:
			// wait for the next byte (or the end of input) to keep Raw
			// exact.
			if next < len(buf) {
				if buf[next] == '\n' {
					next++
				}
			} else if !atEOF {
				m.eolFrom = e
				break
			}
		}
		line++
		if e == ls {
			// WHATWG: an empty line dispatches the event.
			m.ls, m.line = ls, line
			if st := m.dispatch(next, false); st != stMore {
				return st
			}
			ls = next
			continue
		}
		// The two fields of nearly every line first, without the general
		// field parsing.
		if n := e - ls; n >= 5 && string(buf[ls:ls+5]) == "data:" {
			m.count(n)
			v := ls + 5
			if v < e && buf[v] == ' ' {
				v++
			}
			m.fields = true
			if m.ndata == 0 {
				m.d0, m.d1, m.ndata = v, e, 1
			} else {
				m.data(v, e)
			}
		} else if n >= 6 && string(buf[ls:ls+6]) == "event:" {
			m.count(n)
			v := ls + 6
			if v < e && buf[v] == ' ' {
				v++
			}
			m.fields, m.hasEvent, m.ev0, m.ev1 = true, true, v, e
		} else {
			m.fieldLine(buf[ls:e], ls)
		}
		ls = next
	}
	m.ls, m.line = ls, line
	return stMore
}

// finish handles the end of input in normal mode: a last line without a
// terminator is still a line, and the pending block becomes an incomplete
// frame.
func (m *machine) finish() status {
	if m.ls < m.w {
		m.fieldLine(m.buf[m.ls:m.w], m.ls)
		m.ls = m.w
	}
	if m.pos == m.w {
		m.done = true
		return stEOF
	}
	if st := m.dispatch(m.w, true); st != stMore {
		return st
	}
	m.done = true
	return stEOF
}

// dispatch ends the block buf[m.pos:next]. It returns stMore when the block
// produces no output.
func (m *machine) dispatch(next int, incomplete bool) status {
	size := next - m.pos
	if size > m.maxEvent {
		m.outErr = newError(m.off+int64(m.pos), m.blockLine, ErrEventTooLarge,
			" (limit "+strconv.Itoa(m.maxEvent)+" bytes)", m.errPrefix(next))
		m.setSpan(KindSkipped, next, incomplete)
		m.queued = m.spans
		m.consume(next)
		return stError
	}
	m.applyStreamFields()
	if m.ndata == 0 {
		k := KindNoData
		if !m.fields {
			k = KindComment
			if !m.comments {
				k = KindBlank
			}
		}
		m.setSpan(k, next, incomplete)
		m.consume(next)
		if m.spans {
			return stFrame
		}
		return stMore
	}
	if incomplete && m.discardIncomplete {
		m.outErr = newError(m.off+int64(m.pos), m.blockLine, ErrIncomplete, "", nil)
		m.setSpan(KindSkipped, next, true)
		m.queued = m.spans
		m.consume(next)
		return stError
	}
	f := &m.out
	f.Kind = KindEvent
	event := ""
	if m.hasEvent {
		event = m.eventName(m.buf[m.ev0:m.ev1])
	}
	f.Event = event
	if m.ndata == 1 {
		f.Data = m.buf[m.d0:m.d1:m.d1]
	} else {
		f.Data = m.dbuf[:len(m.dbuf):len(m.dbuf)]
	}
	f.ID = m.lastID
	f.Retry, f.HasRetry = m.retry, m.hasRetry
	f.Raw = m.buf[m.pos:next:next]
	f.Offset = m.off + int64(m.pos)
	f.Line = m.blockLine
	f.Incomplete = incomplete
	m.consume(next)
	return stFrame
}

// eventName returns the event name b as a string: the last event's when it
// is the same (the common case, tried first), else intern's.
func (m *machine) eventName(b []byte) string {
	if string(b) == m.names[0] {
		return m.names[0]
	}
	return m.intern(b, 1)
}

// fast delivers the block at m.pos into m.out, as step does with stFrame,
// when the block is one of the fast layout (block.go), matched whole by one
// scanBlock, and reports whether it did. It does what lines and dispatch do
// for such a block without the block state (still fresh at the start of a
// block): the layout has one data line and no id or retry field. It tries
// only where the first line of the block has not been searched yet, so
// that a block arriving byte by byte is matched once, and leaves a block
// over the size limit to step.
//
// Its first checks are inlined into the owner's loop, so that a stream of
// large blocks, read in many pieces, pays for no call per read.
func (m *machine) fast() bool {
	// Not while the BOM is unchecked or a block is skipped; only at the
	// start of a block whose first line has not been searched (ls is never
	// before pos).
	if !m.started || m.skipping || max(m.ls, m.eolFrom) != m.pos {
		return false
	}
	return m.fastBlock()
}

// fastBlock is fast after its checks.
func (m *machine) fastBlock() bool {
	pos := m.pos
	// Not while a frame is queued, nor at the end of the stream (done
	// implies that no byte is pending): "data:\n\n" is the shortest block
	// of the layout.
	if m.queued || m.w-pos < 7 {
		return false
	}
	if m.fastOff > 0 {
		m.fastOff--
		return false
	}
	b := &m.blk
	buf := m.buf
	switch scanBlock(buf[pos:m.w], b) {
	case blockMatch:
		if b.end > m.maxEvent {
			m.count(b.end)
			return false
		}
	case blockOther:
		m.count(m.w - pos) // at most
		m.fastOff = fastBackoff
		return false
	default:
		m.count(m.w - pos)
		return false
	}
	next := pos + b.end
	event := ""
	if b.lines == 3 {
		event = m.eventName(buf[pos+b.ev0 : pos+b.ev1])
	}
	// Into locals first: the stores into m.out would otherwise make the
	// compiler load the fields again.
	data, raw := buf[pos+b.d0:pos+b.d1:pos+b.d1], buf[pos:next:next]
	off, blockLine, id := m.off+int64(pos), m.blockLine, m.lastID
	f := &m.out
	f.Kind, f.Event, f.Data, f.ID, f.Retry, f.HasRetry = KindEvent, event, data, id, 0, false
	f.Raw, f.Offset, f.Line, f.Incomplete = raw, off, blockLine, false
	m.count(b.end)
	line := m.line + b.lines
	m.pos, m.ls, m.line, m.blockLine = next, next, line, line
	return true
}

// setSpan fills m.out with a non-event frame for buf[m.pos:next].
func (m *machine) setSpan(k Kind, next int, incomplete bool) {
	m.out = Frame{
		Kind:       k,
		ID:         m.lastID,
		Retry:      m.retry,
		HasRetry:   m.hasRetry,
		Raw:        m.buf[m.pos:next:next],
		Offset:     m.off + int64(m.pos),
		Line:       m.blockLine,
		Incomplete: incomplete,
	}
	if k == KindSkipped {
		m.out.Retry, m.out.HasRetry = 0, false
	}
}

// consume ends the current block at next.
func (m *machine) consume(next int) {
	m.pos, m.ls = next, next
	m.blockLine = m.line
	m.resetBlock()
}

// applyStreamFields applies the block's id and retry fields to the stream
// state.
func (m *machine) applyStreamFields() {
	if m.hasID && string(m.buf[m.id0:m.id1]) != m.lastID {
		m.lastID = string(m.buf[m.id0:m.id1])
	}
	if m.hasRetry {
		m.streamRetry, m.hasStreamRetry = m.retry, true
	}
}

func (m *machine) resetBlock() {
	if m.ndata > 1 {
		m.dbuf = m.dbuf[:0]
	}
	m.ndata = 0
	m.retry = 0
	m.hasEvent, m.hasID, m.hasRetry, m.comments, m.fields = false, false, false, false, false
}

// skip discards an oversized block up to and including its blank line,
// releasing the bytes as KindSkipped spans.
func (m *machine) skip(atEOF bool) status {
	for {
		end, n, ok := m.lineEnd(atEOF)
		if !ok {
			break
		}
		if end == m.ls && !m.skipLineData {
			next := end + n
			m.line++
			m.skipping = false
			m.setSpan(KindSkipped, next, false)
			m.consume(next)
			if m.spans {
				return stFrame
			}
			return stMore
		}
		m.skipLineData = false
		m.ls = end + n
		m.line++
	}
	// No terminator in buf[m.ls:m.w], except perhaps a CR at the very end.
	end := m.w
	if !atEOF && end > m.ls && m.buf[end-1] == '\r' {
		end--
	}
	if end > m.ls {
		m.skipLineData = true
		m.ls = end
	}
	if m.ls == m.pos {
		if atEOF && m.w == m.pos {
			m.skipping = false
		}
		return stMore
	}
	inc := atEOF && m.ls == m.w
	m.setSpan(KindSkipped, m.ls, inc)
	m.pos = m.ls
	m.blockLine = m.line
	if atEOF && m.ls == m.w {
		m.skipping = false
	}
	if m.spans {
		return stFrame
	}
	return stMore
}

// fieldLine interprets one non-empty line of the current block, which
// starts at buf[base].
func (m *machine) fieldLine(line []byte, base int) {
	m.count(len(line))
	if line[0] == ':' {
		// WHATWG: a line starting with a colon is a comment; ignore it.
		m.comments = true
		return
	}
	m.fields = true
	// The two fields of nearly every line first, without the search for
	// the colon.
	if len(line) >= 5 && string(line[:5]) == "data:" {
		v := 5
		if v < len(line) && line[v] == ' ' {
			v++
		}
		if m.ndata == 0 {
			m.d0, m.d1, m.ndata = base+v, base+len(line), 1
			return
		}
		m.data(base+v, base+len(line))
		return
	}
	if len(line) >= 6 && string(line[:6]) == "event:" {
		v := 6
		if v < len(line) && line[v] == ' ' {
			v++
		}
		m.hasEvent = true
		m.ev0, m.ev1 = base+v, base+len(line)
		return
	}
	var name []byte
	var v int
	if c := bytes.IndexByte(line, ':'); c >= 0 {
		name = line[:c]
		v = c + 1
	} else {
		// WHATWG: a line without a colon is a field name with an empty value.
		name, v = line, len(line)
	}
	// WHATWG: if the value starts with a space, remove it (one only).
	if v < len(line) && line[v] == ' ' {
		v++
	}
	value := line[v:]
	switch string(name) {
	case "data":
		m.data(base+v, base+len(line))
	case "event":
		m.hasEvent = true
		m.ev0, m.ev1 = base+v, base+len(line)
	case "id":
		// WHATWG: if the value does not contain NUL, set the last event ID
		// buffer. It is not reset by dispatch.
		//
		// The value is applied when the block ends, so that the fields of
		// an oversized block have no effect whatever the read sizes.
		m.count(len(value))
		if bytes.IndexByte(value, 0) < 0 {
			m.hasID, m.id0, m.id1 = true, base+v, base+len(line)
		}
	case "retry":
		// WHATWG: if the value consists of only ASCII digits, set the
		// reconnection time (milliseconds); otherwise ignore the field.
		if d, ok := parseRetry(value); ok {
			m.retry, m.hasRetry = d, true
		}
	}
	// WHATWG: any other field is ignored.
}

// data appends the value buf[v0:v1] of a "data" field to the event's data.
//
// WHATWG: append the value and a LF to the data buffer; the final LF is
// removed at dispatch. We join with LF instead. A single data line, the
// common case, is not copied: Data points into the input buffer.
func (m *machine) data(v0, v1 int) {
	switch m.ndata {
	case 0:
		m.d0, m.d1 = v0, v1
	case 1:
		m.count(m.d1 - m.d0)
		m.dbuf = append(m.growData(m.d1-m.d0+1+v1-v0), m.buf[m.d0:m.d1]...)
		fallthrough
	default:
		m.count(v1 - v0)
		m.dbuf = append(m.growData(1+v1-v0), '\n')
		m.dbuf = append(m.dbuf, m.buf[v0:v1]...)
	}
	m.ndata++
}

// growData makes room for n more bytes in m.dbuf, doubling its capacity:
// append grows large slices by only 1.25x, which copies a multi-megabyte
// event about four times over.
func (m *machine) growData(n int) []byte {
	if cap(m.dbuf)-len(m.dbuf) >= n {
		return m.dbuf
	}
	// The joined data is never longer than the buffered block, so the
	// buffer's size caps the doubling.
	nb := make([]byte, len(m.dbuf), max(min(2*cap(m.dbuf), len(m.buf)), len(m.dbuf)+n, 512))
	m.count(copy(nb, m.dbuf))
	m.dbuf = nb
	return nb
}

// parseRetry parses ASCII digits as milliseconds, saturating on overflow.
func parseRetry(b []byte) (time.Duration, bool) {
	if len(b) == 0 {
		return 0, false
	}
	const max = math.MaxInt64 / int64(time.Millisecond)
	var ms int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if ms <= max {
			ms = ms*10 + int64(c-'0')
		}
	}
	if ms > max {
		return time.Duration(math.MaxInt64), true
	}
	return time.Duration(ms) * time.Millisecond, true
}

// intern returns b as a string, reusing the recent event names so that a
// stream of known names allocates nothing per event. The names are kept
// most recent first; a new name pushes out the least recent one. The
// caller has found b in none of names[:from].
func (m *machine) intern(b []byte, from int) string {
	for i := from; i < len(m.names); i++ {
		if s := m.names[i]; string(b) == s {
			copy(m.names[1:i+1], m.names[:i]) // a no-op for i == 0
			m.names[0] = s
			return s
		}
	}
	s := string(b)
	copy(m.names[1:], m.names[:len(m.names)-1])
	m.names[0] = s
	return s
}

// errPrefix returns the start of the oversized block at m.pos for the error
// message: at most 40 bytes, and never more than the limit plus one, so that
// the message does not depend on how the input was split into reads.
func (m *machine) errPrefix(end int) []byte {
	n := min(end-m.pos, m.maxEvent+1, 40)
	return m.buf[m.pos : m.pos+n]
}
