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
// [Walk] is the same walk as an iterator.
func Members(obj []byte, fn func(name, value []byte) bool) {
	for it := Walk(obj); ; {
		name, v, ok := it.Next()
		if !ok || !fn(name, v) {
			return
		}
	}
}

// MemberIter goes through the top-level members of one object, as
// [Members] and [Frame.Members] do, one [MemberIter.Next] at a time: a
// loop over it costs no call per member, where Members calls its
// function for each. The zero MemberIter has no members.
type MemberIter struct {
	data []byte            // what the spans index: the frame's Data, or obj
	es   []jsonguard.Entry // the object's index entries and the rest of their level
	o    int32             // the object's offset in data, when es is set
	i    int               // the next entry, or the walk's position in data
	walk bool              // no index: walk data from i
}

// Walk returns the iterator over the members of obj that [Members] walks.
func Walk(obj []byte) MemberIter {
	it := MemberIter{data: obj, walk: true, i: jsonguard.SkipWS(obj, 0)}
	if it.i >= len(obj) || obj[it.i] != '{' {
		it.walk = false // not an object: no members
		return it
	}
	it.i = jsonguard.SkipWS(obj, it.i+1)
	return it
}

// Next returns the next member's name (between its quotes, escapes not
// resolved) and value, ok false when there is none.
func (it *MemberIter) Next() (name, value []byte, ok bool) {
	if it.i < len(it.es) && it.es[it.i].Obj == it.o {
		e := it.es[it.i]
		it.i++
		return it.data[e.NS+1 : e.NE-1], it.data[e.VS:e.VE], true
	}
	return it.step()
}

// step is Next walking the bytes (Members' walk), or at the end of the
// index's entries: it stops for good at anything that is not a
// well-formed member.
func (it *MemberIter) step() (name, value []byte, ok bool) {
	obj, i := it.data, it.i
	if !it.walk {
		return nil, nil, false
	}
	it.walk = false // until this member is complete
	if i >= len(obj) || obj[i] != '"' {
		return nil, nil, false
	}
	kEnd := jsonguard.ValueEnd(obj, i)
	if kEnd-1 <= i || obj[kEnd-1] != '"' {
		return nil, nil, false
	}
	name = obj[i+1 : kEnd-1]
	i = jsonguard.SkipWS(obj, kEnd)
	if i >= len(obj) || obj[i] != ':' {
		return nil, nil, false
	}
	i = jsonguard.SkipWS(obj, i+1)
	if i >= len(obj) {
		return nil, nil, false
	}
	end := jsonguard.ValueEnd(obj, i)
	if end > len(obj) || end <= i {
		return nil, nil, false
	}
	value = obj[i:end]
	i = jsonguard.SkipWS(obj, end)
	if i < len(obj) && obj[i] == ',' {
		it.i, it.walk = jsonguard.SkipWS(obj, i+1), true
	}
	return name, value, true
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
// package's Members does. [Frame.Iter] is the same as an iterator.
func (f *Frame) Members(obj []byte, fn func(name, value []byte) bool) {
	for it := f.Iter(obj); ; {
		name, v, ok := it.Next()
		if !ok || !fn(name, v) {
			return
		}
	}
}

// Iter returns the iterator over the members of obj that f.Members goes
// through: the frame's index entries of obj when it holds them, else
// obj's walk ([Walk]).
func (f *Frame) Iter(obj []byte) MemberIter {
	if f.index != nil && len(obj) > 0 && obj[0] == '{' {
		if o, ok := within(f.Data, obj); ok {
			if es := entriesOf(f.index, o); es != nil {
				return MemberIter{data: f.Data, es: es, o: int32(o)}
			}
		}
	}
	return Walk(obj)
}

// entriesOf returns the entries of the members of the object at data[o]
// that the index holds, followed by the rest of their level, nil when it
// holds none. An object's members are consecutive entries of their
// level's, and the first of them is the first entry of that level ending
// after o (jsonguard.Index): a binary search per level finds it. The
// levels are tried from 2 (params' or result's members, and theirs),
// level 1 (the message's own members, which Members is not given) last.
func entriesOf(index *[jsonguard.MaxLevels][]jsonguard.Entry, o int) []jsonguard.Entry {
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
		return lv[lo:]
	}
	return nil
}
