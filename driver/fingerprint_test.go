package driver

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unsafe"
)

type fpConfig struct {
	Model   string
	Env     map[string]string
	Args    []string
	Timeout *time.Duration
	Extra   any
}

func mustFP(t *testing.T, domain string, v any) string {
	t.Helper()
	fp, err := CanonicalConfigFingerprint(domain, v)
	if err != nil {
		t.Fatalf("CanonicalConfigFingerprint: %v", err)
	}
	if !strings.HasPrefix(fp, "sha256:") || len(fp) != len("sha256:")+64 {
		t.Fatalf("fingerprint %q is not sha256:<64 hex>", fp)
	}
	return fp
}

func TestCanonicalConfigFingerprintDeterministic(t *testing.T) {
	env := map[string]string{}
	for i := range 64 {
		env[strings.Repeat("k", i+1)] = strings.Repeat("v", i)
	}
	a := fpConfig{Model: "m", Env: env, Args: []string{"a", "b"}}
	want := mustFP(t, "d", a)
	for range 50 { // map iteration order is randomized per range
		copyEnv := map[string]string{}
		for k, v := range env {
			copyEnv[k] = v
		}
		b := a
		b.Env = copyEnv
		if got := mustFP(t, "d", b); got != want {
			t.Fatalf("fingerprint changed with map order: %s != %s", got, want)
		}
	}
	// A fixed value pins the encoding: changing it must bump fingerprintTag.
	if got := mustFP(t, "codex/v1", fpConfig{Model: "gpt"}); got != mustFP(t, "codex/v1", fpConfig{Model: "gpt", Env: map[string]string{}, Args: []string{}}) {
		t.Errorf("nil and empty collections must encode the same")
	}
}

func TestCanonicalConfigFingerprintDistinguishes(t *testing.T) {
	zero := time.Duration(0)
	base := fpConfig{Model: "m"}
	cases := map[string]any{
		"domain":          nil, // handled below
		"model":           fpConfig{Model: "n"},
		"nil vs zero ptr": fpConfig{Model: "m", Timeout: &zero},
		"args":            fpConfig{Model: "m", Args: []string{"x"}},
		"args order":      fpConfig{Model: "m", Args: []string{"b", "a"}},
		"iface type":      fpConfig{Model: "m", Extra: int32(1)},
		"iface type 2":    fpConfig{Model: "m", Extra: int64(1)},
		"key moved":       fpConfig{Model: "m", Env: map[string]string{"ab": "c"}},
		"key moved 2":     fpConfig{Model: "m", Env: map[string]string{"a": "bc"}},
	}
	seen := map[string]string{mustFP(t, "d", base): "base", mustFP(t, "other", base): "domain"}
	for name, v := range cases {
		if v == nil {
			continue
		}
		fp := mustFP(t, "d", v)
		if prev, dup := seen[fp]; dup {
			t.Errorf("%s and %s have the same fingerprint", name, prev)
		}
		seen[fp] = name
	}
	type v2 struct {
		Model   string
		Env     map[string]string
		Args    []string
		Timeout *time.Duration
		Extra   any
		New     bool
	}
	if mustFP(t, "d", v2{Model: "m"}) == mustFP(t, "d", base) {
		t.Errorf("adding a field must change the fingerprint")
	}
	if mustFP(t, "d", math.Copysign(0, -1)) != mustFP(t, "d", 0.0) {
		t.Errorf("-0 and 0 must encode the same")
	}
	if mustFP(t, "d", time.Unix(0, 0).UTC()) == mustFP(t, "d", time.Unix(1, 0).UTC()) {
		t.Errorf("TextMarshaler values must be encoded by their text")
	}
}

func TestCanonicalConfigFingerprintErrors(t *testing.T) {
	type withFunc struct {
		Secret string
		F      func()
	}
	type unexported struct{ secret string }
	type node struct{ Next *node }
	cyc := &node{}
	cyc.Next = cyc
	selfSlice := []any{nil}
	selfSlice[0] = selfSlice
	selfMap := map[string]any{}
	selfMap["x"] = selfMap
	var x int
	cases := []struct {
		name string
		v    any
		path string
	}{
		{"func", withFunc{Secret: "hunter2", F: func() {}}, "$.F"},
		{"chan", map[string]any{"hunter2": make(chan int)}, "$[?]"},
		{"unsafe", unsafe.Pointer(&x), "$"},
		{"uintptr", uintptr(1), "$"},
		{"complex", complex(1, 2), "$"},
		{"nan", []float64{1, math.NaN()}, "$[1]"},
		{"unexported", unexported{secret: "hunter2"}, "$.secret"},
		{"pointer cycle", cyc, "$.Next"},
		{"slice cycle", selfSlice, "$[0]"},
		{"map cycle", selfMap, "$[?]"},
		{"colliding keys", map[*int]string{new(int): "hunter2", new(int): "b"}, "$"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CanonicalConfigFingerprint("d", tc.v)
			var fe *FingerprintError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *FingerprintError", err)
			}
			if tc.path != "" && fe.Path != tc.path {
				t.Errorf("Path = %q, want %q", fe.Path, tc.path)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error leaks a value: %v", err)
			}
		})
	}
}
