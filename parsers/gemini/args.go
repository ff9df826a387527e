package gemini

import (
	"strconv"
	"strings"

	"github.com/segmentio/encoding/json"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// argsBuilder assembles the arguments of a function call streamed with
// partialArgs. Each fragment is {jsonPath, stringValue | numberValue |
// boolValue | nullValue, willContinue}: it sets the value at jsonPath
// ("$.location", "$.items[0].name", "$['a b']"), and a stringValue that
// follows a fragment of the same path with willContinue is appended to
// it (the string is streamed in pieces).
type argsBuilder struct {
	root     map[string]any
	lastPath string
	lastCont bool
}

type pathSeg struct {
	key   string
	index int // >= 0 for an array index
}

// apply applies the partialArgs array raw (checked JSON); it returns a
// problem description, or "".
func (b *argsBuilder) apply(raw []byte) string {
	var frags []map[string]any
	if err := jsonguard.Unmarshal(raw, &frags, 0); err != nil {
		return "functionCall.partialArgs: " + err.Error()
	}
	if b.root == nil {
		b.root = map[string]any{}
	}
	problem := ""
	for _, f := range frags {
		path, _ := f["jsonPath"].(string)
		segs, ok := parsePath(path)
		if !ok || (len(segs) > 0 && segs[0].index >= 0) {
			problem = "functionCall.partialArgs: unsupported jsonPath " + strconv.Quote(path)
			continue
		}
		var v any
		isString := false
		switch {
		case f["stringValue"] != nil:
			v, isString = f["stringValue"], true
		case f["numberValue"] != nil:
			v = f["numberValue"]
		case f["boolValue"] != nil:
			v = f["boolValue"]
		default:
			v = nil
		}
		if s, ok := v.(string); ok && isString && b.lastCont && path == b.lastPath {
			if prev, ok := get(b.root, segs).(string); ok {
				v = prev + s
			}
		}
		cont, _ := f["willContinue"].(bool)
		b.lastPath, b.lastCont = path, cont && isString
		if len(segs) == 0 {
			if m, ok := v.(map[string]any); ok {
				b.root = m
			}
			continue
		}
		b.root = set(b.root, segs, v).(map[string]any)
	}
	return problem
}

// object returns the assembled arguments (an empty object when none came).
func (b *argsBuilder) object() map[string]any {
	if b.root == nil {
		return map[string]any{}
	}
	return b.root
}

// parsePath parses "$", "$.a.b", "$.a[0]", "$['a']" into segments.
func parsePath(p string) ([]pathSeg, bool) {
	if !strings.HasPrefix(p, "$") {
		return nil, false
	}
	p = p[1:]
	var segs []pathSeg
	for p != "" {
		switch p[0] {
		case '.':
			p = p[1:]
			n := strings.IndexAny(p, ".[")
			if n < 0 {
				n = len(p)
			}
			if n == 0 {
				return nil, false
			}
			segs = append(segs, pathSeg{key: p[:n], index: -1})
			p = p[n:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil, false
			}
			in := p[1:end]
			p = p[end+1:]
			if len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0] {
				segs = append(segs, pathSeg{key: in[1 : len(in)-1], index: -1})
				continue
			}
			n, err := strconv.Atoi(in)
			if err != nil || n < 0 || n > maxArgIndex {
				return nil, false
			}
			segs = append(segs, pathSeg{index: n})
		default:
			return nil, false
		}
	}
	return segs, true
}

// maxArgIndex bounds an array index in a jsonPath, so that a hostile path
// cannot make the builder allocate a huge array.
const maxArgIndex = 1 << 12

// set returns c with v stored at segs, creating objects and arrays.
func set(c any, segs []pathSeg, v any) any {
	if len(segs) == 0 {
		return v
	}
	s := segs[0]
	if s.index < 0 {
		m, ok := c.(map[string]any)
		if !ok {
			m = map[string]any{}
		}
		m[s.key] = set(m[s.key], segs[1:], v)
		return m
	}
	a, _ := c.([]any)
	for len(a) <= s.index {
		a = append(a, nil)
	}
	a[s.index] = set(a[s.index], segs[1:], v)
	return a
}

func get(c any, segs []pathSeg) any {
	for _, s := range segs {
		if s.index < 0 {
			m, ok := c.(map[string]any)
			if !ok {
				return nil
			}
			c = m[s.key]
			continue
		}
		a, ok := c.([]any)
		if !ok || s.index >= len(a) {
			return nil
		}
		c = a[s.index]
	}
	return c
}

// marshalCompact is the JSON text of v (map keys sorted).
func marshalCompact(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("{}")
	}
	return b
}
