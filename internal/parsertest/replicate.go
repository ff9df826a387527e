package parsertest

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Replicate writes to w a stream of at least size bytes built from capture
// (a recorded stdout): its first head lines once, its middle lines
// repeated (at least once), its last line (the terminal) once. It is the
// long session the benchmarks measure, bench/e2e's shapes and the parsers'
// own benchmarks alike: one builder, so that a figure from either is of
// the same stream.
//
// Every repetition of the middle but the first renumbers its ids, as a
// long session does, which never reuses one: each string value of an id
// member (IDMember) first seen in the middle lines, not in the head (the
// session's, thread's and turn's stay; the last line, which names the
// first repetition's items, is left as it is), gets the suffix "-r<n>" in
// repetition n, wherever it appears quoted in the middle. (Before
// 2026-12-03 bench/e2e repeated verbatim, so every item of a repetition
// reused a finished item's id: the parsers' and the emitter's reuse paths,
// which a real stream does not take, ran on every line.)
//
// The stream is written as it is built (bench/e2e's 1 GiB is never held);
// Replicate returns w's first error.
func Replicate(w io.Writer, capture string, head, size int) error {
	lines := strings.SplitAfter(capture, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	fixed, mid := strings.Join(lines[:head], ""), strings.Join(lines[head:len(lines)-1], "")
	cuts := idCuts(mid, fixed)
	cw := &countWriter{w: w}
	io.WriteString(cw, fixed)
	for n := 0; (n == 0 || cw.n < size) && cw.err == nil; n++ {
		if n == 0 {
			io.WriteString(cw, mid)
			continue
		}
		suffix := "-r" + strconv.Itoa(n)
		prev := 0
		for _, c := range cuts {
			io.WriteString(cw, mid[prev:c])
			io.WriteString(cw, suffix)
			prev = c
		}
		io.WriteString(cw, mid[prev:])
	}
	io.WriteString(cw, lines[len(lines)-1])
	return cw.err
}

// Replicated is Replicate into memory.
func Replicated(capture string, head, size int) []byte {
	var out bytes.Buffer
	out.Grow(size + 64<<10)
	Replicate(&out, capture, head, size)
	return out.Bytes()
}

// Repeat is header, then n copies of line each ended by a newline, then
// footer: the hostile streams (one line a flood of).
func Repeat(header, line, footer string, n int) []byte {
	var out bytes.Buffer
	out.Grow(len(header) + n*(len(line)+1) + len(footer))
	out.WriteString(header)
	for range n {
		out.WriteString(line)
		out.WriteByte('\n')
	}
	out.WriteString(footer)
	return out.Bytes()
}

// IDMember finds the string values of the members Replicate renumbers:
// "id", "itemId", "item_id", "tool_use_id", "uuid", "parent_uuid",
// "callId" and "call_id".
var IDMember = regexp.MustCompile(`"(?:id|itemId|item_id|tool_use_id|uuid|parent_uuid|callId|call_id)":"([^"\\]+)"`)

// idCuts returns the offsets in mid of the closing quote of every quoted
// occurrence of an id that an id member of mid holds and fixed does not
// quote, in increasing order: where Replicate inserts its suffix. (An id
// the head holds only as a substring, as "a" in "thread", is the
// middle's own.)
func idCuts(mid, fixed string) []int {
	ids := map[string]bool{}
	for _, m := range IDMember.FindAllStringSubmatch(mid, -1) {
		if !strings.Contains(fixed, `"`+m[1]+`"`) {
			ids[m[1]] = true
		}
	}
	var cuts []int
	for id := range ids {
		q := `"` + id + `"`
		for i := 0; ; {
			j := strings.Index(mid[i:], q)
			if j < 0 {
				break
			}
			cuts = append(cuts, i+j+len(q)-1)
			i += j + len(q)
		}
	}
	slices.Sort(cuts)
	return cuts
}

// countWriter counts what it writes to w and keeps w's first error.
type countWriter struct {
	w   io.Writer
	n   int
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += n
	c.err = err
	return n, err
}
