package gemini

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/segmentio/encoding/json"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// The wire layer: one GenerateContentResponse (or a bare error body) is
// validated with jsonguard.Check and then walked once, member by member,
// with the jsonguard walk helpers (which are exact on checked input). The
// walk is the only semantics, there is no second decoder behind it:
//
//   - member names are compared exactly, as the API writes them
//     (lowerCamelCase); a name spelled any other way is an unknown member;
//   - with duplicate members the last one wins, as in encoding/json;
//   - a known member whose value has the wrong JSON type is kept as an
//     unknown member (and counted as a problem), never guessed at;
//   - every member this parser does not map is kept with its exact bytes
//     (a member), decoded for Raw only when it is handed on.
//
// Slices in an event alias the frame's data and are valid only while the
// frame is; the parser copies what it keeps.

// member is a JSON member kept undecoded: its name (as on the wire, between
// the quotes) and its exact value bytes.
type member struct {
	name string
	val  []byte
}

// event is one decoded GenerateContentResponse.
type event struct {
	candidates   []candidate
	usage        usage
	hasUsage     bool
	usageRaw     []byte
	modelVersion string
	responseID   string
	createTime   string
	// promptFeedback: blockReason (and blockReasonMessage) decoded, the
	// whole value kept.
	blockReason   string
	blockMessage  string
	feedbackRaw   []byte
	hasErr        bool
	err           apiError
	extras        []member
	problems      []string
	candidatesRaw bool // "candidates" was present (even empty)
}

// usage is usageMetadata's counts; has says which were present.
type usage struct {
	prompt, candidates, cached, toolUse, thoughts, total int
	has                                                  bool
}

// apiError is the google.rpc.Status error object.
type apiError struct {
	code    int
	hasCode bool
	message string
	status  string
	details []byte // the details array, exact bytes
	raw     []byte // the whole error object
}

type candidate struct {
	index         int
	role          string
	parts         []part
	finishReason  string
	finishMessage string
	extras        []member // candidate members not mapped (safetyRatings, groundingMetadata, ...)
}

// partKind is what a part holds.
type partKind uint8

const (
	partEmpty partKind = iota // no data member at all ({} or only metadata)
	partText
	partFunctionCall
	partFunctionResponse
	partExecutableCode
	partCodeResult
	partInlineData
	partFileData
	partUnknown
)

// part is one element of content.parts.
type part struct {
	kind      partKind
	text      string
	hasText   bool
	thought   bool
	signature string
	fc        functionCall
	// val is the value of the data member for the kinds kept whole
	// (functionResponse, executableCode, codeExecutionResult, inlineData,
	// fileData), and name/val of the first unknown member for partUnknown.
	val     []byte
	unknown string
	extras  []member // members beside the data member that are not mapped
}

// functionCall is a functionCall value: whole (name and args), or a
// fragment of a streamed call (partialArgs, willContinue).
type functionCall struct {
	id, name     string
	args         []byte // exact bytes of args, nil when absent
	partialArgs  []byte // exact bytes of partialArgs, nil when absent
	willContinue bool
	extras       []member
}

// decodeEvent checks b and walks it into ev, reusing ev's slices. It
// returns a *jsonguard.SyntaxError for invalid JSON and errNotObject for a
// value that is not an object.
func decodeEvent(b []byte, ev *event) error {
	if err := jsonguard.Check(b, 0); err != nil {
		return err
	}
	return walkEvent(b, ev)
}

// walkEvent walks checked JSON into ev.
func walkEvent(b []byte, ev *event) error {
	i := jsonguard.SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	cands := ev.candidates[:0]
	*ev = event{}
	eachMember(b[i:], func(name, val []byte) {
		switch string(name) {
		case "candidates":
			if val[0] != '[' {
				ev.badType("candidates", val)
				return
			}
			ev.candidatesRaw = true
			cands = cands[:0]
			eachElement(val, func(v []byte) {
				cands = append(cands, candidate{})
				c := &cands[len(cands)-1]
				if v[0] != '{' {
					ev.problems = append(ev.problems, "candidate is not an object")
					c.extras = append(c.extras, member{"candidate", v})
					return
				}
				walkCandidate(v, c, ev)
			})
		case "usageMetadata":
			if val[0] != '{' {
				ev.badType("usageMetadata", val)
				return
			}
			ev.usageRaw = val
			ev.hasUsage = true
			walkUsage(val, &ev.usage)
		case "modelVersion":
			ev.setString(&ev.modelVersion, name, val)
		case "responseId":
			ev.setString(&ev.responseID, name, val)
		case "createTime":
			ev.setString(&ev.createTime, name, val)
		case "promptFeedback":
			if val[0] != '{' {
				ev.badType("promptFeedback", val)
				return
			}
			ev.feedbackRaw = val
			eachMember(val, func(n, v []byte) {
				switch string(n) {
				case "blockReason":
					ev.setString(&ev.blockReason, n, v)
				case "blockReasonMessage":
					ev.setString(&ev.blockMessage, n, v)
				}
			})
		case "error":
			if val[0] != '{' {
				ev.badType("error", val)
				return
			}
			ev.hasErr = true
			ev.err = apiError{raw: val}
			walkError(val, &ev.err, ev)
		default:
			ev.extras = append(ev.extras, member{string(name), val})
		}
	})
	ev.candidates = cands
	return nil
}

