package claude

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// The assistant and user line fast path. Without partial messages nearly
// every line is an assistant line with one content block (text, thinking
// or tool_use) or a user line with tool_result blocks:
//
//	{"type":"assistant","message":{"id":"msg_...","type":"message","role":"assistant",
//	 "model":"...","content":[{"type":"text","text":"..."}],"stop_reason":null,
//	 "usage":{...}},"parent_tool_use_id":null,"session_id":"...","uuid":"..."}
//
// fastAssistant and fastUser read such a line in one pass that validates
// as it goes (jsonguard's strict readers) and fill the decode target as
// f.Decode would, instead of the reflective decoder, which scans the line
// for its flags before decoding it, once more for every value it hands to
// an UnmarshalJSON method, and decodes each content block again behind
// the depth guard (lineBlock). They take only the lines whose result they
// can give exactly: member names without escapes, each member the decoder
// reads at most once and of the type this reads, no name the decoder
// would match case insensitively, content blocks that are objects,
// values nested at most lineDepth deep. On anything else (invalid JSON
// included) they decline and Feed decodes the line, which gives the same
// result or the error. FuzzLineFast holds the two to the same result.

// lineDepth bounds the nesting of the values the fast path validates whole
// (a tool's input, citations, a tool result's blocks, members it skips);
// a deeper value is left to the decoder.
const lineDepth = 32

