package codex

import "github.com/agentwire/agentwire/internal/jsonguard"

// Item events come in a handful of shapes that repeat all session long (a
// command started, a command completed with exit code 0, an agent
// message, a reasoning summary): the same member names, nulls, numbers
// and spacing, and other string values. The walk of such a line is mostly
// spent on what the previous line of its shape already had (the names,
// the punctuation, the type dispatch), so the parser keeps the last few
// lines the walk read whole as jsonguard.Shapes, and a line that one of
// them matches is read from its values alone: Match validates the string
// values and compares everything else, then each item field the walk
// decoded in the learnt line is decoded again from its place in this one,
// by the walk's own decoder (itemValue), and the "type" literal is taken
// as the walk takes it (typeAt). The walk's outcome depends on a string
// value only through what these decode (a member name, a null, a number,
// a literal or the nesting are the shape's, compared byte for byte), so a
// matched line decodes as the walk would decode it. A value the walk
// skips (an unknown member) is only validated, which Match does for its
// strings.
//
// FuzzItemDecode and TestItemShapes check that a line a shape takes is
// valid JSON, decodes as the reflective decoder decodes it and has the
// type Frame.Type reads.

// maxShapes is how many shapes the parser keeps: the item shapes of a
// session, with room to spare.
const maxShapes = 8

// maxShapeLine is the longest line the shapes learn or take. A longer one
// is mostly its string values, which a shape would read twice (Match
// validates them, then they are decoded), where the walk reads them once
// and spends little on the rest.
const maxShapeLine = 1 << 10

// itemShapes are the parser's shapes, the last one that took a line, and
// the count of item events in a row that none took.
type itemShapes struct {
	s      [maxShapes]itemShape
	n      int // shapes learnt
	last   int // the shape that took the previous line (-1: none)
	victim int // the slot the next learnt shape takes once all are used
	misses int
}

// itemShape is one learnt item event line: the shape, where its "type"
// literal and each decoded item field lie, and a guess at the shape of
// the line that follows (the one that followed last time).
type itemShape struct {
	s      jsonguard.Shape
	typ    jsonguard.ShapeSpan
	typVal string // the learnt line's type
	// fields are the item fields decoded in the learnt line but for
	// the lists, listFields the lists (changes, items).
	fields, listFields []itemField
	spans              [fCount]jsonguard.ShapeSpan
	succ               int // -1: none yet
	// lists holds the last changes and items lists the shape decoded,
	// with their bytes: a list a line repeats (a plan updated again and
	// again) is given the same read-only slice, not decoded again.
	lists lists
}

// lists is the last decoded changes and items lists, with their bytes.
type lists struct {
	changesRaw, itemsRaw []byte
	changes              []wireChange
	items                []wireTodo
	hasChanges, hasItems bool
}

// keep remembers the list of field fld (changes or items) of it, whose
// bytes are raw.
func (l *lists) keep(fld itemField, raw []byte, it *wireItem) {
	switch fld {
	case fChanges:
		l.changesRaw, l.changes, l.hasChanges = append(l.changesRaw[:0], raw...), it.Changes, true
	case fItems:
		l.itemsRaw, l.items, l.hasItems = append(l.itemsRaw[:0], raw...), it.Items, true
	}
}

// reuse gives it the list of field fld kept for the bytes raw, if any.
func (l *lists) reuse(fld itemField, raw []byte, it *wireItem) bool {
	switch fld {
	case fChanges:
		if l.hasChanges && string(raw) == string(l.changesRaw) {
			it.Changes = l.changes
			return true
		}
	case fItems:
		if l.hasItems && string(raw) == string(l.itemsRaw) {
			it.Items = l.items
			return true
		}
	}
	return false
}

func newItemShapes() itemShapes { return itemShapes{last: -1} }

