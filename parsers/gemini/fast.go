package gemini

import (
	"github.com/agentwire/agentwire/internal/jsonguard"
)

// The event fast path. Nearly every event of a stream is a text chunk:
//
//	{"candidates": [{"content": {"parts": [{"text": "..."}],"role": "model"},
//	 "index": 0}],"usageMetadata": {...},"modelVersion": "...","responseId": "..."}
//
// fastEvent reads that shape in one strict pass that validates as it goes
// (jsonguard.StringEnd for every string, jsonguard.Check for the
// usageMetadata object it keeps whole), instead of jsonguard's validating
// pass followed by the member walk (which scans the candidates a second
// time). It takes only the events whose walk it can give exactly: the
// members below, each once, each of the type the walk maps without a
// problem; on anything else (another member, a part with a function call,
// a duplicate, a null, invalid JSON) it declines, and the caller validates
// and walks the event, which gives the same event or the error.
// FuzzFastEvent holds the two to the same result.

// Member bits of fastEvent's duplicate checks.
const (
	fastCandidates = 1 << iota
	fastUsage
	fastModel
	fastResponse
	fastCreate
)

// fastEvent fills ev from the event data d as the slow path (reset, then
// jsonguard.Members.Check handing each top-level member to ev.member)
// would; ok is false (ev then unspecified) when it declines.
func fastEvent(d []byte, ev *event) (ok bool) {
	ev.reset()
	i := jsonguard.SkipWS(d, 0)
	if i >= len(d) || d[i] != '{' {
		return false
	}
	var seen seenOnce
	end := fastMembers(d, i, func(name []byte, i int) int {
		switch string(name) {
		case `"candidates"`:
			if !seen.once(fastCandidates) || d[i] != '[' {
				return -1
			}
			ev.candidatesRaw = true
			cands := ev.candidates[:0]
			end := fastElements(d, i, func(i int) int {
				if d[i] != '{' {
					return -1
				}
				if len(cands) < cap(cands) {
					cands = cands[:len(cands)+1]
				} else {
					cands = append(cands, candidate{})
				}
				return fastCandidate(d, i, &cands[len(cands)-1], &ev.texts)
			})
			ev.candidates = cands
			return end
		case `"usageMetadata"`:
			if !seen.once(fastUsage) || d[i] != '{' {
				return -1
			}
			end := fastValue(d, i, fastUsageDepth)
			if end < 0 {
				return -1
			}
			ev.hasUsage, ev.usageRaw = true, d[i:end]
			return end
		case `"modelVersion"`:
			return fastLiteral(d, i, &ev.modelVersion, seen.once(fastModel))
		case `"responseId"`:
			return fastLiteral(d, i, &ev.responseID, seen.once(fastResponse))
		case `"createTime"`:
			return fastLiteral(d, i, &ev.createTime, seen.once(fastCreate))
		}
		return -1
	})
	return end >= 0 && jsonguard.SkipWS(d, end) == len(d)
}

// fastUsageDepth bounds the nesting fastEvent accepts in usageMetadata
// (the object, its details arrays and their flat objects); deeper usage
// is left to the slow path.
const fastUsageDepth = 4

// fastValue validates the JSON value at d[i] strictly, as the validating
// pass would, nested at most depth deep (the value's own container
// counting one); it returns the index just past the value, or -1 when the
// value is invalid or deeper. A number or a literal ends where its
// grammar does; the caller checks the byte after it, as for every value.
func fastValue(d []byte, i, depth int) int {
	switch d[i] {
	case '"':
		return fastString(d, i)
	case '{':
		if depth <= 0 {
			return -1
		}
		return fastMembers(d, i, func(_ []byte, i int) int { return fastValue(d, i, depth-1) })
	case '[':
		if depth <= 0 {
			return -1
		}
		return fastElements(d, i, func(i int) int { return fastValue(d, i, depth-1) })
	case 't':
		return fastLiteralEnd(d, i, "true")
	case 'f':
		return fastLiteralEnd(d, i, "false")
	case 'n':
		return fastLiteralEnd(d, i, "null")
	}
	return fastNumber(d, i)
}

// fastLiteralEnd returns the end of lit at d[i], or -1.
func fastLiteralEnd(d []byte, i int, lit string) int {
	if !hasLiteral(d, i, lit) {
		return -1
	}
	return i + len(lit)
}

// fastNumber returns the end of the JSON number at d[i] (-?int frac? exp?
// as RFC 8259 writes it), or -1.
func fastNumber(d []byte, i int) int {
	j := i
	if j < len(d) && d[j] == '-' {
		j++
	}
	switch {
	case j >= len(d):
		return -1
	case d[j] == '0':
		j++
	case d[j] >= '1' && d[j] <= '9':
		j = digitsEnd(d, j+1)
	default:
		return -1
	}
	if j < len(d) && d[j] == '.' {
		k := digitsEnd(d, j+1)
		if k == j+1 {
			return -1
		}
		j = k
	}
	if j < len(d) && (d[j] == 'e' || d[j] == 'E') {
		j++
		if j < len(d) && (d[j] == '+' || d[j] == '-') {
			j++
		}
		k := digitsEnd(d, j)
		if k == j {
			return -1
		}
		j = k
	}
	return j
}