// The field names of the decode targets as the decoder matches them (see
// foldsTo): a member of another name is skipped, unless it matches one of
// these case insensitively.
var (
	assistantFields = newFieldSet("type", "session_id", "message", "parent_tool_use_id", "error",
		"is_api_error_message", "api_error_status", "api_error_type")
	assistantMessageFields = newFieldSet("id", "model", "content", "stop_reason", "usage")
	usageFields            = newFieldSet("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
	blockFields            = newFieldSet("type", "text", "citations", "thinking", "signature", "data", "id", "name",
		"input", "server_name", "tool_use_id", "content", "is_error")
	userFields        = newFieldSet("type", "session_id", "message", "parent_tool_use_id", "isSynthetic", "isReplay")
	userMessageFields = newFieldSet("content")
)

// fieldSet is the field names of a decode target, with the set of their
// lengths: an ASCII name can fold only to a name of its own length.
type fieldSet struct {
	names []string
	lens  uint64 // bit n: a name of n bytes (bit 63: 63 or more)
}

func newFieldSet(names ...string) fieldSet {
	s := fieldSet{names: names}
	for _, n := range names {
		s.lens |= 1 << min(len(n), 63)
	}
	allFieldSets = append(allFieldSets, s)
	return s
}

// allFieldSets is every fieldSet made, for TestCommonNames.
var allFieldSets []fieldSet

// commonName reports whether the member name literal lit is one of the
// names Claude Code writes on every line that no decode target has, folded
// or not (TestCommonNames checks them against every field set): foldsTo
// answers false for them at once.
func commonName(lit []byte) bool {
	switch string(lit) {
	case `"uuid"`, `"timestamp"`, `"request_id"`, `"role"`, `"stop_sequence"`, `"context_management"`,
		`"tool_use_result"`, `"tool_result_meta"`, `"service_tier"`, `"cache_creation"`,
		`"ephemeral_5m_input_tokens"`, `"ephemeral_1h_input_tokens"`, `"server_tool_use"`:
		return true
	}
	return false
}

// foldsTo reports whether the member name literal lit is not one of
// fields exactly but the decoder could still take it for one: it has an
// escape, or it equals one case insensitively (Unicode folding included:
// "ſ" folds to 's', "K" to 'k').
func foldsTo(lit []byte, fields fieldSet) bool {
	if commonName(lit) {
		return false
	}
	name := lit[1 : len(lit)-1]
	if plainName(name) {
		// The common case. An ASCII name folds only to a field of its
		// own length, by ASCII case only: its first byte is the field's
		// but for bit 0x20 (fields are not empty).
		if len(name) == 0 || fields.lens&(1<<min(len(name), 63)) == 0 {
			return false
		}
		for _, f := range fields.names {
			if len(f) == len(name) && (f[0]^name[0])&^0x20 == 0 && bytes.EqualFold(name, []byte(f)) {
				return true
			}
		}
		return false
	}
	if bytes.IndexByte(name, '\\') >= 0 {
		return true
	}
	for _, f := range fields.names {
		// A non-ASCII name may fold to a shorter field ("ſ" is two
		// bytes).
		if bytes.EqualFold(name, []byte(f)) {
			return true
		}
	}
	return false
}

// plainName reports whether name holds neither a backslash nor a byte of
// 0x80 or more, eight bytes at a time (the last eight, or two four-byte
// halves of a shorter name, overlapping what was looked at).
func plainName(name []byte) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	special := func(x uint64) uint64 {
		v := x ^ ones*'\\' // a zero byte where x has a backslash
		return (x | (v-ones)&^v) & highs
	}
	switch n := len(name); {
	case n >= 8:
		var m uint64
		for i := 0; i+8 <= n; i += 8 {
			m |= special(binary.LittleEndian.Uint64(name[i:]))
		}
		return m|special(binary.LittleEndian.Uint64(name[n-8:])) == 0
	case n >= 4:
		return special(uint64(binary.LittleEndian.Uint32(name))|uint64(binary.LittleEndian.Uint32(name[n-4:]))<<32) == 0
	}
	for _, c := range name {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// fastAssistant fills l, reset, from the assistant line d as f.Decode(l)
// would, for a line whose one "type" member is "assistant"; it reports
// false (l then unspecified) when it declines. A usage object is decoded
// into the Parser's room (p.usage) rather than a new one, as nothing keeps
// m.Usage after Feed returns, and one of the same bytes as the last is
// not read again (p.usageMemo).
func (p *Parser) fastAssistant(d []byte, l *assistantFast) bool {
	if len(d) == 0 || d[0] != '{' {
		return false
	}
	var seen uint
	end := jsonguard.StrictMembers(d, 0, func(name []byte, i int) int {
		switch string(name) {
		case `"type"`:
			if !once(&seen, 0) || !jsonguard.HasLiteral(d, i, `"assistant"`) {
				return -1
			}
			l.Type = typeField{n: 1, v: "assistant"}
			return i + len(`"assistant"`)
		case `"session_id"`:
			if !once(&seen, 1) {
				return -1
			}
			return fastID(d, i, &l.SessionID)
		case `"message"`:
			if !once(&seen, 2) {
				return -1
			}
			return p.fastAssistantMessage(d, i, &l.Message)
		case `"parent_tool_use_id"`:
			if !once(&seen, 3) {
				return -1
			}
			return fastString(d, i, &l.ParentToolUseID)
		case `"error"`:
			if !once(&seen, 4) {
				return -1
			}
			return fastLenient(d, i, &l.Error)
		case `"is_api_error_message"`:
			if !once(&seen, 5) {
				return -1
			}
			return fastBool(d, i, &l.IsAPIErrorMessage)
		case `"api_error_status"`:
			if !once(&seen, 6) {
				return -1
			}
			end := jsonguard.StrictValue(d, i, lineDepth)
			if end >= 0 {
				l.APIErrorStatus = append([]byte(nil), d[i:end]...) // the decoder copies a RawMessage
			}
			return end
		case `"api_error_type"`:
			if !once(&seen, 7) {
				return -1
			}
			return fastString(d, i, &l.APIErrorType)
		}
		return fastSkip(d, name, i, assistantFields)
	})
	// The line's one "type", read above.
	return end >= 0 && jsonguard.SkipWS(d, end) == len(d) && seen&1 != 0
}

// fastAssistantMessage reads the message object (or null) at d[i] into m.
func (p *Parser) fastAssistantMessage(d []byte, i int, m *assistantMessage) int {
	if d[i] != '{' {
		return fastNull(d, i)
	}
	var seen uint
	return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		switch string(name) {
		case `"id"`:
			if !once(&seen, 0) {
				return -1
			}
			return p.msgIDMemo.read(d, i, &m.ID)
		case `"model"`:
			if !once(&seen, 1) {
				return -1
			}
			return p.modelMemo.read(d, i, &m.Model)
		case `"content"`:
			if !once(&seen, 2) {
				return -1
			}
			if d[i] != '[' {
				return fastNull(d, i) // null: the decoder sets the slice nil
			}
			return fastBlocks(d, i, &m.Content)
		case `"stop_reason"`:
			if !once(&seen, 3) {
				return -1
			}
			return fastString(d, i, &m.StopReason)
		case `"usage"`:
			if !once(&seen, 4) {
				return -1
			}
			if d[i] != '{' {
				return fastNull(d, i) // m.Usage stays nil
			}
			u := &p.usage
			m.Usage = u
			// The lines of a message repeat its usage byte for byte.
			return p.fastUsageMemo(d, i, u)
		}
		return fastSkip(d, name, i, assistantMessageFields)
	})
}

