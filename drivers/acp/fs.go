package acp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultMaxFileSize bounds the file fs/read_text_file reads and the
// content fs/write_text_file writes when Config.MaxFileSize is zero.
const DefaultMaxFileSize = 16 << 20

// JSON-RPC error codes of the driver's answers to agent requests.
const (
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternal         = -32603
	codeResourceNotFound = -32002 // ACP: "a given resource, such as a file, was not found"
)

// rpcError is a JSON-RPC error the driver answers an agent request with.
type rpcError struct {
	code int64
	msg  string
}

func (e *rpcError) Error() string { return e.msg }

func refuse(code int64, format string, a ...any) *rpcError {
	return &rpcError{code: code, msg: "agentwire: " + fmt.Sprintf(format, a...)}
}

// workspace serves fs/read_text_file and fs/write_text_file inside one
// directory tree, the run's working directory. Every access goes through
// an os.Root opened on it, so neither ".." nor a symbolic link (in the
// path, or the file itself) reaches outside it, whatever the agent sends
// and whatever changes on disk between the check and the access: the
// kernel resolves each component below the root (openat with
// RESOLVE_BENEATH semantics, see os.Root).
type workspace struct {
	dir   string // the absolute, cleaned working directory
	real  string // dir with its symbolic links resolved
	root  *os.Root
	limit int64
}

// openWorkspace opens dir for serving; the caller closes it.
func openWorkspace(dir string, limit int64) (*workspace, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("acp: the working directory %q is not absolute", dir)
	}
	dir = filepath.Clean(dir)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("acp: working directory: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("acp: working directory: %w", err)
	}
	return &workspace{dir: dir, real: real, root: root, limit: limit}, nil
}

func (w *workspace) Close() error { return w.root.Close() }

// rel returns p relative to the workspace. p must be absolute (ACP: "Absolute
// path to the file") and, once cleaned, below the working directory as the
// driver gave it to the agent or as its symbolic links resolve (an agent
// may canonicalize the cwd); anything else is refused. Symbolic links
// below that are resolved by the os.Root.
func (w *workspace) rel(p string) (string, *rpcError) {
	if p == "" || strings.ContainsRune(p, 0) {
		return "", refuse(codeInvalidParams, "invalid path %q", p)
	}
	if !filepath.IsAbs(p) {
		return "", refuse(codeInvalidParams, "path %q is not absolute", p)
	}
	p = filepath.Clean(p)
	for _, base := range []string{w.dir, w.real} {
		r, err := filepath.Rel(base, p)
		if err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return r, nil
		}
	}
	return "", refuse(codeInvalidParams, "path %q is outside the workspace %s", p, w.dir)
}

// fsError maps an os.Root error to the answer: a path that escapes the
// root is refused as outside the workspace, a missing file is
// "resource not found".
func (w *workspace) fsError(op, p string, err error) *rpcError {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse(codeResourceNotFound, "%s %s: no such file", op, p)
	case strings.Contains(err.Error(), "escapes from parent"):
		return refuse(codeInvalidParams, "path %q is outside the workspace %s", p, w.dir)
	}
	return refuse(codeInternal, "%s %s: %v", op, p, unwrapPath(err))
}

// unwrapPath drops the *PathError wrapper (its path is the relative one).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// read serves fs/read_text_file: the file's content from the 1-based line
// (0 or 1: from the start), at most limit lines (0: all).
func (w *workspace) read(p string, line, limit int) (string, *rpcError) {
	if line < 0 || limit < 0 {
		return "", refuse(codeInvalidParams, "negative line or limit")
	}
	r, e := w.rel(p)
	if e != nil {
		return "", e
	}
	f, err := w.root.Open(r)
	if err != nil {
		return "", w.fsError("read", p, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return "", w.fsError("read", p, err)
	} else if !st.Mode().IsRegular() {
		return "", refuse(codeInvalidParams, "read %s: not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, w.limit+1))
	if err != nil {
		return "", w.fsError("read", p, err)
	}
	if int64(len(b)) > w.limit {
		return "", refuse(codeInvalidParams, "read %s: larger than %d bytes", p, w.limit)
	}
	return string(lines(b, line, limit)), nil
}

// lines returns the lines of b from the 1-based line, at most limit of
// them (0: all); each keeps its line feed.
func lines(b []byte, line, limit int) []byte {
	for i := 1; i < line && len(b) > 0; i++ {
		j := bytes.IndexByte(b, '\n')
		if j < 0 {
			return nil
		}
		b = b[j+1:]
	}
	if limit == 0 {
		return b
	}
	end := 0
	for n := 0; n < limit && end < len(b); n++ {
		j := bytes.IndexByte(b[end:], '\n')
		if j < 0 {
			return b
		}
		end += j + 1
	}
	return b[:end]
}

// write serves fs/write_text_file: it creates or truncates the file and
// writes content, creating missing parent directories (inside the
// workspace) as an editor would.
func (w *workspace) write(p, content string) *rpcError {
	if int64(len(content)) > w.limit {
		return refuse(codeInvalidParams, "write %s: content larger than %d bytes", p, w.limit)
	}
	r, e := w.rel(p)
	if e != nil {
		return e
	}
	if r == "." {
		return refuse(codeInvalidParams, "write %s: it is the workspace directory", p)
	}
	if d := filepath.Dir(r); d != "." {
		if err := w.root.MkdirAll(d, 0o755); err != nil {
			return w.fsError("write", p, err)
		}
	}
	if err := w.root.WriteFile(r, []byte(content), 0o644); err != nil {
		return w.fsError("write", p, err)
	}
	return nil
}
