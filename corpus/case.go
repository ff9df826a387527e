package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/provider"
)

// The file names of a case directory.
const (
	FileStdout = "stdout"
	FileStderr = "stderr"
	FileStdin  = "stdin"
	FileMeta   = "meta.json"
	FileGolden = "golden.json"
)

// Meta is the part of a recording's meta.json that replay uses
// (provider.Meta: its Outcome, SessionData and HasArg).
type Meta = provider.Meta

// Outcome is the process outcome given to a parser's Finish.
type Outcome = driver.Outcome

// Case is one recorded run.
type Case struct {
	// Name is the case directory, slash-separated and relative to the root
	// it was loaded from ("codex/codex@0.169.0/text").
	Name string
	// Provider is the provider whose parser replays the case.
	Provider string
	// Meta is the decoded meta.json; MetaJSON its exact bytes.
	Meta     Meta
	MetaJSON []byte
	// Stdout, Stderr and Stdin are the captured streams (Stderr and Stdin
	// are nil when the files are absent).
	Stdout, Stderr, Stdin []byte
	// Golden is golden.json, nil when the case has none yet.
	Golden []byte
	// Settings overrides the values of the provider's switches that
	// meta.json implies (provider.Switch), by name; nil for a recorded
	// case. `agentwire parse` sets it for a bare capture.
	Settings map[string]bool
	// Prev is the run this one resumes (the run listed before it in the
	// case-level meta.json), or nil.
	Prev *Case
}

// String returns the case name.
func (c *Case) String() string { return c.Name }

// IsCase reports whether dir in fsys is a case directory: it holds a stdout
// and a meta.json file.
func IsCase(fsys fs.FS, dir string) bool {
	for _, f := range []string{FileStdout, FileMeta} {
		st, err := fs.Stat(fsys, path.Join(dir, f))
		if err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// Load finds every case at or below root in fsys ("." for the whole file
// system), sorted by name, with Prev linked for multi-run cases. A directory
// that holds stdout and meta.json is a case; directories below a case are
// searched too (a multi-run case keeps its runs there).
func Load(fsys fs.FS, root string) ([]*Case, error) {
	var dirs []string
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && IsCase(fsys, p) {
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	byName := map[string]*Case{}
	cases := make([]*Case, 0, len(dirs))
	for _, d := range dirs {
		c, err := readCase(fsys, d)
		if err != nil {
			return nil, err
		}
		byName[d] = c
		cases = append(cases, c)
	}
	for _, c := range cases {
		prev, err := prevRun(fsys, c.Name)
		if err != nil {
			return nil, err
		}
		if prev == "" {
			continue
		}
		if c.Prev = byName[prev]; c.Prev == nil {
			if c.Prev, err = LoadCase(fsys, prev); err != nil {
				return nil, err
			}
		}
	}
	return cases, nil
}

// LoadCase loads the case in directory dir of fsys, and the runs it resumes.
func LoadCase(fsys fs.FS, dir string) (*Case, error) {
	dir = path.Clean(dir)
	if !IsCase(fsys, dir) {
		return nil, fmt.Errorf("corpus: %s is not a case directory (it needs %s and %s)", dir, FileStdout, FileMeta)
	}
	c, err := readCase(fsys, dir)
	if err != nil {
		return nil, err
	}
	prev, err := prevRun(fsys, dir)
	if err != nil {
		return nil, err
	}
	if prev != "" {
		if c.Prev, err = LoadCase(fsys, prev); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func readCase(fsys fs.FS, dir string) (*Case, error) {
	c := &Case{Name: dir}
	var err error
	if c.Stdout, err = fs.ReadFile(fsys, path.Join(dir, FileStdout)); err != nil {
		return nil, err
	}
	if c.MetaJSON, err = fs.ReadFile(fsys, path.Join(dir, FileMeta)); err != nil {
		return nil, err
	}
	metaPath := path.Join(dir, FileMeta)
	if err := json.Unmarshal(c.MetaJSON, &c.Meta); err != nil {
		return nil, &MetaError{Path: metaPath, Err: err}
	}
	if c.Meta.Provider == "" && c.Meta.CLI == "" && c.Meta.Scenario == "" {
		return nil, &MetaError{Path: metaPath, Err: errors.New(`none of "provider", "cli" and "scenario" is set`)}
	}
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{FileStderr, &c.Stderr}, {FileStdin, &c.Stdin}, {FileGolden, &c.Golden}} {
		b, err := fs.ReadFile(fsys, path.Join(dir, f.name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		*f.dst = b
	}
	c.Provider = providerOf(dir, c.Meta)
	if _, ok := provider.Lookup(c.Provider); !ok {
		return nil, &MetaError{Path: metaPath, Err: fmt.Errorf("unknown provider %q (the path or meta.json must name one of %s)", c.Provider, strings.Join(provider.Names(), ", "))}
	}
	return c, nil
}

// MetaError is returned for a case directory whose meta.json the corpus
// cannot use: not JSON of the Meta schema, none of its identifying members
// set, or no registered provider named by it or the path. Such a directory
// usually holds another tool's capture; `agentwire parse` then notes it and
// parses stdout as a bare capture.
type MetaError struct {
	Path string // the meta.json
	Err  error
}

func (e *MetaError) Error() string { return "corpus: " + e.Path + ": " + e.Err.Error() }

// Unwrap returns e.Err.
func (e *MetaError) Unwrap() error { return e.Err }

// providerOf takes the provider from the first path element that names a
// registered one, else from meta.json.
func providerOf(dir string, m Meta) string {
	for _, el := range strings.Split(dir, "/") {
		if _, ok := provider.Lookup(el); ok {
			return el
		}
	}
	return m.Provider
}

// prevRun returns the directory of the run that the run in dir resumes, or
// "" when dir is not a later run of a multi-run case.
func prevRun(fsys fs.FS, dir string) (string, error) {
	parent := path.Dir(dir)
	if parent == dir || parent == "." && dir == "." {
		return "", nil
	}
	b, err := fs.ReadFile(fsys, path.Join(parent, FileMeta))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("corpus: %s: %w", path.Join(parent, FileMeta), err)
	}
	i := slices.Index(m.Runs, path.Base(dir))
	if i <= 0 {
		return "", nil
	}
	return path.Join(parent, m.Runs[i-1]), nil
}