// usageMemo is the last usage object the fast paths read: its bytes and
// their reading. An object of the same bytes reads the same (they were
// validated then, at the same depth); so do its members after the nth
// (n < memoMembers) when an object's bytes after its own nth member's
// value are the same as the memo's after its nth (the usage of the next
// message has other token counts but, after them, the same members:
// cache_creation, service_tier and the like).
type usageMemo struct {
	b []byte
	u apiUsage
	// n members recorded; ends[m]: the offset in b just past member m's
	// value; seen[m]: the fields read up to member m (fastUsage's bits);
	// all: the fields read in the whole object.
	n    int
	ends [memoMembers]int
	seen [memoMembers]uint
	all  uint
}

// memoMembers bounds the members of a usage object usageMemo records.
const memoMembers = 8

// usageField returns the field of u that fastUsage's bit names.
func usageField(u *apiUsage, bit uint) *int {
	switch bit {
	case 0:
		return &u.InputTokens
	case 1:
		return &u.CacheCreationInputTokens
	case 2:
		return &u.CacheReadInputTokens
	}
	return &u.OutputTokens
}

// fastUsage reads the usage object at d[i] ('{') into u. After each of
// its first memoMembers members it looks whether the rest of the object
// is memo's rest after its member of the same index, and if so takes
// memo's reading of those members instead of reading them (declining
// when one would read a field this object has already read). Otherwise
// it records the members' ends in rec (rec.n -1: it did not read the
// object whole).
func fastUsage(d []byte, i int, u *apiUsage, memo, rec *usageMemo) int {
	var seen uint
	m := 0
	end := jsonguard.StrictMembers(d, i, func(name []byte, j int) int {
		var dst *int
		var bit uint
		var end int
		switch string(name) {
		case `"input_tokens"`:
			dst, bit = &u.InputTokens, 0
		case `"cache_creation_input_tokens"`:
			dst, bit = &u.CacheCreationInputTokens, 1
		case `"cache_read_input_tokens"`:
			dst, bit = &u.CacheReadInputTokens, 2
		case `"output_tokens"`:
			dst, bit = &u.OutputTokens, 3
		default:
			end = fastSkip(d, name, j, usageFields)
		}
		if dst != nil {
			if !once(&seen, bit) {
				return -1
			}
			end = fastInt(d, j, dst)
		}
		if end < 0 || m >= memoMembers || rec.n < 0 {
			return end
		}
		if m < memo.n {
			// memo.b[memo.ends[m]:] ends with the object's closing brace:
			// returning its index makes StrictMembers end the object there.
			rest := memo.b[memo.ends[m]:]
			later := memo.all &^ memo.seen[m]
			if bytes.HasPrefix(d[end:], rest) {
				if seen&later != 0 {
					return -1 // a field read twice: the decoder's case
				}
				for b := uint(0); b < 4; b++ {
					if later&(1<<b) != 0 {
						*usageField(u, b) = *usageField(&memo.u, b)
					}
				}
				rec.n = -1 // not recorded whole
				return end + len(rest) - 1
			}
		}
		rec.ends[m], rec.seen[m] = end-i, seen
		m++
		rec.n = m
		return end
	})
	rec.all = seen
	return end
}

// fastBlocks reads the array of content blocks at d[i] ('[') into *dst,
// appending to its room as the decoder does. Every element must be an
// object that decodes as a contentBlock: a block the decoder would record
// as bad (lineBlock.err) is left to it.
func fastBlocks(d []byte, i int, dst *[]lineBlock) int {
	blocks := (*dst)[:0]
	end := jsonguard.StrictElements(d, i, func(i int) int {
		if d[i] != '{' {
			return -1
		}
		blocks = append(blocks, lineBlock{})
		lb := &blocks[len(blocks)-1]
		end := fastBlock(d, i, &lb.contentBlock)
		if end >= 0 {
			lb.raw = d[i:end]
		}
		return end
	})
	*dst = blocks
	return end
}