func walkCandidate(b []byte, c *candidate, ev *event) {
	parts := c.parts[:0]
	*c = candidate{}
	eachMember(b, func(name, val []byte) {
		switch string(name) {
		case "content":
			if val[0] != '{' {
				ev.badType("content", val)
				c.extras = append(c.extras, member{"content", val})
				return
			}
			eachMember(val, func(n, v []byte) {
				switch string(n) {
				case "role":
					if !setStr(&c.role, v) {
						ev.badType("role", v)
					}
				case "parts":
					if v[0] != '[' {
						ev.badType("parts", v)
						c.extras = append(c.extras, member{"content.parts", v})
						return
					}
					parts = parts[:0]
					eachElement(v, func(pv []byte) {
						parts = append(parts, part{})
						walkPart(pv, &parts[len(parts)-1], ev)
					})
				default:
					c.extras = append(c.extras, member{"content." + string(n), v})
				}
			})
		case "finishReason":
			if !setStr(&c.finishReason, val) {
				ev.badType("finishReason", val)
				c.extras = append(c.extras, member{"finishReason", val})
			}
		case "finishMessage":
			if !setStr(&c.finishMessage, val) {
				ev.badType("finishMessage", val)
			}
		case "index":
			n, ok := intOf(val)
			if !ok || n < 0 {
				ev.badType("index", val)
				return
			}
			c.index = n
		default:
			c.extras = append(c.extras, member{string(name), val})
		}
	})
	c.parts = parts
}

func walkPart(b []byte, p *part, ev *event) {
	if b[0] != '{' {
		ev.problems = append(ev.problems, "part is not an object")
		p.kind, p.unknown, p.val = partUnknown, "part", b
		return
	}
	// The data member decides the kind; proto's oneof allows one, a second
	// one is kept as an extra.
	setKind := func(k partKind, name, val []byte) bool {
		if p.kind != partEmpty && p.kind != k {
			p.extras = append(p.extras, member{string(name), val})
			ev.problems = append(ev.problems, "part with two data members")
			return false
		}
		p.kind = k
		return true
	}
	eachMember(b, func(name, val []byte) {
		switch string(name) {
		case "text":
			if !setStr(&p.text, val) {
				ev.badType("text", val)
				p.extras = append(p.extras, member{"text", val})
				return
			}
			if setKind(partText, name, val) {
				p.hasText = true
			}
		case "thought":
			switch string(val) {
			case "true":
				p.thought = true
			case "false", "null":
				p.thought = false
			default:
				ev.badType("thought", val)
				p.extras = append(p.extras, member{"thought", val})
			}
		case "thoughtSignature":
			if !setStr(&p.signature, val) {
				ev.badType("thoughtSignature", val)
				p.extras = append(p.extras, member{"thoughtSignature", val})
			}
		case "functionCall":
			if val[0] != '{' {
				ev.badType("functionCall", val)
				p.extras = append(p.extras, member{"functionCall", val})
				return
			}
			if setKind(partFunctionCall, name, val) {
				walkFunctionCall(val, &p.fc, ev)
			}
		case "functionResponse":
			p.setWhole(partFunctionResponse, name, val, ev, setKind)
		case "executableCode":
			p.setWhole(partExecutableCode, name, val, ev, setKind)
		case "codeExecutionResult":
			p.setWhole(partCodeResult, name, val, ev, setKind)
		case "inlineData":
			p.setWhole(partInlineData, name, val, ev, setKind)
		case "fileData":
			p.setWhole(partFileData, name, val, ev, setKind)
		default:
			p.extras = append(p.extras, member{string(name), val})
		}
	})
	if p.kind == partEmpty {
		// A part with no member this parser knows as data: the first
		// unknown member is its kind (a part type newer than this parser).
		for i, m := range p.extras {
			if !partMetaMember(m.name) {
				p.kind, p.unknown, p.val = partUnknown, m.name, m.val
				p.extras = append(p.extras[:i:i], p.extras[i+1:]...)
				break
			}
		}
	}
}

// partMetaMember reports whether a part member is metadata beside the data
// rather than data of its own (it never makes an unknown part type).
func partMetaMember(name string) bool {
	switch name {
	case "thought", "thoughtSignature", "partMetadata", "videoMetadata", "mediaResolution":
		return true
	}
	return false
}

func (p *part) setWhole(k partKind, name, val []byte, ev *event, setKind func(partKind, []byte, []byte) bool) {
	if val[0] != '{' {
		ev.badType(string(name), val)
		p.extras = append(p.extras, member{string(name), val})
		return
	}
	if setKind(k, name, val) {
		p.val = val
	}
}

