package codex

import (
	"bytes"
	"unicode/utf8"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/ndjson"
)

// The item events are nearly all of a codex stream's bytes (command output
// and agent text), so every line first goes through a hand-written walk
// that validates it, reads its "type" and decodes its "item" in one pass,
// instead of a Type peek, a validating pass and the reflective decoder,
// which together read every string four times. It is an accelerator, not a
// second semantics:
//
//   - it validates as jsonguard.Check does: every string literal (names
//     included) with jsonguard.StringEnd, but for a name or "type" of
//     plain bytes (scanned to its quote by the walk itself, member) and
//     an exit code (a plain integer or null, exitCodeAt); every value it
//     does not decode with Check over the value's bytes (within the
//     remaining depth); the structure between them itself; and nothing
//     may follow the object;
//   - it handles the shape every codex release writes: exact member names,
//     each at most once, values of the field's type or null;
//   - on anything else it gives up (fast is false), and the caller uses
//     Frame.Type and the reflective decoder, whose behaviour (encoding/json's:
//     case-insensitive names, last duplicate wins, type errors, positioned
//     syntax errors) is then the only one. It gives up on invalid JSON; on a
//     member name with an escape, a non-ASCII byte or a case variant of a
//     field name; on a duplicate member; on a value of the wrong type; on a
//     number that is not a plain integer fitting an int; on a null element
//     of changes or items; on a "type" value with an escape or invalid UTF-8.
//
// FuzzItemDecode, TestFastItemDecode and its rapid grammar check that
// whenever it does not give up, the line is valid JSON, the reflective
// decoder decodes an equal event and Frame.Type reads the same type.

// itemField numbers the members of wireItem, for the duplicate check.
type itemField uint8

const (
	fNone itemField = iota
	fID
	fType
	fText
	fCommand
	fAggregatedOutput
	fExitCode
	fStatus
	fChanges
	fServer
	fTool
	fArguments
	fResult
	fError
	fQuery
	fAction
	fItems
	fMessage
	fCount
)

func itemFieldOf(name []byte) itemField {
	switch string(name) {
	case "id":
		return fID
	case "type":
		return fType
	case "text":
		return fText
	case "command":
		return fCommand
	case "aggregated_output":
		return fAggregatedOutput
	case "exit_code":
		return fExitCode
	case "status":
		return fStatus
	case "changes":
		return fChanges
	case "server":
		return fServer
	case "tool":
		return fTool
	case "arguments":
		return fArguments
	case "result":
		return fResult
	case "error":
		return fError
	case "query":
		return fQuery
	case "action":
		return fAction
	case "items":
		return fItems
	case "message":
		return fMessage
	}
	return fNone
}

var itemFieldNames = [...]string{"id", "type", "text", "command", "aggregated_output", "exit_code",
	"status", "changes", "server", "tool", "arguments", "result", "error", "query", "action", "items", "message"}

