package corpus

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestDocumentEncode: Encode, piece by piece, writes exactly the text of
// the document encoded at once, for documents with no, one and many
// events; and it knows every member of Document (a new member must be
// written by Encode too).
func TestDocumentEncode(t *testing.T) {
	var names []string
	for f := range reflect.TypeFor[Document]().Fields() {
		names = append(names, f.Tag.Get("json"))
	}
	if want := []string{"provider", "capability", "events", "response", "violations"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("Document members %q, Encode writes %q", names, want)
	}
	c, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Replay(c)
	if err != nil {
		t.Fatal(err)
	}
	full := *r.Document
	one := full
	one.Events = full.Events[:1]
	none := full
	none.Events = []Event{}
	null := full
	null.Events = nil
	for name, d := range map[string]*Document{"many": &full, "one": &one, "none": &none, "null": &null} {
		var whole bytes.Buffer
		enc := json.NewEncoder(&whole)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(d); err != nil {
			t.Fatal(err)
		}
		got, err := d.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, whole.Bytes()) {
			t.Errorf("%s events: Encode differs from the whole encoding:\n%s", name, DiffJSON(whole.Bytes(), got))
		}
	}
}
