package corpus_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/agentwire/agentwire/corpus"
)

// Replay the embedded sample case and read its document.
func ExampleReplay() {
	c, err := corpus.Sample()
	if err != nil {
		panic(err)
	}
	r, err := corpus.Replay(c)
	if err != nil {
		panic(err)
	}
	d := r.Document
	fmt.Println(d.Provider, d.Response.Terminal.Event, d.Response.Checkpoint.Valid)
	fmt.Println(d.Response.Output)
	fmt.Println(len(d.Violations), "violations")
	// Output:
	// codex turn.completed true
	// Hello, world! This answer arrives in seven deltas.
	// 0 violations
}

// Load cases from any fs.FS and replay one under the 1-byte chunking: the
// document is the same as the whole replay's.
func ExampleLoad() {
	cases, err := corpus.Load(corpus.SampleFS, ".")
	if err != nil {
		panic(err)
	}
	c := cases[0]
	whole, _ := corpus.Replay(c)
	bytewise, _ := corpus.Options{Chunking: corpus.Bytes}.Replay(c)
	a, _ := whole.JSON()
	b, _ := bytewise.JSON()
	fmt.Println(c.Name, c.Provider, string(a) == string(b))
	// Output: codex/codex@0.169.0/text codex true
}

// A downstream module replays its own corpus in a test, with -update
// rewriting the goldens:
//
//	var update = flag.Bool("update", false, "rewrite golden.json files")
//
//	func TestMyCorpus(t *testing.T) {
//		corpus.TestDir(t, "testdata/corpus", corpus.TestOptions{Update: *update})
//	}
func ExampleTestDir() {
	_ = func(t *testing.T) {
		corpus.TestDir(t, "testdata/corpus", corpus.TestOptions{Update: os.Getenv("UPDATE") != ""})
	}
}