// match decodes b into it (a wireItem holding only prevID and
// prevCommand, as it is left when ok is false) and returns its "type"
// value when one of the shapes takes it. The shape that took the line
// after the previous line's shape is tried first.
func (ss *itemShapes) match(b []byte, it *wireItem) (typ []byte, ok bool) {
	if len(b) > maxShapeLine {
		ss.last = -1
		return nil, false
	}
	first := -1
	if ss.last >= 0 {
		first = ss.s[ss.last].succ
	}
	if first >= 0 {
		if typ, ok = ss.s[first].take(b, it); ok {
			ss.took(first)
			return typ, true
		}
	}
	for k := range ss.n {
		if k == first {
			continue
		}
		if typ, ok = ss.s[k].take(b, it); ok {
			ss.took(k)
			return typ, true
		}
	}
	ss.last = -1
	return nil, false
}

func (ss *itemShapes) took(k int) {
	if ss.last >= 0 {
		ss.s[ss.last].succ = k
	}
	ss.last, ss.misses = k, 0
}

// take is match by this shape.
func (sh *itemShape) take(b []byte, it *wireItem) ([]byte, bool) {
	if !sh.s.Match(b) {
		return nil, false
	}
	lit := sh.s.Slice(sh.typ)
	typ := lit[1 : len(lit)-1]
	if string(typ) != sh.typVal {
		var ok bool
		if typ, _, ok = typeAt(lit, 0); !ok {
			return nil, false
		}
	}
	for _, fld := range sh.fields {
		v := sh.s.Slice(sh.spans[fld])
		if end, ok := itemValue(fld, v, 0, len(v), it); !ok || end != len(v) {
			*it = wireItem{prevID: it.prevID, prevCommand: it.prevCommand}
			return nil, false
		}
	}
	for _, fld := range sh.listFields {
		v := sh.s.Slice(sh.spans[fld])
		if sh.lists.reuse(fld, v, it) {
			continue
		}
		if end, ok := itemValue(fld, v, 0, len(v), it); !ok || end != len(v) {
			*it = wireItem{prevID: it.prevID, prevCommand: it.prevCommand}
			return nil, false
		}
		sh.lists.keep(fld, v, it)
	}
	return typ, true
}

// learning reports whether learn would learn an item event that match
// just declined: the first maxShapes of a run of such events, then only
// the 16th, 32nd, 64th, ... of the run, so that a stream of ever new
// shapes is not learnt (nor recorded by the walk) line by line.
func (ss *itemShapes) learning() bool {
	return ss.misses < maxShapes || ss.misses&(ss.misses+1) == 0
}

// learn remembers b, a line the walk took whole into it with what rec
// recorded, when it is an item event (a string "type" and an object
// "item") and learning allows it.
func (ss *itemShapes) learn(b []byte, rec *walkRecord, it *wireItem) {
	if rec.typ[1] == 0 || !rec.item || len(b) > maxShapeLine {
		return
	}
	learn := ss.learning()
	ss.misses++
	if !learn {
		return
	}
	k := ss.n
	if k < maxShapes {
		ss.n++
	} else {
		k = ss.victim
		ss.victim = (ss.victim + 1) % maxShapes
		for j := range ss.n {
			if ss.s[j].succ == k {
				ss.s[j].succ = -1
			}
		}
	}
	sh := &ss.s[k]
	sh.s.Learn(b, false)
	sh.typ = sh.s.SpanOf(b, b[rec.typ[0]:rec.typ[1]])
	sh.typVal = string(b[rec.typ[0]+1 : rec.typ[1]-1])
	sh.fields, sh.listFields = sh.fields[:0], sh.listFields[:0]
	sh.lists.hasChanges, sh.lists.hasItems = false, false
	for j, fld := range rec.fields[:rec.n] {
		v := b[rec.at[j][0]:rec.at[j][1]]
		sh.spans[fld] = sh.s.SpanOf(b, v)
		if fld == fChanges || fld == fItems {
			sh.listFields = append(sh.listFields, fld)
			sh.lists.keep(fld, v, it)
		} else {
			sh.fields = append(sh.fields, fld)
		}
	}
	sh.succ = -1
	ss.last = k
}
