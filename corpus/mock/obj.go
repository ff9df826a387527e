package mock

import "github.com/agentwire/agentwire/corpus/internal/ojson"

type obj = ojson.Object

func o(kv ...any) obj { return ojson.O(kv...) }
