package corpus

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOptions configure Test.
type TestOptions struct {
	// Root is the directory of fsys searched for cases; "" means ".".
	Root string
	// Update rewrites every golden.json that differs (or is missing)
	// instead of failing; wire it to a test flag such as -update. It needs
	// Dir.
	Update bool
	// Dir is the operating-system directory fsys is rooted at, where Update
	// writes. Goldens are written as Dir/<case name>/golden.json.
	Dir string
	// Known lists cases whose violations are known parser bugs, with the
	// reason (naming the clause and the issue): such a case is skipped with
	// the reason and its violations when it still has them, and fails once
	// they are gone, so the entry gets removed.
	Known map[string]string
}

// Test replays every case below opts.Root in fsys, each in its own subtest
// named after the case, under the whole, per-line, 1-byte and random
// chunkings (Chunkings), and fails on
//
//   - any difference between the documents of two chunkings;
//   - any adaptertest violation (Result.Violations; malformed input is
//     part of some real captures and is recorded in the golden instead);
//   - any difference from the case's golden.json (cmp.Diff, -want +got),
//     or a missing golden.json.
//
// With opts.Update it writes golden.json instead of comparing. It fails
// when there is no case at all.
func Test(t *testing.T, fsys fs.FS, opts TestOptions) {
	t.Helper()
	root := opts.Root
	if root == "" {
		root = "."
	}
	if opts.Update && opts.Dir == "" {
		t.Fatal("corpus.Test: Update needs Dir, the directory to write goldens into")
	}
	cases, err := Load(fsys, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("corpus.Test: no case (a directory with %s and %s) below %s", FileStdout, FileMeta, root)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			testCase(t, c, opts)
		})
	}
}

// TestDir is Test over the operating-system directory dir, with Dir set so
// that update can write there.
func TestDir(t *testing.T, dir string, opts TestOptions) {
	t.Helper()
	opts.Dir = dir
	Test(t, os.DirFS(dir), opts)
}

func testCase(t *testing.T, c *Case, opts TestOptions) {
	var want *Result
	var wantJSON []byte
	for _, ch := range Chunkings(uint64(len(c.Stdout))) {
		r, err := Options{Chunking: ch}.Replay(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.JSON()
		if err != nil {
			t.Fatalf("%s: %v", ch.Name, err)
		}
		if want == nil {
			want, wantJSON = r, got
			continue
		}
		if !bytes.Equal(got, wantJSON) {
			t.Fatalf("the %s chunking differs from whole (-whole +%s):\n%s", ch.Name, ch.Name, DiffJSON(wantJSON, got))
		}
	}
	if vs := want.Violations(); len(vs) > 0 {
		var b strings.Builder
		for _, f := range vs {
			b.WriteString("\n\t")
			b.WriteString(f.String())
		}
		if reason, ok := opts.Known[c.Name]; ok {
			defer t.Skipf("known parser bug (%s):%s", reason, b.String())
		} else {
			t.Errorf("%d violations:%s", len(vs), b.String())
		}
	} else if reason, ok := opts.Known[c.Name]; ok {
		t.Errorf("listed as a known parser bug (%s) but replays clean: remove it from Known", reason)
	}
	if opts.Update {
		if !bytes.Equal(c.Golden, wantJSON) {
			path := filepath.Join(opts.Dir, filepath.FromSlash(c.Name), FileGolden)
			if err := os.WriteFile(path, wantJSON, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", path)
		}
		return
	}
	if c.Golden == nil {
		t.Errorf("no %s (run the test with -update to write it)", FileGolden)
		return
	}
	if !bytes.Equal(c.Golden, wantJSON) {
		t.Errorf("%s differs (-want +got); run the test with -update to accept:\n%s", FileGolden, DiffJSON(c.Golden, wantJSON))
	}
}

// DiffJSON is cmp.Diff (-want +got) of two JSON texts as values, or of
// their lines when they are equal as values but differ as text.
func DiffJSON(want, got []byte) string {
	var w, g any
	if json.Unmarshal(want, &w) == nil && json.Unmarshal(got, &g) == nil {
		if d := cmp.Diff(w, g); d != "" {
			return d
		}
	}
	return cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n"))
}
