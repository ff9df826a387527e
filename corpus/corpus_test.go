package corpus_test

import (
	"flag"
	"testing"

	"github.com/agentwire/agentwire/corpus"
)

var update = flag.Bool("update", false, "rewrite golden.json in every corpus case")

// known lists corpus cases whose violations are parser bugs, by case name.
var known = map[string]string{}

// TestCorpus replays the whole corpus (every case below this directory)
// under every chunking against its golden.json.
func TestCorpus(t *testing.T) {
	corpus.TestDir(t, ".", corpus.TestOptions{Update: *update, Known: known})
}
