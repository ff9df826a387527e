package jsonguard

import (
	"reflect"
	"strings"
	"testing"
)

func TestMemo(t *testing.T) {
	var mm Memo
	a := []byte(`{"type":"keep_alive"}`)
	if _, ok := mm.Get(a); ok {
		t.Fatal("the zero Memo remembers something")
	}
	m := map[string]any{"type": "keep_alive"}
	mm.Put(a, m)
	// The remembered bytes are a copy: the caller's buffer is reused.
	b := append([]byte(nil), a...)
	a[2] = 'X'
	if got, ok := mm.Get(b); !ok || reflect.ValueOf(got).Pointer() != reflect.ValueOf(m).Pointer() {
		t.Fatalf("Get(same bytes) = %v, %v; want the remembered map", got, ok)
	}
	if _, ok := mm.Get([]byte(`{"type":"keep_alivf"}`)); ok {
		t.Fatal("Get(other bytes of the same length) hit")
	}
	if _, ok := mm.Get([]byte(`{"type":"keep"}`)); ok {
		t.Fatal("Get(other bytes) hit")
	}
	long := []byte(`{"t":"` + strings.Repeat("x", MemoMax) + `"}`)
	mm.Put(long, map[string]any{"t": "x"})
	if _, ok := mm.Get(long); ok {
		t.Fatal("an object longer than MemoMax is remembered")
	}
	if _, ok := mm.Get(b); ok {
		t.Fatal("a longer Put did not forget the last object")
	}
}