func walkFunctionCall(b []byte, fc *functionCall, ev *event) {
	*fc = functionCall{}
	eachMember(b, func(name, val []byte) {
		switch string(name) {
		case "id":
			if !setStr(&fc.id, val) {
				ev.badType("functionCall.id", val)
				fc.extras = append(fc.extras, member{"id", val})
			}
		case "name":
			if !setStr(&fc.name, val) {
				ev.badType("functionCall.name", val)
				fc.extras = append(fc.extras, member{"name", val})
			}
		case "args":
			if string(val) != "null" {
				fc.args = val
			}
		case "partialArgs":
			if val[0] == '[' {
				fc.partialArgs = val
			} else if string(val) != "null" {
				ev.badType("functionCall.partialArgs", val)
				fc.extras = append(fc.extras, member{"partialArgs", val})
			}
		case "willContinue":
			fc.willContinue = string(val) == "true"
		default:
			fc.extras = append(fc.extras, member{string(name), val})
		}
	})
}

func walkUsage(b []byte, u *usage) {
	eachMember(b, func(name, val []byte) {
		var dst *int
		switch string(name) {
		case "promptTokenCount":
			dst = &u.prompt
		case "candidatesTokenCount":
			dst = &u.candidates
		case "cachedContentTokenCount":
			dst = &u.cached
		case "toolUsePromptTokenCount":
			dst = &u.toolUse
		case "thoughtsTokenCount":
			dst = &u.thoughts
		case "totalTokenCount":
			dst = &u.total
		default:
			return
		}
		if n, ok := intOf(val); ok && n >= 0 {
			*dst = n
			u.has = true
		}
	})
}

func walkError(b []byte, e *apiError, ev *event) {
	eachMember(b, func(name, val []byte) {
		switch string(name) {
		case "code":
			if n, ok := intOf(val); ok {
				e.code, e.hasCode = n, true
			}
		case "message":
			if !setStr(&e.message, val) {
				ev.badType("error.message", val)
			}
		case "status":
			if !setStr(&e.status, val) {
				ev.badType("error.status", val)
			}
		case "details":
			e.details = val
		}
	})
}

func (ev *event) setString(dst *string, name, val []byte) {
	if !setStr(dst, val) && string(val) != "null" {
		ev.badType(string(name), val)
		ev.extras = append(ev.extras, member{string(name), val})
	}
}

func (ev *event) badType(name string, val []byte) {
	ev.problems = append(ev.problems, name+": unexpected JSON "+jsonKind(val))
}

func jsonKind(val []byte) string {
	switch val[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// errNotObject is returned for a JSON value that is not an object.
var errNotObject = errorString("not a JSON object")

type errorString string

func (e errorString) Error() string { return string(e) }

// eachMember calls fn for each member of the checked JSON object b (b[0] is
// '{'), in input order, with the raw name and the exact value bytes. On
// input that is not checked JSON it stops early; it never panics.
func eachMember(b []byte, fn func(name, val []byte)) {
	i := jsonguard.SkipWS(b, 1)
	for i < len(b) && b[i] == '"' {
		end, _, ok := jsonguard.StringEnd(b, i)
		if !ok {
			return
		}
		name := b[i+1 : end-1]
		i = jsonguard.SkipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = jsonguard.SkipWS(b, i+1)
		if i >= len(b) {
			return
		}
		vend := jsonguard.ValueEnd(b, i)
		if vend <= i || vend > len(b) {
			return
		}
		fn(name, b[i:vend])
		i = jsonguard.SkipWS(b, vend)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = jsonguard.SkipWS(b, i+1)
	}
}

// eachElement calls fn for each element of the checked JSON array b.
func eachElement(b []byte, fn func(val []byte)) {
	i := jsonguard.SkipWS(b, 1)
	for i < len(b) && b[i] != ']' {
		vend := jsonguard.ValueEnd(b, i)
		if vend <= i || vend > len(b) {
			return
		}
		fn(b[i:vend])
		i = jsonguard.SkipWS(b, vend)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = jsonguard.SkipWS(b, i+1)
	}
}

// setStr sets *dst to the JSON string val decoded as the decoders do
// (escapes resolved, invalid UTF-8 replaced by U+FFFD) and reports whether
// val is a string. A JSON null leaves *dst alone and reports false.
func setStr(dst *string, val []byte) bool {
	if len(val) < 2 || val[0] != '"' {
		return false
	}
	in := val[1 : len(val)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		*dst = string(in)
		return true
	}
	var s string
	if json.Unmarshal(val, &s) != nil {
		return false
	}
	*dst = s
	return true
}

// intOf reads a token count: a JSON integer, or an integer in a string (the
// proto3 JSON form of 64-bit integers), or a number with an integral value.
func intOf(val []byte) (int, bool) {
	if len(val) >= 2 && val[0] == '"' {
		val = val[1 : len(val)-1]
	}
	if n, err := strconv.Atoi(string(val)); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(val), 64)
	if err != nil || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

// decodeAny decodes checked JSON for a Raw value.
func decodeAny(val []byte) any {
	var v any
	if json.Unmarshal(val, &v) != nil {
		return string(val)
	}
	return v
}

// decodeObject decodes a checked JSON object, or returns nil.
func decodeObject(val []byte) map[string]any {
	if len(val) == 0 || val[0] != '{' {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(val, &m) != nil {
		return nil
	}
	return m
}
