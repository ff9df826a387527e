package jsonrpc

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

var pieces = []string{
	`{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"t"}}`,
	`{"method":"item/agentMessage/delta","params":{"delta":"x\n"}}`,
	`{"id":"a","result":{}}`, `{"id":null,"error":{"code":1,"message":"m"}}`,
	`[{"method":"a"},1]`, `{"jsonrpc":"2.0","method":"m"}`, `{bad`, `[]`, ``, ` `, "\xEF\xBB\xBF",
}

// TestPropChunking: any input, split anywhere, gives the same frames from
// both faces, and the tee holds the input.
func TestPropChunking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOf(rapid.SampledFrom(pieces)).Draw(t, "parts")
		ends := rapid.SliceOfN(rapid.SampledFrom([]string{"\n", "\r\n", ""}), len(parts), len(parts)).Draw(t, "ends")
		var in []byte
		for i, p := range parts {
			in = append(append(in, p...), ends[i]...)
		}
		sizes := rapid.SliceOfN(rapid.IntRange(1, 40), 1, 8).Draw(t, "sizes")
		opts := Options{MaxLineSize: rapid.SampledFrom([]int{0, 30}).Draw(t, "max")}
		want, tee, err := readAll(in, nil, opts)
		if err != nil || tee != string(in) {
			t.Fatalf("whole: %v", err)
		}
		got, tee, err := readAll(in, sizes, opts)
		if err != nil || tee != string(in) {
			t.Fatalf("reader: %v", err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("reader (-want +got):\n%s", d)
		}
		got, tee, err = pushAll(in, sizes, opts)
		if err != nil || tee != string(in) {
			t.Fatalf("decoder: %v", err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("decoder (-want +got):\n%s", d)
		}
	})
}