// fastBlock reads the content block object at d[i] ('{') into b.
func fastBlock(d []byte, i int, b *contentBlock) int {
	var seen uint
	return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		var dst *string
		var bit uint
		switch string(name) {
		case `"type"`:
			if !once(&seen, 0) {
				return -1
			}
			return fastBlockType(d, i, &b.Type)
		case `"text"`:
			dst, bit = &b.Text, 1
		case `"thinking"`:
			dst, bit = &b.Thinking, 2
		case `"signature"`:
			dst, bit = &b.Signature, 3
		case `"data"`:
			dst, bit = &b.Data, 4
		case `"id"`:
			dst, bit = &b.ID, 5
		case `"name"`:
			dst, bit = &b.Name, 6
		case `"server_name"`:
			dst, bit = &b.ServerName, 7
		case `"tool_use_id"`:
			dst, bit = &b.ToolUseID, 8
		case `"citations"`:
			if !once(&seen, 9) {
				return -1
			}
			return fastAny(d, i, &b.Citations)
		case `"input"`:
			if !once(&seen, 10) {
				return -1
			}
			return fastAny(d, i, &b.Input)
		case `"content"`:
			if !once(&seen, 11) {
				return -1
			}
			return fastToolContent(d, i, &b.Content)
		case `"is_error"`:
			if !once(&seen, 12) {
				return -1
			}
			return fastBool(d, i, &b.IsError)
		default:
			return fastSkip(d, name, i, blockFields)
		}
		if !once(&seen, bit) {
			return -1
		}
		return fastString(d, i, dst)
	})
}

// blockTypes are the content block types of nearly every line, as
// literals: fastBlockType gives them as these strings, not new ones.
var blockTypes = [...]string{`"text"`, `"tool_use"`, `"tool_result"`, `"thinking"`}

// fastBlockType is fastString for a block's type.
func fastBlockType(d []byte, i int, dst *string) int {
	for _, t := range blockTypes {
		if jsonguard.HasLiteral(d, i, t) {
			*dst = t[1 : len(t)-1]
			return i + len(t)
		}
	}
	return fastString(d, i, dst)
}

// strMemo is the last string literal a field was read from, with its
// value: the same literal again (the model of every line, the id of a
// message's next line) is that value, not a new string. A literal equal
// to one read before is valid and decodes the same.
type strMemo struct {
	lit []byte
	v   string
}

// read is fastString through the memo. Literals of at most 128 bytes are
// remembered.
func (sm *strMemo) read(d []byte, i int, dst *string) int {
	if n := len(sm.lit); n > 0 && len(d)-i >= n && string(d[i:i+n]) == string(sm.lit) {
		*dst = sm.v
		return i + n
	}
	end := fastString(d, i, dst)
	if end > i && d[i] == '"' && end-i <= 128 {
		sm.lit = append(sm.lit[:0], d[i:end]...)
		sm.v = *dst
	}
	return end
}

// fastToolContent reads a tool_result's content at d[i] into c as
// toolContent.UnmarshalJSON does.
func fastToolContent(d []byte, i int, c *toolContent) int {
	switch d[i] {
	case 'n':
		return fastNull(d, i)
	case '"':
		s, end, ok := jsonguard.StringAt(d, i)
		if !ok {
			return -1
		}
		c.kind, c.text = contentString, s
		return end
	}
	end := jsonguard.StrictValue(d, i, lineDepth)
	if end >= 0 {
		v, ok := jsonguard.DecodeChecked(d[i:end])
		if !ok {
			v = nil
		}
		c.fromValue(v)
	}
	return end
}

// fastUser fills l, reset, from the user line d as f.Decode(l) would, for
// a line whose one "type" member is "user"; it reports false (l then
// unspecified) when it declines.
func fastUser(d []byte, l *userFast) bool {
	if len(d) == 0 || d[0] != '{' {
		return false
	}
	var seen uint
	end := jsonguard.StrictMembers(d, 0, func(name []byte, i int) int {
		switch string(name) {
		case `"type"`:
			if !once(&seen, 0) || !jsonguard.HasLiteral(d, i, `"user"`) {
				return -1
			}
			l.Type = typeField{n: 1, v: "user"}
			return i + len(`"user"`)
		case `"session_id"`:
			if !once(&seen, 1) {
				return -1
			}
			return fastID(d, i, &l.SessionID)
		case `"message"`:
			if !once(&seen, 2) {
				return -1
			}
			return fastUserMessage(d, i, &l.Message.Content)
		case `"parent_tool_use_id"`:
			if !once(&seen, 3) {
				return -1
			}
			return fastString(d, i, &l.ParentToolUseID)
		case `"isSynthetic"`:
			if !once(&seen, 4) {
				return -1
			}
			return fastBool(d, i, &l.IsSynthetic)
		case `"isReplay"`:
			if !once(&seen, 5) {
				return -1
			}
			return fastBool(d, i, &l.IsReplay)
		}
		return fastSkip(d, name, i, userFields)
	})
	// The line's one "type", read above.
	return end >= 0 && jsonguard.SkipWS(d, end) == len(d) && seen&1 != 0
}

