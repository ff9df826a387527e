package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sandbox is a workspace dir "ws" with a file, a directory, and symbolic
// links that point inside and outside it, next to a "secret" outside.
func sandbox(t *testing.T) (*workspace, string) {
	t.Helper()
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	for _, d := range []string{ws, filepath.Join(ws, "sub"), filepath.Join(top, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(ws, "a.txt"):             "one\ntwo\nthree\nfour\n",
		filepath.Join(ws, "sub", "b.txt"):      "b",
		filepath.Join(top, "secret.txt"):       "secret",
		filepath.Join(top, "outside", "o.txt"): "o",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(ws, "in-link"):      "a.txt",
		filepath.Join(ws, "abs-in-link"):  filepath.Join(ws, "sub", "b.txt"),
		filepath.Join(ws, "out-link"):     filepath.Join(top, "secret.txt"),
		filepath.Join(ws, "rel-out-link"): "../secret.txt",
		filepath.Join(ws, "dir-out-link"): filepath.Join(top, "outside"),
	}
	for l, target := range links {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	w, err := openWorkspace(ws, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, top
}

func TestWorkspaceRead(t *testing.T) {
	w, top := sandbox(t)
	ws := w.dir
	for _, c := range []struct {
		path        string
		line, limit int
		want        string
		code        int64 // 0: success
	}{
		{path: ws + "/a.txt", want: "one\ntwo\nthree\nfour\n"},
		{path: ws + "/a.txt", line: 2, limit: 2, want: "two\nthree\n"},
		{path: ws + "/a.txt", line: 4, limit: 9, want: "four\n"},
		{path: ws + "/a.txt", line: 9, want: ""},
		{path: ws + "/a.txt", line: 1, limit: 1, want: "one\n"},
		{path: ws + "/sub/../a.txt", limit: 1, want: "one\n"},
		{path: ws + "/in-link", limit: 1, want: "one\n"},
		{path: ws + "/sub/b.txt", want: "b"},
		{path: ws + "/missing.txt", code: codeResourceNotFound},
		{path: ws + "/sub", code: codeInvalidParams},
		{path: "a.txt", code: codeInvalidParams},
		{path: "", code: codeInvalidParams},
		{path: ws + "/a.txt", line: -1, code: codeInvalidParams},
		// Outside: lexically, through "..", and through symbolic links.
		{path: top + "/secret.txt", code: codeInvalidParams},
		{path: ws + "/../secret.txt", code: codeInvalidParams},
		{path: ws + "/sub/../../secret.txt", code: codeInvalidParams},
		{path: ws + "/out-link", code: codeInvalidParams},
		{path: ws + "/rel-out-link", code: codeInvalidParams},
		{path: ws + "/dir-out-link/o.txt", code: codeInvalidParams},
		{path: ws + "/abs-in-link", code: codeInvalidParams}, // os.Root refuses absolute links, even inside
		{path: "/etc/passwd", code: codeInvalidParams},
		{path: ws + "x/a.txt", code: codeInvalidParams}, // a sibling sharing the prefix
	} {
		got, err := w.read(c.path, c.line, c.limit)
		switch {
		case c.code == 0 && err != nil:
			t.Errorf("read %q line %d limit %d: %v", c.path, c.line, c.limit, err)
		case c.code == 0 && got != c.want:
			t.Errorf("read %q line %d limit %d = %q, want %q", c.path, c.line, c.limit, got, c.want)
		case c.code != 0 && (err == nil || err.code != c.code):
			t.Errorf("read %q: got %q, %v; want error code %d", c.path, got, err, c.code)
		case c.code != 0 && strings.Contains(got+err.msg, "secret\x00"):
			t.Errorf("read %q leaked content", c.path)
		}
	}
}

func TestWorkspaceBounds(t *testing.T) {
	w, _ := sandbox(t)
	big := filepath.Join(w.dir, "big.txt")
	if err := os.WriteFile(big, make([]byte, 2<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.read(big, 0, 0); err == nil || !strings.Contains(err.msg, "larger than") {
		t.Errorf("a file over the limit: %v", err)
	}
	if err := w.write(filepath.Join(w.dir, "n.txt"), strings.Repeat("x", 2<<10)); err == nil {
		t.Error("content over the limit was written")
	}
}

func TestWorkspaceWrite(t *testing.T) {
	w, top := sandbox(t)
	ws := w.dir
	for _, c := range []struct {
		path string
		file string // where the content must land, relative to ws
		code int64
	}{
		{path: ws + "/new.txt", file: "new.txt"},
		{path: ws + "/a.txt", file: "a.txt"},
		{path: ws + "/deep/er/c.txt", file: "deep/er/c.txt"},
		{path: ws + "/in-link", file: "a.txt"},
		{path: ws, code: codeInvalidParams},
		{path: top + "/secret.txt", code: codeInvalidParams},
		{path: ws + "/../pwned.txt", code: codeInvalidParams},
		{path: ws + "/out-link", code: codeInvalidParams},
		{path: ws + "/rel-out-link", code: codeInvalidParams},
		{path: ws + "/dir-out-link/pwned.txt", code: codeInvalidParams},
		{path: ws + "/dir-out-link/new/pwned.txt", code: codeInvalidParams},
		{path: "rel.txt", code: codeInvalidParams},
	} {
		err := w.write(c.path, "written\n")
		if c.code != 0 {
			if err == nil || err.code != c.code {
				t.Errorf("write %q: %v, want error code %d", c.path, err, c.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("write %q: %v", c.path, err)
			continue
		}
		if b, _ := os.ReadFile(filepath.Join(ws, c.file)); string(b) != "written\n" {
			t.Errorf("write %q: %s holds %q", c.path, c.file, b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(top, "secret.txt")); string(b) != "secret" {
		t.Errorf("the secret outside the workspace was overwritten: %q", b)
	}
	for _, p := range []string{"pwned.txt", "outside/pwned.txt", "outside/new"} {
		if _, err := os.Lstat(filepath.Join(top, p)); err == nil {
			t.Errorf("%s was created outside the workspace", p)
		}
	}
}

// TestWorkspaceSymlinkedRoot: a workspace reached through a symbolic link
// serves paths under either spelling, and nothing else.
func TestWorkspaceSymlinkedRoot(t *testing.T) {
	top := t.TempDir()
	real := filepath.Join(top, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "f"), []byte("f"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(top, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	w, err := openWorkspace(link, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, p := range []string{link + "/f", real + "/f"} {
		if got, err := w.read(p, 0, 0); err != nil || got != "f" {
			t.Errorf("read %s: %q, %v", p, got, err)
		}
	}
	if _, err := w.read(top+"/link", 0, 0); err == nil {
		t.Error("the link itself, outside the workspace, was read")
	}
}