// plainName reports whether an unknown member name can be skipped: it has
// no escape and no non-ASCII byte (either could spell a field name, or a
// Unicode case fold of one, such as the Kelvin sign for k) and is not an
// ASCII case variant of one of names, which encoding/json would match.
func plainName(name []byte, names ...string) bool {
	for _, c := range name {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	for _, n := range names {
		if asciiEqualFold(name, n) {
			return false
		}
	}
	return true
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c, d := b[i], s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// member reads the member name at b[i] (a quote) and the colon after it;
// it returns the raw name (quotes excluded) and the index of the value.
// A name of plain bytes (no backslash, no control character: every name
// codex writes) is scanned here, byte by byte, and a colon and a value
// right after it are taken without a call: jsonguard.StringEnd and SkipWS,
// which any other name and spacing go to, cost more than such a name.
func member(b []byte, i int) (name []byte, v int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	end := i + 1
	for end < len(b) && b[end] != '"' && b[end] != '\\' && b[end] >= 0x20 {
		end++
	}
	if end < len(b) && b[end] == '"' {
		end++
	} else if end, _, ok = jsonguard.StringEnd(b, i); !ok {
		return nil, 0, false
	}
	name = b[i+1 : end-1]
	v = end
	if v >= len(b) || b[v] != ':' {
		if v = jsonguard.SkipWS(b, v); v >= len(b) || b[v] != ':' {
			return nil, 0, false
		}
	}
	v++
	if v >= len(b) || b[v] <= ' ' {
		if v = jsonguard.SkipWS(b, v); v >= len(b) {
			return nil, 0, false
		}
	}
	return name, v, true
}

// next steps past a value ending at end to the next member: more is true
// after a comma (i is then the next name), false at the closing brace (i
// is just past it). A comma or brace right after the value, and a name
// right after the comma, are taken without a call.
func next(b []byte, end int) (i int, more, ok bool) {
	i = end
	if i >= len(b) || b[i] <= ' ' {
		if i = jsonguard.SkipWS(b, i); i >= len(b) {
			return 0, false, false
		}
	}
	switch b[i] {
	case ',':
		if i+1 < len(b) && b[i+1] == '"' {
			return i + 1, true, true
		}
		return jsonguard.SkipWS(b, i+1), true, true
	case '}':
		return i + 1, false, true
	}
	return 0, false, false
}

// openObject checks for '{' at b[i] and returns the index of its first
// member name; empty is true for "{}" (i is then just past it).
func openObject(b []byte, i int) (j int, empty, ok bool) {
	if i >= len(b) || b[i] != '{' {
		return 0, false, false
	}
	j = jsonguard.SkipWS(b, i+1)
	if j < len(b) && b[j] == '}' {
		return j + 1, true, true
	}
	return j, false, true
}

// Depths of the values the walk decodes: the line's object is level 1,
// the item 2, changes and items 3, their elements 4. A value skipped at
// level n is checked with the depth left, so the line's limit is
// ndjson.DefaultMaxDepth, as for Decode.
const (
	depthTop  = 1
	depthItem = 2
	depthElem = 4
)

// skipChecked returns the end of the value at b[v] after checking it is
// valid JSON nested at most the depth left below level.
func skipChecked(b []byte, v, level int) (int, bool) {
	end := jsonguard.ValueEnd(b, v)
	return end, jsonguard.Check(b[v:end], ndjson.DefaultMaxDepth-level) == nil
}

// literal reports whether b[v:] starts with lit; the byte after it is
// checked by the caller's next step.
func literal(b []byte, v int, lit string) bool {
	return len(b)-v >= len(lit) && string(b[v:v+len(lit)]) == lit
}

// fastEvent validates a line and walks its top-level object in one pass:
// it returns the "type" member's value as ndjson.Frame.Type would (typOK
// false when it is absent or not a string) and decodes an "item" member
// into ev, whose Item points at a zero wireItem, as Decode would. fast is
// false when the line is invalid or outside the shape it handles (see
// above); ev is then in an unspecified state and the caller must reset it
// and use Type and Decode.
func fastEvent(b []byte, ev *wireItemEvent) (typ []byte, typOK, fast bool) {
	return walkEvent(b, ev, nil)
}

// walkRecord is where walkEvent found what it read, for learning the line
// as a shape (itemShapes.learn): the "type" literal (start and end; end 0
// when "type" is absent or not a string), whether "item" is an object,
// and the item fields it decoded, in order, with their values (start and
// end). reset readies it for a line.
type walkRecord struct {
	typ    [2]int
	item   bool
	n      int
	fields [fCount]itemField
	at     [fCount][2]int
}

func (r *walkRecord) reset() { r.typ, r.item, r.n = [2]int{}, false, 0 }

// walkEvent is fastEvent, recording in rec (when not nil) where it found
// what it read.
func walkEvent(b []byte, ev *wireItemEvent, rec *walkRecord) (typ []byte, typOK, fast bool) {
	i, empty, ok := openObject(b, jsonguard.SkipWS(b, 0))
	if !ok {
		return nil, false, false
	}
	if empty {
		return nil, false, jsonguard.SkipWS(b, i) == len(b)
	}
	seenItem, seenType := false, false
	for {
		name, v, ok := member(b, i)
		if !ok {
			return nil, false, false
		}
		var end int
		switch {
		case string(name) == "type":
			if seenType {
				return nil, false, false
			}
			seenType = true
			if b[v] == '"' {
				if typ, end, ok = typeAt(b, v); !ok {
					return nil, false, false
				}
				typOK = true
				if rec != nil {
					rec.typ = [2]int{v, end}
				}
			} else if end, ok = skipChecked(b, v, depthTop); !ok {
				return nil, false, false
			}
		case string(name) == "item":
			if seenItem {
				return nil, false, false
			}
			seenItem = true
			if literal(b, v, "null") {
				ev.Item = nil
				end = v + 4
			} else if end, ok = fastItem(b, v, ev.Item, rec); !ok {
				return nil, false, false
			} else if rec != nil {
				rec.item = true
			}
		case !plainName(name, "item"):
			return nil, false, false
		default:
			if end, ok = skipChecked(b, v, depthTop); !ok {
				return nil, false, false
			}
		}
		var more bool
		if i, more, ok = next(b, end); !ok {
			return nil, false, false
		}
		if !more {
			return typ, typOK, jsonguard.SkipWS(b, i) == len(b)
		}
	}
}

// typeAt reads the "type" literal at b[v] (a quote) as the walk takes it,
// unescaped, and returns its value and the index just past it: plain
// ASCII up to the quote (every type codex writes) is taken as it is; any
// other literal must be valid, without escapes, and valid UTF-8, or ok is
// false and the walk gives up.
func typeAt(b []byte, v int) (typ []byte, end int, ok bool) {
	end = v + 1
	for end < len(b) && b[end] != '"' && b[end] != '\\' && 0x20 <= b[end] && b[end] < 0x80 {
		end++
	}
	if end < len(b) && b[end] == '"' {
		return b[v+1 : end], end + 1, true
	}
	return typeEscaped(b, v)
}

// typeEscaped is typeAt for a literal that is not plain ASCII.
func typeEscaped(b []byte, v int) (typ []byte, end int, ok bool) {
	end, esc, ok := jsonguard.StringEnd(b, v)
	if !ok || esc || !utf8.Valid(b[v+1:end-1]) {
		return nil, 0, false
	}
	return b[v+1 : end-1], end, true
}

// fastItem decodes the item object at b[i] into it and returns the index
// just past it, recording in rec (when not nil) where each field's value
// lies.
func fastItem(b []byte, i int, it *wireItem, rec *walkRecord) (int, bool) {
	i, empty, ok := openObject(b, i)
	if !ok {
		return 0, false
	}
	if empty {
		return i, true
	}
	var seen [fCount]bool
	for {
		name, v, ok := member(b, i)
		if !ok {
			return 0, false
		}
		fld := itemFieldOf(name)
		if fld == fNone {
			if !plainName(name, itemFieldNames[:]...) {
				return 0, false
			}
		} else if seen[fld] {
			return 0, false
		}
		seen[fld] = true
		var end int
		if fld == fNone {
			end, ok = skipChecked(b, v, depthItem)
		} else {
			end, ok = itemValue(fld, b, v, -1, it)
			if rec != nil {
				rec.fields[rec.n], rec.at[rec.n] = fld, [2]int{v, end}
				rec.n++
			}
		}
		if !ok {
			return 0, false
		}
		var more bool
		if i, more, ok = next(b, end); !ok {
			return 0, false
		}
		if !more {
			return i, true
		}
	}
}

// itemValue decodes the value at b[v] of the item field fld into it and
// returns the index just past it; ok is false for a value the walk gives
// up on. known, when not negative, is the end of a value already
// validated within the depth of an item member (a shape's match): a value
// the walk would check with skipChecked is then not checked again, and a
// string is decoded without validating it again (jsonguard.String).
func itemValue(fld itemField, b []byte, v, known int, it *wireItem) (end int, ok bool) {
	switch fld {
	case fID, fType, fText, fCommand, fAggregatedOutput, fStatus, fServer, fTool, fQuery, fMessage:
		// String members: decoded where they stand, the decoder finding
		// their end.
		switch b[v] {
		case 'n':
			if !literal(b, v, "null") {
				return 0, false
			}
			switch fld {
			case fText:
				it.Text = ""
			case fAggregatedOutput:
				it.AggregatedOutput = ""
			}
			return v + 4, true
		case '"':
		default:
			return 0, false
		}
		var s string
		switch fld {
		case fType:
			it.Type, end, ok = constAt(b, v, known, itemTypes[:])
			return end, ok
		case fStatus:
			it.Status, end, ok = constAt(b, v, known, itemStatuses[:])
			return end, ok
		case fID:
			it.ID, end, ok = idAt(b, v, known, it.prevID)
			return end, ok
		case fCommand:
			it.Command, end, ok = idAt(b, v, known, it.prevCommand)
			return end, ok
		}
		if s, end, ok = stringAt(b, v, known); !ok {
			return 0, false
		}
		switch fld {
		case fText:
			it.Text = jsonText(s)
		case fAggregatedOutput:
			it.AggregatedOutput = jsonText(s)
		case fServer:
			it.Server = s
		case fTool:
			it.Tool = s
		case fQuery:
			it.Query = s
		case fMessage:
			it.Message = s
		}
		return end, true
	case fExitCode:
		return exitCodeAt(b, v, it)
	}
	if end = known; end < 0 {
		if end, ok = skipChecked(b, v, depthItem); !ok {
			return 0, false
		}
	}
	val := b[v:end]
	null := string(val) == "null"
	ok = true
	switch fld {
	case fChanges:
		ok = fastChanges(val, null, &it.Changes)
	case fArguments:
		// The raw members are read during this Feed call only (anyOf
		// decodes them into fresh values), so they alias the line.
		it.Arguments = val
	case fResult:
		it.Result = val
	case fError:
		it.Error = val
	case fAction:
		it.Action = val
	case fItems:
		ok = fastTodos(val, null, &it.Items)
	}
	return end, ok
}

// exitCodeAt decodes the exit_code member at b[v] into it: null, or an
// integer written plainly (-?(0|[1-9][0-9]*), at most 18 digits), which
// is what codex writes; the caller's next step checks the byte after it.
// Any other value (a fraction, an exponent, a string) gives up.
func exitCodeAt(b []byte, v int, it *wireItem) (int, bool) {
	if literal(b, v, "null") {
		it.ExitCode = nil
		return v + 4, true
	}
	j := v
	if j < len(b) && b[j] == '-' {
		j++
	}
	d := j
	for j < len(b) && '0' <= b[j] && b[j] <= '9' {
		j++
	}
	if j == d || b[d] == '0' && j-d > 1 {
		return 0, false // no digit, or a leading zero
	}
	n, ok := jsonguard.PlainInt(b[v:j])
	if !ok {
		return 0, false
	}
	it.exit = int(n)
	it.ExitCode = &it.exit
	return j, true
}

// setString stores a string member; null leaves the field unchanged, as
// encoding/json does for a non-pointer string.
func setString(dst *string, val []byte, null bool) bool {
	if null {
		return true
	}
	s, ok := stringValue(val)
	if ok {
		*dst = s
	}
	return ok
}

// constAt decodes the string member at b[i] (a quote), sharing the
// element of consts it equals instead of allocating (the item types and
// statuses). known, when not negative, is the end of the literal, already
// validated (itemValue).
func constAt(b []byte, i, known int, consts []string) (string, int, bool) {
	end := known
	if end < 0 {
		if q := bytes.IndexByte(b[i+1:], '"'); q >= 0 {
			end = i + q + 2
		}
	}
	if end >= 0 {
		// A constant has no escape: equal bytes are the literal whole.
		raw := b[i+1 : end-1]
		for _, t := range consts {
			if len(t) == len(raw) && string(raw) == t {
				return t, end, true
			}
		}
	}
	return stringAt(b, i, known)
}

// idAt decodes the id (or command) member at b[i] (a quote), sharing
// prev when it is the same string written without escapes; known as for
// constAt.
func idAt(b []byte, i, known int, prev string) (string, int, bool) {
	if prev != "" && len(b)-i >= len(prev)+2 && b[i+1+len(prev)] == '"' && string(b[i+1:i+1+len(prev)]) == prev {
		return prev, i + len(prev) + 2, true
	}
	return stringAt(b, i, known)
}

// stringAt decodes the string literal at b[i]: validated and decoded by
// jsonguard.StringAt, or, when known is not negative (the end of the
// literal, already validated), decoded by jsonguard.String.
func stringAt(b []byte, i, known int) (string, int, bool) {
	if known < 0 {
		return jsonguard.StringAt(b, i)
	}
	s, ok := jsonguard.String(b[i:known])
	return s, known, ok
}

// itemStatuses are the statuses of the items codex writes.
var itemStatuses = [...]string{"in_progress", "completed", "failed", "declined"}

// elements calls fn for each element of the array val (validated), and
// fails on a non-array other than null.
func elements(val []byte, fn func(b []byte, i int) (int, bool)) bool {
	if len(val) == 0 || val[0] != '[' {
		return false
	}
	i := jsonguard.SkipWS(val, 1)
	if i < len(val) && val[i] == ']' {
		return true
	}
	for {
		if i >= len(val) || val[i] != '{' {
			return false // null and scalar elements go to the reflective decoder
		}
		end, ok := fn(val, i)
		if !ok {
			return false
		}
		i = jsonguard.SkipWS(val, end)
		if i >= len(val) {
			return false
		}
		switch val[i] {
		case ',':
			i = jsonguard.SkipWS(val, i+1)
		case ']':
			return true
		default:
			return false
		}
	}
}

// fields walks the members of the object at b[i], calling set for each
// with its raw name and value; set reports false to give up.
func fields(b []byte, i int, names []string, set func(name, val []byte) bool) (int, bool) {
	i, empty, ok := openObject(b, i)
	if !ok {
		return 0, false
	}
	if empty {
		return i, true
	}
	var seen uint32 // one bit per name
	for {
		name, v, ok := member(b, i)
		if !ok {
			return 0, false
		}
		k := -1
		for j, n := range names {
			if string(name) == n {
				k = j
			}
		}
		if k < 0 {
			if !plainName(name, names...) {
				return 0, false
			}
		} else if seen&(1<<k) != 0 {
			return 0, false
		} else {
			seen |= 1 << k
		}
		end := jsonguard.ValueEnd(b, v)
		if k >= 0 && !set(name, b[v:end]) {
			return 0, false
		}
		var more bool
		if i, more, ok = next(b, end); !ok {
			return 0, false
		}
		if !more {
			return i, true
		}
	}
}

var changeNames = []string{"path", "kind", "diff"}

func fastChanges(val []byte, null bool, dst *[]wireChange) bool {
	if null {
		*dst = nil
		return true
	}
	cs := []wireChange{}
	ok := elements(val, func(b []byte, i int) (int, bool) {
		var c wireChange
		end, ok := fields(b, i, changeNames, func(name, v []byte) bool {
			null := string(v) == "null"
			switch string(name) {
			case "path":
				return setString(&c.Path, v, null)
			case "kind":
				return setString(&c.Kind, v, null)
			}
			if null {
				c.Diff = nil
				return true
			}
			s, ok := stringValue(v)
			c.Diff = &s
			return ok
		})
		cs = append(cs, c)
		return end, ok
	})
	*dst = cs
	return ok
}

var todoNames = []string{"text", "completed"}

func fastTodos(val []byte, null bool, dst *[]wireTodo) bool {
	if null {
		*dst = nil
		return true
	}
	ts := []wireTodo{}
	ok := elements(val, func(b []byte, i int) (int, bool) {
		var t wireTodo
		end, ok := fields(b, i, todoNames, func(name, v []byte) bool {
			null := string(v) == "null"
			if string(name) == "text" {
				return setString(&t.Text, v, null)
			}
			switch string(v) {
			case "true":
				t.Completed = true
			case "false":
				t.Completed = false
			case "null":
			default:
				return false
			}
			return true
		})
		ts = append(ts, t)
		return end, ok
	})
	*dst = ts
	return ok
}
