package jsonguard

import "bytes"

// Shape remembers a JSON value a strict reader took and where its string
// values lie (member names excluded), and its numbers too when it learns
// them as varying, so that the next values of a stream that differ from
// it only in those values, as the deltas of a model's answer do, are
// recognised without reading them again. A value Match takes is the
// remembered value with each string value replaced by a valid string
// literal (each number, learnt as varying, by a valid number): it is
// valid JSON with the same structure, the same member names, literals and
// whitespace (and numbers, unless they vary), so a reader whose outcome
// depends on a varying value only through its extent (it keeps the
// value's bytes, it does not look into them) would read it as it read the
// remembered one, with every span moved as Slice moves it; a reader that
// does look into them reads them again from Slice. The zero Shape matches
// nothing; it is not safe for concurrent use.
type Shape struct {
	prev  []byte // the remembered value
	holes []int  // per string value of prev: its start (the quote) and end
	// chg are the string values (their start's index in holes) that the
	// last value Match took held with other bytes than prev, in order;
	// Match compares the bytes from one to the next in one run and
	// validates them in place. nchg is its scratch, swapped in when it
	// takes a value.
	chg, nchg []int
	at        []int  // as holes, for the value Match took last
	cur       []byte // that value
}

// Learn remembers b, a whole valid JSON value (one that a strict reader
// or Check took: Match takes only values of b's structure, so it would
// take invalid ones after invalid bytes), with its string values varying
// and, when numbers is set, its numbers. A nil b forgets: Match then
// takes nothing.
func (s *Shape) Learn(b []byte, numbers bool) {
	s.prev = append(s.prev[:0], b...)
	s.holes, s.chg, s.cur = s.holes[:0], s.chg[:0], nil
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			end, _, ok := StringEnd(b, i)
			if !ok {
				s.prev, s.holes = s.prev[:0], s.holes[:0]
				return
			}
			if j := SkipWS(b, end); j >= len(b) || b[j] != ':' {
				s.holes = append(s.holes, i, end)
			}
			i = end
		case numbers && (c == '-' || c >= '0' && c <= '9'):
			end := StrictNumber(b, i)
			if end < 0 {
				s.prev, s.holes = s.prev[:0], s.holes[:0]
				return
			}
			s.holes = append(s.holes, i, end)
			i = end
		case numbers:
			i++
		default:
			k := bytes.IndexByte(b[i:], '"')
			if k < 0 {
				i = len(b)
			} else {
				i += k
			}
		}
	}
	s.at = append(s.at[:0], s.holes...)
}

// Match reports whether b is the remembered value with its varying values
// replaced by valid ones (a string literal validated as [StringEnd] does,
// a number as [StrictNumber] reads it); when it is, Slice refers to b
// until the next Match or Learn. The bytes from one value that the last
// value Match took held changed to the next are compared in one run;
// those values are validated in place.
func (s *Shape) Match(b []byte) bool {
	s.cur = nil
	if len(s.prev) == 0 {
		return false
	}
	nc := s.nchg[:0]
	i, o, k0 := 0, 0, 0 // b[i:] is to match prev[o:]; holes from k0 on are not placed yet
	for r := 0; ; r++ {
		hs, k := len(s.prev), len(s.holes)
		if r < len(s.chg) {
			k = s.chg[r]
			hs = s.holes[k]
		}
		n := hs - o
		if len(b)-i < n || string(b[i:i+n]) != string(s.prev[o:hs]) {
			return s.matchFrom(b, i, o, k0, nc)
		}
		for d := i - o; k0 < k; k0 += 2 {
			s.at[k0], s.at[k0+1] = s.holes[k0]+d, s.holes[k0+1]+d
		}
		i += n
		if k == len(s.holes) {
			if i != len(b) {
				return false
			}
			s.take(b, nc)
			return true
		}
		e := s.hole(b, i, k)
		if e < 0 {
			return false
		}
		if s.changed(b, i, e, k) {
			nc = append(nc, k)
		}
		i, o, k0 = e, s.holes[k+1], k+2
	}
}

// matchFrom is Match from b[i] and prev[o] on, hole by hole from hole k,
// with nc the changed holes before.
func (s *Shape) matchFrom(b []byte, i, o, k int, nc []int) bool {
	for ; k < len(s.holes); k += 2 {
		lit := s.prev[o:s.holes[k]]
		if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != string(lit) {
			return false
		}
		hs := i + len(lit)
		e := s.hole(b, hs, k)
		if e < 0 {
			return false
		}
		if s.changed(b, hs, e, k) {
			nc = append(nc, k)
		}
		i, o = e, s.holes[k+1]
	}
	if string(b[i:]) != string(s.prev[o:]) {
		return false
	}
	s.take(b, nc)
	return true
}

// take makes b, with nc its changed holes, the value Match took.
func (s *Shape) take(b []byte, nc []int) {
	s.chg, s.nchg = nc, s.chg
	s.cur = b
}

// changed reports whether b[i:e], the value for hole k, differs from the
// remembered one.
func (s *Shape) changed(b []byte, i, e, k int) bool {
	return string(b[i:e]) != string(s.prev[s.holes[k]:s.holes[k+1]])
}

// hole validates the value at b[i] that stands for hole k (a string or a
// number, as the remembered one) and places it; it returns its end, or
// -1.
func (s *Shape) hole(b []byte, i, k int) int {
	if i >= len(b) {
		return -1
	}
	var e int
	if s.prev[s.holes[k]] == '"' {
		if b[i] != '"' {
			return -1
		}
		end, _, ok := StringEnd(b, i)
		if !ok {
			return -1
		}
		e = end
	} else if e = StrictNumber(b, i); e < 0 {
		return -1
	}
	s.at[k], s.at[k+1] = i, e
	return e
}

// A ShapeSpan is a span of the value last given to Learn, as SpanOf
// gives it, to be found again in each value Match takes.
type ShapeSpan struct {
	sk, so, ek, eo int // per end: the hole it follows (its index in holes, -1 for none) and the offset from there
}

// SpanOf returns v, a slice of b (the value last given to Learn) that
// spans whole values (it neither starts nor ends strictly inside a
// string or a varying number), as a ShapeSpan.
func (s *Shape) SpanOf(b, v []byte) ShapeSpan {
	off := cap(b) - cap(v)
	var sp ShapeSpan
	sp.sk, sp.so = s.pos(off)
	sp.ek, sp.eo = s.pos(off + len(v))
	return sp
}

// pos returns the hole that offset off of prev follows (the last one
// ending at or before it; -1 for none) and off's distance from its end.
func (s *Shape) pos(off int) (k, rel int) {
	for k := len(s.holes) - 1; k > 0; k -= 2 {
		if s.holes[k] <= off {
			return k, off - s.holes[k]
		}
	}
	return -1, off
}

// Slice returns sp's bytes in the value Match took last.
func (s *Shape) Slice(sp ShapeSpan) []byte {
	i, j := sp.so, sp.eo
	if sp.sk >= 0 {
		i += s.at[sp.sk]
	}
	if sp.ek >= 0 {
		j += s.at[sp.ek]
	}
	return s.cur[i:j]
}