// fastUserMessage reads a user line's message object (or null) at d[i],
// its content into c as userContent.UnmarshalJSON does.
func fastUserMessage(d []byte, i int, c *userContent) int {
	if d[i] != '{' {
		return fastNull(d, i)
	}
	seen := false
	return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		if string(name) != `"content"` {
			return fastSkip(d, name, i, userMessageFields)
		}
		if seen {
			return -1
		}
		seen = true
		switch d[i] {
		case 'n':
			return fastNull(d, i)
		case '"':
			s, end, ok := jsonguard.StringAt(d, i)
			if !ok {
				return -1
			}
			c.kind, c.text = contentString, s
			return end
		case '[':
			c.kind = contentBlocks
			return fastBlocks(d, i, &c.blocks)
		}
		c.kind = contentRaw
		return jsonguard.StrictValue(d, i, lineDepth)
	})
}

// once sets bit in *seen and reports whether it was clear: a second
// member of a name the fast path reads declines.
func once(seen *uint, bit uint) bool {
	if *seen&(1<<bit) != 0 {
		return false
	}
	*seen |= 1 << bit
	return true
}

// fastSkip validates the value at d[i] of a member the decoder does not
// read, declining when its name (lit) is one the decoder could take for
// one of fields.
func fastSkip(d, lit []byte, i int, fields fieldSet) int {
	if foldsTo(lit, fields) {
		return -1
	}
	return jsonguard.StrictValue(d, i, lineDepth)
}

// fastNull returns the end of null at d[i], or -1.
func fastNull(d []byte, i int) int {
	if !jsonguard.HasLiteral(d, i, "null") {
		return -1
	}
	return i + 4
}

// fastString reads a string into *dst, or null (leaving it).
func fastString(d []byte, i int, dst *string) int {
	if d[i] != '"' {
		return fastNull(d, i)
	}
	s, end, ok := jsonguard.StringAt(d, i)
	if !ok {
		return -1
	}
	*dst = s
	return end
}

// fastBool reads true or false into *dst, or null (leaving it).
func fastBool(d []byte, i int, dst *bool) int {
	switch {
	case jsonguard.HasLiteral(d, i, "true"):
		*dst = true
		return i + 4
	case jsonguard.HasLiteral(d, i, "false"):
		*dst = false
		return i + 5
	}
	return fastNull(d, i)
}

// fastInt reads an integer of at most 18 digits into *dst, or null
// (leaving it); any other number is left to the decoder.
func fastInt(d []byte, i int, dst *int) int {
	if d[i] == 'n' {
		return fastNull(d, i)
	}
	end := jsonguard.StrictNumber(d, i)
	if end < 0 {
		return -1
	}
	n, ok := jsonguard.PlainInt(d[i:end])
	if !ok {
		return -1
	}
	*dst = int(n)
	return end
}

// fastAny reads any value into a as jsonguard.Any.UnmarshalJSON does.
func fastAny(d []byte, i int, a *jsonguard.Any) int {
	end := jsonguard.StrictValue(d, i, lineDepth)
	if end >= 0 {
		if v, ok := jsonguard.DecodeChecked(d[i:end]); ok {
			a.V = v
		}
	}
	return end
}

// fastID reads a session id into f as idField.UnmarshalJSON does, for an
// id without escapes that fits its room, or null; any other is left to
// the decoder.
func fastID(d []byte, i int, f *idField) int {
	if d[i] != '"' {
		return fastNull(d, i)
	}
	end, escaped, ok := jsonguard.StringEnd(d, i)
	if !ok || escaped || end-i-2 > len(f.b) {
		return -1
	}
	f.set, f.n = true, copy(f.b[:], d[i+1:end-1])
	return end
}

// systemFields are systemLine's and the envelope's field names.
var systemFields = newFieldSet("type", "session_id", "subtype", "model", "cwd", "claude_code_version", "permissionMode",
	"apiKeySource", "output_style", "attempt", "max_retries", "retry_delay_ms", "error_status", "error",
	"task_id", "tool_use_id", "description", "status", "summary", "parent_tool_use_id")

