package record

import "github.com/agentwire/agentwire/corpus/internal/ojson"

type obj = ojson.Object

func o(kv ...any) obj { return ojson.O(kv...) }

// mustJSON encodes a value built from literals; it cannot fail.
func mustJSON(v any) []byte {
	b, err := ojson.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
