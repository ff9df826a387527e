package jsonguard

import "bytes"

// MemoMax is the longest object a Memo remembers.
const MemoMax = 512

// Memo remembers the last short JSON object decoded for a payload's Raw
// (or an item's Data), so that the same bytes again get the same map
// instead of a new one. A map costs about 336 bytes however few members it
// has, twenty times a line like {"type":"keep_alive"}: a flood of
// identical short lines (keep-alives, heartbeats, an unknown event
// repeated) then costs one map in all, not one per line. The maps are
// read-only, as every value a driver hands its sink is
// (driver.EventSink). Only objects of at most MemoMax bytes are
// remembered, so the comparison and the copy stay small; the zero Memo is
// ready to use.
type Memo struct {
	last []byte
	m    map[string]any
}

// Get returns the map remembered for b, if b is the last object Put.
func (mm *Memo) Get(b []byte) (map[string]any, bool) {
	if mm.m == nil || len(b) != len(mm.last) || !bytes.Equal(b, mm.last) {
		return nil, false
	}
	return mm.m, true
}

// Put remembers m as the decoding of b (when b is at most MemoMax bytes;
// a longer b forgets the last one).
func (mm *Memo) Put(b []byte, m map[string]any) {
	if len(b) > MemoMax || m == nil {
		mm.last, mm.m = mm.last[:0], nil
		return
	}
	mm.last = append(mm.last[:0], b...)
	mm.m = m
}
