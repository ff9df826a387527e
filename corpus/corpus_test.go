package corpus_test

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
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

// TestUpdate: TestDir with Update writes golden.json into a corpus that
// has none, equal to the committed golden, and the next run compares
// clean.
func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	err := fs.WalkDir(corpus.SampleFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() == corpus.FileGolden {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(corpus.SampleFS, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("update", func(t *testing.T) { corpus.TestDir(t, dir, corpus.TestOptions{Update: true}) })
	got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(corpus.SampleName), corpus.FileGolden))
	if err != nil {
		t.Fatal(err)
	}
	sample, err := corpus.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		return // the embedded golden may be the one being rewritten
	}
	if string(got) != string(sample.Golden) {
		t.Fatalf("written golden differs from the committed one:\n%s", corpus.DiffJSON(sample.Golden, got))
	}
	t.Run("compare", func(t *testing.T) { corpus.TestDir(t, dir, corpus.TestOptions{}) })
}