// fastSystem fills l, zeroed, from the system line d as f.Decode(l) would,
// for a line whose one "type" member is "system"; it reports false (l
// then unspecified) when it declines.
func fastSystem(d []byte, l *systemFast) bool {
	if len(d) == 0 || d[0] != '{' {
		return false
	}
	var seen uint
	end := jsonguard.StrictMembers(d, 0, func(name []byte, i int) int {
		var dst *string
		var bit uint
		switch string(name) {
		case `"type"`:
			if !once(&seen, 0) || !jsonguard.HasLiteral(d, i, `"system"`) {
				return -1
			}
			l.Type = typeField{n: 1, v: "system"}
			return i + len(`"system"`)
		case `"session_id"`:
			if !once(&seen, 1) {
				return -1
			}
			// Of valid UTF-8, the id is also what Frame.Peek returns, the
			// general path's reading of it.
			end := fastID(d, i, &l.SessionID)
			if end >= 0 && !utf8.Valid(l.SessionID.bytes()) {
				return -1
			}
			return end
		case `"attempt"`:
			if !once(&seen, 2) {
				return -1
			}
			return fastInt(d, i, &l.Attempt)
		case `"max_retries"`:
			if !once(&seen, 3) {
				return -1
			}
			return fastInt(d, i, &l.MaxRetries)
		case `"retry_delay_ms"`:
			if !once(&seen, 4) {
				return -1
			}
			return fastDelay(d, i, &l.RetryDelayMS)
		case `"error_status"`:
			if !once(&seen, 5) {
				return -1
			}
			end := jsonguard.StrictValue(d, i, lineDepth)
			if end >= 0 {
				l.ErrorStatus = append([]byte(nil), d[i:end]...) // the decoder copies a RawMessage
			}
			return end
		case `"error"`:
			if !once(&seen, 6) {
				return -1
			}
			return fastLenient(d, i, &l.Error)
		case `"subtype"`:
			dst, bit = &l.Subtype, 7
		case `"model"`:
			dst, bit = &l.Model, 8
		case `"cwd"`:
			dst, bit = &l.CWD, 9
		case `"claude_code_version"`:
			dst, bit = &l.ClaudeCodeVersion, 10
		case `"permissionMode"`:
			dst, bit = &l.PermissionMode, 11
		case `"apiKeySource"`:
			dst, bit = &l.APIKeySource, 12
		case `"output_style"`:
			dst, bit = &l.OutputStyle, 13
		case `"task_id"`:
			dst, bit = &l.TaskID, 14
		case `"tool_use_id"`:
			dst, bit = &l.ToolUseID, 15
		case `"description"`:
			dst, bit = &l.Description, 16
		case `"status"`:
			dst, bit = &l.Status, 17
		case `"summary"`:
			dst, bit = &l.Summary, 18
		case `"parent_tool_use_id"`:
			dst, bit = &l.ParentToolUseID, 19
		default:
			return fastSkip(d, name, i, systemFields)
		}
		if !once(&seen, bit) {
			return -1
		}
		return fastString(d, i, dst)
	})
	return end >= 0 && jsonguard.SkipWS(d, end) == len(d) && seen&1 != 0
}

// fastLenient reads a lenient[string]: a string's value, anything else
// the zero value.
func fastLenient(d []byte, i int, l *lenient[string]) int {
	if d[i] != '"' {
		return jsonguard.StrictValue(d, i, lineDepth)
	}
	s, end, ok := jsonguard.StringAt(d, i)
	if !ok {
		return -1
	}
	*l = lenient[string]{v: s, ok: true}
	return end
}

// fastDelay reads a delay in milliseconds into *dst: a non-negative
// integer of at most 15 digits (which a float64 holds exactly, as the
// decoder's parse gives it), or null (leaving it); any other number is
// left to the decoder.
func fastDelay(d []byte, i int, dst *float64) int {
	if d[i] == 'n' {
		return fastNull(d, i)
	}
	end := jsonguard.StrictNumber(d, i)
	if end < 0 || end-i > 15 {
		return -1
	}
	n, ok := jsonguard.PlainInt(d[i:end])
	if !ok || n < 0 || d[i] == '-' {
		return -1
	}
	*dst = float64(n)
	return end
}