// digitsEnd returns the index of the first byte at or after i that is not
// an ASCII digit, or len(d).
func digitsEnd(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// fastLiteral keeps the string literal at d[i] in *dst and returns its
// end, or -1 when it is not a valid string literal or ok is false.
func fastLiteral(d []byte, i int, dst *[]byte, ok bool) int {
	end := fastString(d, i)
	if !ok || end < 0 {
		return -1
	}
	*dst = d[i:end]
	return end
}

// fastString returns the end of the valid string literal at d[i], or -1.
func fastString(d []byte, i int) int {
	if d[i] != '"' {
		return -1
	}
	end, _, ok := jsonguard.StringEnd(d, i)
	if !ok {
		return -1
	}
	return end
}

// Member bits of fastCandidate's and fastPart's duplicate checks.
const (
	fastContent = 1 << iota
	fastFinish
	fastFinishMessage
	fastIndex
	fastRole
	fastParts
	fastThought
	fastSignature
)

// fastCandidate reads the candidate object at d[i] into c as walkCandidate
// would, keeping c's storage, but for the text parts, whose text it
// decodes onto *texts (see fastPart); it returns the object's end or -1.
func fastCandidate(d []byte, i int, c *candidate, texts *[]byte) int {
	parts, extras := c.parts[:0], c.extras[:0]
	*c = candidate{}
	var seen seenOnce
	end := fastMembers(d, i, func(name []byte, i int) int {
		switch string(name) {
		case `"content"`:
			if !seen.once(fastContent) || d[i] != '{' {
				return -1
			}
			return fastMembers(d, i, func(name []byte, i int) int {
				switch string(name) {
				case `"role"`:
					if !seen.once(fastRole) {
						return -1
					}
					return fastString(d, i)
				case `"parts"`:
					if !seen.once(fastParts) || d[i] != '[' {
						return -1
					}
					return fastElements(d, i, func(i int) int {
						if d[i] != '{' {
							return -1
						}
						if len(parts) < cap(parts) {
							parts = parts[:len(parts)+1]
						} else {
							parts = append(parts, part{})
						}
						return fastPart(d, i, &parts[len(parts)-1], texts)
					})
				}
				return -1
			})
		case `"finishReason"`:
			end := fastString(d, i)
			if !seen.once(fastFinish) || end < 0 {
				return -1
			}
			setStr(&c.finishReason, d[i:end])
			return end
		case `"finishMessage"`:
			end := fastString(d, i)
			if !seen.once(fastFinishMessage) || end < 0 {
				return -1
			}
			setStr(&c.finishMessage, d[i:end])
			return end
		case `"index"`:
			n, end := fastUint(d, i)
			if !seen.once(fastIndex) || end < 0 {
				return -1
			}
			c.index = n
			return end
		}
		return -1
	})
	c.parts, c.extras = parts, extras
	return end
}

// fastPart reads the part object at d[i] into p as walkPart would, for a
// part of one data member (text, functionCall, functionResponse,
// executableCode, codeExecutionResult) and the thought and
// thoughtSignature members; it returns the object's end or -1. A text is
// validated and decoded in one pass (jsonguard.AppendLiteral) onto *texts
// and p.text is the decoded bytes (p.decoded), where walkPart keeps the
// literal for the parser to decode.
func fastPart(d []byte, i int, p *part, texts *[]byte) int {
	*p = part{extras: p.extras[:0]}
	var seen seenOnce
	return fastMembers(d, i, func(name []byte, i int) int {
		switch string(name) {
		case `"text"`:
			if p.kind != partEmpty || d[i] != '"' {
				return -1
			}
			n := len(*texts)
			out, end, ok := jsonguard.AppendLiteral(*texts, d, i)
			if !ok {
				return -1
			}
			*texts = out
			p.kind, p.text, p.decoded = partText, out[n:len(out):len(out)], true
			return end
		case `"executableCode"`:
			return p.fastWhole(partExecutableCode, d, i)
		case `"codeExecutionResult"`:
			return p.fastWhole(partCodeResult, d, i)
		case `"functionResponse"`:
			return p.fastWhole(partFunctionResponse, d, i)
		case `"functionCall"`:
			if p.kind != partEmpty || d[i] != '{' {
				return -1
			}
			p.kind = partFunctionCall
			return fastFunctionCall(d, i, &p.fc)
		case `"thought"`:
			if !seen.once(fastThought) {
				return -1
			}
			switch {
			case hasLiteral(d, i, "true"):
				p.thought = true
				return i + 4
			case hasLiteral(d, i, "false"):
				return i + 5
			}
			return -1
		case `"thoughtSignature"`:
			end := fastString(d, i)
			if !seen.once(fastSignature) || end < 0 {
				return -1
			}
			setStr(&p.signature, d[i:end])
			return end
		}
		return -1
	})
}

// fastWholeDepth bounds the nesting fastPart accepts in a value it keeps
// whole (a function call's args, a code execution part); deeper values
// are left to the slow path.
const fastWholeDepth = 16

// fastWhole keeps the object at d[i] as the part's one data member of kind
// k, as setWhole does; it returns the object's end or -1.
func (p *part) fastWhole(k partKind, d []byte, i int) int {
	if p.kind != partEmpty || d[i] != '{' {
		return -1
	}
	end := fastValue(d, i, fastWholeDepth)
	if end < 0 {
		return -1
	}
	p.kind, p.val = k, d[i:end]
	return end
}

// fastFunctionCall reads the functionCall object at d[i] into fc as
// walkFunctionCall would, for a call of name, id and args members only; it
// returns the object's end or -1.
func fastFunctionCall(d []byte, i int, fc *functionCall) int {
	*fc = functionCall{}
	var seen seenOnce
	return fastMembers(d, i, func(name []byte, i int) int {
		switch string(name) {
		case `"name"`:
			end := fastString(d, i)
			if !seen.once(1) || end < 0 {
				return -1
			}
			setStr(&fc.name, d[i:end])
			return end
		case `"id"`:
			end := fastString(d, i)
			if !seen.once(2) || end < 0 {
				return -1
			}
			setStr(&fc.id, d[i:end])
			return end
		case `"args"`:
			if !seen.once(4) || d[i] == 'n' {
				return -1
			}
			end := fastValue(d, i, fastWholeDepth)
			if end < 0 {
				return -1
			}
			fc.args = d[i:end]
			return end
		}
		return -1
	})
}

// hasLiteral reports whether d holds lit at i (what follows is the
// caller's to check).
func hasLiteral(d []byte, i int, lit string) bool {
	return len(d)-i >= len(lit) && string(d[i:i+len(lit)]) == lit
}

// fastUint reads the JSON integer at d[i] when it is a small non-negative
// one without fraction or exponent (what intOf reads as itself); end is
// -1 otherwise.
func fastUint(d []byte, i int) (n, end int) {
	j := i
	for j < len(d) && d[j] >= '0' && d[j] <= '9' {
		n = n*10 + int(d[j]-'0')
		j++
	}
	if j == i || j-i > 9 || d[i] == '0' && j-i > 1 {
		return 0, -1
	}
	if j < len(d) && (d[j] == '.' || d[j] == 'e' || d[j] == 'E') {
		return 0, -1
	}
	return n, j
}

// fastMembers reads the object at d[i] ('{') strictly: for each member it
// calls fn with the name literal (quotes included) and the index of the
// value's first byte (i < len(d)); fn returns the index just past the
// value, or -1 to decline. fastMembers returns the index just past the
// object, or -1 when fn declined or the object is not valid JSON around
// its values.
func fastMembers(d []byte, i int, fn func(name []byte, i int) int) int {
	i = fastWS(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return -1
		}
		// Every name fn takes is plain: a name with an escape declines.
		j, escaped, ok := jsonguard.StringEnd(d, i)
		if !ok || escaped {
			return -1
		}
		name := d[i:j]
		if i = fastWS(d, j); i >= len(d) || d[i] != ':' {
			return -1
		}
		if i = fastWS(d, i+1); i >= len(d) {
			return -1
		}
		if j = fn(name, i); j <= i {
			return -1
		}
		if i = fastWS(d, j); i >= len(d) {
			return -1
		}
		switch d[i] {
		case ',':
			i = fastWS(d, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// fastWS is jsonguard.SkipWS with the common cases, no whitespace or one
// space, decided without a loop.
func fastWS(d []byte, i int) int {
	if i < len(d) && d[i] > ' ' {
		return i
	}
	if i+1 < len(d) && d[i] == ' ' && d[i+1] > ' ' {
		return i + 1
	}
	return jsonguard.SkipWS(d, i)
}

// fastElements is fastMembers for the array at d[i] ('['): fn gets the
// index of each element's first byte.
func fastElements(d []byte, i int, fn func(i int) int) int {
	i = fastWS(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1
	}
	for {
		if i >= len(d) {
			return -1
		}
		j := fn(i)
		if j <= i {
			return -1
		}
		if i = fastWS(d, j); i >= len(d) {
			return -1
		}
		switch d[i] {
		case ',':
			i = fastWS(d, i+1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// seenOnce records the members an object has had, one bit each: once
// reports whether bit is new (a duplicate member declines the fast path,
// since the walk keeps the last one).
type seenOnce uint

func (s *seenOnce) once(bit uint) bool {
	if uint(*s)&bit != 0 {
		return false
	}
	*s |= seenOnce(bit)
	return true
}
