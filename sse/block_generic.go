//go:build !amd64 || purego

package sse

// scanBlock matches the fast layout (see block.go) at the start of b: it
// returns blockMatch and fills s when b starts with a whole block of the
// layout, blockShort when b ends while its start still fits the layout, and
// blockOther otherwise (s is then left as it may be).
func scanBlock(b []byte, s *block) int {
	i, lines := 0, 2
	if len(b) >= 6 && string(b[:6]) == "event:" {
		v, e, next, r := blockValue(b, 6)
		if r != blockMatch {
			return r
		}
		s.ev0, s.ev1, i, lines = v, e, next, 3
	}
	if len(b)-i < 5 {
		return blockShort
	}
	if string(b[i:i+5]) != "data:" {
		return blockOther
	}
	v, e, next, r := blockValue(b, i+5)
	if r != blockMatch {
		return r
	}
	s.d0, s.d1 = v, e
	// The blank line.
	if next == len(b) {
		return blockShort
	}
	switch b[next] {
	case '\n':
		next++
	case '\r':
		if next+1 == len(b) {
			return blockShort
		}
		if b[next+1] != '\n' {
			return blockOther
		}
		next += 2
	default:
		return blockOther
	}
	s.end, s.lines = next, lines
	return blockMatch
}

// blockValue finds the value of the field line whose name and colon end
// at b[v] (one leading space removed), the index of the line's terminator
// and the start of the next line, or blockShort or blockOther.
func blockValue(b []byte, v int) (value, e, next, r int) {
	if v == len(b) {
		return 0, 0, 0, blockShort
	}
	if b[v] == ' ' {
		v++
	}
	i := indexEOL(b[v:])
	if i < 0 {
		return 0, 0, 0, blockShort
	}
	e = v + i
	if b[e] == '\n' {
		return v, e, e + 1, blockMatch
	}
	if e+1 == len(b) {
		return 0, 0, 0, blockShort
	}
	if b[e+1] != '\n' {
		return 0, 0, 0, blockOther // a lone CR
	}
	return v, e, e + 2, blockMatch
}
