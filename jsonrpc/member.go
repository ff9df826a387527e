package jsonrpc

import "github.com/agentwire/agentwire/internal/jsonguard"

// Members calls fn for each top-level member of the JSON object obj, in
// input order, with the member's name (the raw bytes between its quotes,
// escapes not resolved) and the exact bytes of its value, until fn returns
// false. It decodes nothing and allocates nothing: it is the cheap way to
// pick a few members of a message's Params or Result without decoding the
// large ones. obj must be valid JSON, as a classified Frame's Params,
// Result and Error are; on anything else (not an object, invalid JSON)
// Members may stop early but never panics or loops. The slices alias obj.
func Members(obj []byte, fn func(name, value []byte) bool) {
	i := jsonguard.SkipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i = jsonguard.SkipWS(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := jsonguard.ValueEnd(obj, i)
		if kEnd-1 <= i || obj[kEnd-1] != '"' {
			return
		}
		name := obj[i+1 : kEnd-1]
		i = jsonguard.SkipWS(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = jsonguard.SkipWS(obj, i+1)
		if i >= len(obj) {
			return
		}
		end := jsonguard.ValueEnd(obj, i)
		if end > len(obj) || end <= i {
			return
		}
		if !fn(name, obj[i:end]) {
			return
		}
		i = jsonguard.SkipWS(obj, end)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i = jsonguard.SkipWS(obj, i+1)
	}
}

// String returns the value of a JSON string token (with its quotes), as
// decoders produce it: escapes resolved and invalid UTF-8 replaced by
// U+FFFD. ok is false when tok is not exactly one valid string literal.
// The result shares no memory with tok. It is jsonguard's StringAt, the
// one string decoder of the module's hand-written walks.
func String(tok []byte) (s string, ok bool) {
	if len(tok) < 2 || tok[0] != '"' {
		return "", false
	}
	s, end, ok := jsonguard.StringAt(tok, 0)
	if !ok || end != len(tok) {
		return "", false
	}
	return s, true
}

// Members is the package's Members(obj, fn) for obj a value of f (Params,
// Result, Error, or a value that Members handed out for one of them): the
// same calls in the same order. A frame from a Reader or a Decoder keeps
// what its classifying pass saw of the objects nested in the message down
// to params' (or result's) members' members' members (an ACP
// session/update's params.update.content), so for those objects Members
// replays the members from there instead of walking obj again; for any
// other object, and for a frame from Classify, it walks obj as the
// package's Members does.
func (f *Frame) Members(obj []byte, fn func(name, value []byte) bool) {
	if f.index != nil && len(obj) > 0 && obj[0] == '{' {
		if o, ok := within(f.Data, obj); ok && replay(f.Data, f.index, o, fn) {
			return
		}
	}
	Members(obj, fn)
}

// replay calls fn for the members of the object at data[o] that the
// index holds (names between their quotes), in order, until fn returns
// false, and reports whether it held any. An object's members are
// consecutive entries of their level's, and the first of them is the
// first entry of that level ending after o (jsonguard.Index): a binary
// search per level finds it. The levels are tried from 2 (params' or
// result's members, and theirs), level 1 (the message's own members,
// which Members is not given) last.
func replay(data []byte, index *[jsonguard.MaxLevels][]jsonguard.Entry, o int, fn func(name, value []byte) bool) bool {
	for l := 1; l <= len(index); l++ {
		lv := index[l%len(index)]
		if len(lv) == 0 || int(lv[len(lv)-1].VE) <= o {
			continue
		}
		lo, hi := 0, len(lv)-1
		for lo < hi {
			if h := int(uint(lo+hi) >> 1); int(lv[h].VE) <= o {
				lo = h + 1
			} else {
				hi = h
			}
		}
		if int(lv[lo].Obj) != o {
			continue
		}
		for _, e := range lv[lo:] {
			if int(e.Obj) != o || !fn(data[e.NS+1:e.NE-1], data[e.VS:e.VE]) {
				break
			}
		}
		return true
	}
	return false
}
