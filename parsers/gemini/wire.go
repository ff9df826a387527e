package gemini

import (
	"bytes"
	"strconv"
	"unicode/utf8"

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
	candidates []candidate
	hasUsage   bool
	usageRaw   []byte
	// modelVersion, responseID and createTime are the string literals
	// (quotes included), decoded by the parser only when they change.
	modelVersion []byte
	responseID   []byte
	createTime   []byte
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
	// texts holds the decoded text of the parts fastEvent read (their
	// text fields are slices of it); reset keeps its storage.
	texts []byte
	// usageMemo is fastEvent's reading of usageMetadata, which repeats
	// most of its members from event to event; reset keeps it.
	usageMemo *jsonguard.StrictMemo
	// tail is fastEvent's shape of the members after the candidates;
	// reset keeps it.
	tail *fastTail
	// shapes are fastEvent's shapes of whole events; reset keeps them.
	shapes *fastShapes
	// replayed is the shape (its index in shapes, plus one) that the last
	// reading was replayed from, when ev is the reset event with that
	// replay in it and nothing else (then the storage of candidates holds
	// the shape's candidates but for the spans); 0 after any other
	// reading. reset clears it: every other reading starts with a reset,
	// and fastEvent looks at it before.
	replayed int
	// usageCounted says that usageRaw is known to name a token count
	// (replay knows it from its shape, see namesCount); when it is false,
	// Parser.object looks.
	usageCounted bool
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
	kind partKind
	// text is the text's string literal, quotes included (decoded by the
	// parser), or with decoded its decoded contents (fastEvent decodes as
	// it validates).
	text      []byte
	decoded   bool
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

// walkEvent walks checked JSON into ev: reset, member for each top-level
// member, done. Each walker takes the value at b[i] and returns the index
// just past it, so every byte is walked once; members that are not
// descended into are skipped with ValueEnd. Parser.value does not call it
// for an event that is an object: it validates the event with
// jsonguard.CheckMembers and walks each member as the validating pass
// hands it over (member), so the bytes outside the candidates are scanned
// once, not twice.
func walkEvent(b []byte, ev *event) error {
	i := jsonguard.SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	ev.reset()
	eachMember(b, i, ev.member)
	return nil
}

// reset empties ev for the next event, keeping the candidates' storage.
func (ev *event) reset() {
	cands, texts, memo, tail, shapes := ev.candidates[:0], ev.texts[:0], ev.usageMemo, ev.tail, ev.shapes
	if memo == nil {
		memo, tail, shapes = new(jsonguard.StrictMemo), new(fastTail), new(fastShapes)
	}
	*ev = event{candidates: cands, texts: texts, usageMemo: memo, tail: tail, shapes: shapes}
}

// member walks one top-level member: its name as on the wire (between the
// quotes) and its value at b[i]; it returns the index just past the value.
func (ev *event) member(name []byte, b []byte, i int) int {
	switch string(name) {
	case "candidates":
		if b[i] != '[' {
			return ev.badMember("candidates", b, i, &ev.extras)
		}
		ev.candidatesRaw = true
		cands := ev.candidates[:0]
		end := eachElement(b, i, func(b []byte, i int) int {
			if len(cands) < cap(cands) {
				cands = cands[:len(cands)+1]
			} else {
				cands = append(cands, candidate{})
			}
			c := &cands[len(cands)-1]
			if b[i] != '{' {
				ev.problems = append(ev.problems, "candidate is not an object")
				end := jsonguard.ValueEnd(b, i)
				*c = candidate{extras: []member{{"candidate", b[i:end]}}}
				return end
			}
			return walkCandidate(b, i, c, ev)
		})
		ev.candidates = cands
		return end
	case "usageMetadata":
		if b[i] != '{' {
			return ev.badMember("usageMetadata", b, i, &ev.extras)
		}
		ev.hasUsage = true
		end := jsonguard.ValueEnd(b, i)
		ev.usageRaw = b[i:end]
		return end
	case "modelVersion":
		return ev.literal(&ev.modelVersion, name, b, i)
	case "responseId":
		return ev.literal(&ev.responseID, name, b, i)
	case "createTime":
		return ev.literal(&ev.createTime, name, b, i)
	case "promptFeedback":
		if b[i] != '{' {
			return ev.badMember("promptFeedback", b, i, &ev.extras)
		}
		end := eachMember(b, i, func(n []byte, b []byte, i int) int {
			switch string(n) {
			case "blockReason":
				return ev.setString(&ev.blockReason, n, b, i)
			case "blockReasonMessage":
				return ev.setString(&ev.blockMessage, n, b, i)
			}
			return jsonguard.ValueEnd(b, i)
		})
		ev.feedbackRaw = b[i:end]
		return end
	case "error":
		if b[i] != '{' {
			return ev.badMember("error", b, i, &ev.extras)
		}
		ev.hasErr = true
		end := walkError(b, i, &ev.err, ev)
		ev.err.raw = b[i:end]
		return end
	}
	end := jsonguard.ValueEnd(b, i)
	ev.extras = append(ev.extras, member{string(name), b[i:end]})
	return end
}

func walkCandidate(b []byte, i int, c *candidate, ev *event) int {
	parts := c.parts[:0]
	extras := c.extras[:0]
	*c = candidate{}
	end := eachMember(b, i, func(name []byte, b []byte, i int) int {
		switch string(name) {
		case "content":
			if b[i] != '{' {
				return ev.badMember("content", b, i, &extras)
			}
			return eachMember(b, i, func(n []byte, b []byte, i int) int {
				switch string(n) {
				case "role":
					// Always "model" in a response; only its type is checked.
					end := jsonguard.ValueEnd(b, i)
					if b[i] != '"' && b[i] != 'n' {
						ev.badType("content.role", b[i:end])
						extras = append(extras, member{"content.role", b[i:end]})
					}
					return end
				case "parts":
					if b[i] != '[' {
						return ev.badMember("content.parts", b, i, &extras)
					}
					parts = parts[:0]
					return eachElement(b, i, func(b []byte, i int) int {
						if len(parts) < cap(parts) {
							parts = parts[:len(parts)+1]
						} else {
							parts = append(parts, part{})
						}
						return walkPart(b, i, &parts[len(parts)-1], ev)
					})
				}
				end := jsonguard.ValueEnd(b, i)
				extras = append(extras, member{"content." + string(n), b[i:end]})
				return end
			})
		case "finishReason":
			return ev.setStringOr(&c.finishReason, "finishReason", b, i, &extras)
		case "finishMessage":
			return ev.setStringOr(&c.finishMessage, "finishMessage", b, i, &extras)
		case "index":
			end := jsonguard.ValueEnd(b, i)
			n, ok := intOf(b[i:end])
			if !ok || n < 0 {
				ev.badType("index", b[i:end])
				return end
			}
			c.index = n
			return end
		}
		end := jsonguard.ValueEnd(b, i)
		extras = append(extras, member{string(name), b[i:end]})
		return end
	})
	c.parts, c.extras = parts, extras
	return end
}

func walkPart(b []byte, i int, p *part, ev *event) int {
	extras := p.extras[:0]
	*p = part{}
	defer func() { p.extras = extras }()
	if b[i] != '{' {
		ev.problems = append(ev.problems, "part is not an object")
		end := jsonguard.ValueEnd(b, i)
		p.kind, p.unknown, p.val = partUnknown, "part", b[i:end]
		return end
	}
	// The data member decides the kind; proto's oneof allows one, a second
	// one is kept as an extra.
	setKind := func(k partKind, name []byte, val []byte) bool {
		if p.kind != partEmpty && p.kind != k {
			extras = append(extras, member{string(name), val})
			ev.problems = append(ev.problems, "part with two data members")
			return false
		}
		p.kind = k
		return true
	}
	end := eachMember(b, i, func(name []byte, b []byte, i int) int {
		switch string(name) {
		case "text":
			end := jsonguard.ValueEnd(b, i)
			if b[i] != '"' {
				if b[i] != 'n' {
					ev.badType("text", b[i:end])
					extras = append(extras, member{"text", b[i:end]})
				}
				return end
			}
			if setKind(partText, name, b[i:end]) {
				p.text = b[i:end]
			}
			return end
		case "thought":
			end := jsonguard.ValueEnd(b, i)
			switch string(b[i:end]) {
			case "true":
				p.thought = true
			case "false", "null":
				p.thought = false
			default:
				ev.badType("thought", b[i:end])
				extras = append(extras, member{"thought", b[i:end]})
			}
			return end
		case "thoughtSignature":
			return ev.setStringOr(&p.signature, "thoughtSignature", b, i, &extras)
		case "functionCall":
			if b[i] != '{' {
				return ev.badMember("functionCall", b, i, &extras)
			}
			end := jsonguard.ValueEnd(b, i)
			if setKind(partFunctionCall, name, b[i:end]) {
				walkFunctionCall(b, i, &p.fc, ev)
			}
			return end
		case "functionResponse":
			return p.setWhole(partFunctionResponse, name, b, i, ev, setKind, &extras)
		case "executableCode":
			return p.setWhole(partExecutableCode, name, b, i, ev, setKind, &extras)
		case "codeExecutionResult":
			return p.setWhole(partCodeResult, name, b, i, ev, setKind, &extras)
		case "inlineData":
			return p.setWhole(partInlineData, name, b, i, ev, setKind, &extras)
		case "fileData":
			return p.setWhole(partFileData, name, b, i, ev, setKind, &extras)
		}
		end := jsonguard.ValueEnd(b, i)
		extras = append(extras, member{string(name), b[i:end]})
		return end
	})
	if p.kind == partEmpty {
		// A part with no member this parser knows as data: the first
		// unknown member is its kind (a part type newer than this parser).
		for k, m := range extras {
			if !knownPartMember(m.name) {
				p.kind, p.unknown, p.val = partUnknown, m.name, m.val
				extras = append(extras[:k:k], extras[k+1:]...)
				break
			}
		}
	}
	return end
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

// knownPartMember reports whether a part member is one this parser maps
// (a known member of the wrong type is kept as an extra, not taken for a
// new part type).
func knownPartMember(name string) bool {
	switch name {
	case "text", "functionCall", "functionResponse", "executableCode", "codeExecutionResult", "inlineData", "fileData":
		return true
	}
	return partMetaMember(name)
}

func (p *part) setWhole(k partKind, name []byte, b []byte, i int, ev *event, setKind func(partKind, []byte, []byte) bool, extras *[]member) int {
	if b[i] != '{' {
		return ev.badMember(string(name), b, i, extras)
	}
	end := jsonguard.ValueEnd(b, i)
	if setKind(k, name, b[i:end]) {
		p.val = b[i:end]
	}
	return end
}

func walkFunctionCall(b []byte, i int, fc *functionCall, ev *event) int {
	*fc = functionCall{}
	return eachMember(b, i, func(name []byte, b []byte, i int) int {
		switch string(name) {
		case "id":
			return ev.setStringOr(&fc.id, "functionCall.id", b, i, &fc.extras)
		case "name":
			return ev.setStringOr(&fc.name, "functionCall.name", b, i, &fc.extras)
		case "args":
			end := jsonguard.ValueEnd(b, i)
			if string(b[i:end]) != "null" {
				fc.args = b[i:end]
			}
			return end
		case "partialArgs":
			end := jsonguard.ValueEnd(b, i)
			if b[i] == '[' {
				fc.partialArgs = b[i:end]
			} else if string(b[i:end]) != "null" {
				ev.badType("functionCall.partialArgs", b[i:end])
				fc.extras = append(fc.extras, member{"partialArgs", b[i:end]})
			}
			return end
		case "willContinue":
			end := jsonguard.ValueEnd(b, i)
			fc.willContinue = string(b[i:end]) == "true"
			return end
		}
		end := jsonguard.ValueEnd(b, i)
		fc.extras = append(fc.extras, member{string(name), b[i:end]})
		return end
	})
}

func walkUsage(b []byte, i int, u *usage) int {
	return eachMember(b, i, func(name []byte, b []byte, i int) int {
		end := jsonguard.ValueEnd(b, i)
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
			return end
		}
		if n, ok := intOf(b[i:end]); ok && n >= 0 {
			*dst = n
			u.has = true
		}
		return end
	})
}

func walkError(b []byte, i int, e *apiError, ev *event) int {
	*e = apiError{}
	return eachMember(b, i, func(name []byte, b []byte, i int) int {
		end := jsonguard.ValueEnd(b, i)
		switch string(name) {
		case "code":
			if n, ok := intOf(b[i:end]); ok {
				e.code, e.hasCode = n, true
			}
		case "message":
			if !setStr(&e.message, b[i:end]) {
				ev.badType("error.message", b[i:end])
			}
		case "status":
			if !setStr(&e.status, b[i:end]) {
				ev.badType("error.status", b[i:end])
			}
		case "details":
			e.details = b[i:end]
		}
		return end
	})
}

// badMember records a known member of the wrong JSON type and keeps it in
// extras; it returns the value's end.
func (ev *event) badMember(name string, b []byte, i int, extras *[]member) int {
	end := jsonguard.ValueEnd(b, i)
	ev.badType(name, b[i:end])
	*extras = append(*extras, member{name, b[i:end]})
	return end
}

// setStringOr sets *dst from the string at b[i], or keeps a value of
// another type (null apart) in extras as a problem.
func (ev *event) setStringOr(dst *string, name string, b []byte, i int, extras *[]member) int {
	end := jsonguard.ValueEnd(b, i)
	if !setStr(dst, b[i:end]) && string(b[i:end]) != "null" {
		ev.badType(name, b[i:end])
		*extras = append(*extras, member{name, b[i:end]})
	}
	return end
}

// literal keeps the string literal at b[i] undecoded in *dst.
func (ev *event) literal(dst *[]byte, name []byte, b []byte, i int) int {
	end := jsonguard.ValueEnd(b, i)
	switch b[i] {
	case '"':
		*dst = b[i:end]
	case 'n':
	default:
		ev.badType(string(name), b[i:end])
		ev.extras = append(ev.extras, member{string(name), b[i:end]})
	}
	return end
}

func (ev *event) setString(dst *string, name []byte, b []byte, i int) int {
	return ev.setStringOr(dst, string(name), b, i, &ev.extras)
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

// eachMember walks the checked JSON object at b[i] (b[i] is '{'): it calls
// fn for each member, in input order, with the raw name and the index of
// the value's first byte; fn returns the index just past the value. It
// returns the index just past the object. On input that is not checked
// JSON it stops early, never panics and never loops.
func eachMember(b []byte, i int, fn func(name []byte, b []byte, i int) int) int {
	i = jsonguard.SkipWS(b, i+1)
	for i < len(b) && b[i] == '"' {
		// Names are short: a byte loop to the closing quote, StringEnd
		// only for a name with an escape.
		end := i + 1
		for end < len(b) && b[end] != '"' && b[end] != '\\' {
			end++
		}
		if end < len(b) && b[end] == '"' {
			end++
		} else {
			var ok bool
			if end, _, ok = jsonguard.StringEnd(b, i); !ok {
				return len(b)
			}
		}
		name := b[i+1 : end-1]
		i = jsonguard.SkipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return len(b)
		}
		i = jsonguard.SkipWS(b, i+1)
		if i >= len(b) {
			return len(b)
		}
		vend := fn(name, b, i)
		if vend <= i || vend > len(b) {
			return len(b)
		}
		i = jsonguard.SkipWS(b, vend)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i = jsonguard.SkipWS(b, i+1)
	}
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	return len(b)
}

// eachElement walks the checked JSON array at b[i] as eachMember walks an
// object.
func eachElement(b []byte, i int, fn func(b []byte, i int) int) int {
	i = jsonguard.SkipWS(b, i+1)
	for i < len(b) && b[i] != ']' {
		vend := fn(b, i)
		if vend <= i || vend > len(b) {
			return len(b)
		}
		i = jsonguard.SkipWS(b, vend)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i = jsonguard.SkipWS(b, i+1)
	}
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	return len(b)
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
	var buf [256]byte
	*dst = string(jsonguard.AppendString(buf[:0], val))
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

// decodeAny decodes checked JSON for a Raw value (maps sized to their
// members): every value the parser keeps is a part of an event that was
// validated whole, so it is decoded without a second validation
// (jsonguard.DecodeChecked); a number float64 cannot hold keeps the value
// as its text.
func decodeAny(val []byte) any {
	if v, ok := jsonguard.DecodeChecked(val); ok {
		return v
	}
	return string(val)
}

// decodeObject decodes a checked JSON object, or returns nil (for another
// value, or a number float64 cannot hold), as apistream.ObjectMap does.
func decodeObject(val []byte) map[string]any {
	if len(val) == 0 || val[0] != '{' {
		return nil
	}
	v, _ := jsonguard.DecodeChecked(val)
	m, _ := v.(map[string]any)
	return m
}
