package seq

import (
	"errors"
	"io"
	"testing"
)

var (
	errSoft  = errors.New("soft")
	errFatal = errors.New("fatal")
)

func TestFrames(t *testing.T) {
	type step struct {
		f   int
		err error
	}
	run := func(steps []step, stopAt int) (got []step, calls int) {
		next := func() (int, error) {
			s := steps[calls]
			calls++
			return s.f, s.err
		}
		for f, err := range Frames(next, func(err error) bool { return err == errSoft }) {
			got = append(got, step{f, err})
			if len(got) == stopAt {
				break
			}
		}
		return got, calls
	}
	// Recoverable errors are yielded and reading goes on; io.EOF ends it
	// silently.
	got, calls := run([]step{{1, nil}, {0, errSoft}, {2, nil}, {0, io.EOF}}, 0)
	if len(got) != 3 || got[1].err != errSoft || got[2].f != 2 || calls != 4 {
		t.Errorf("soft error: %v after %d calls", got, calls)
	}
	// A fatal error is the last pair.
	got, calls = run([]step{{1, nil}, {0, errFatal}, {2, nil}}, 0)
	if len(got) != 2 || got[1].err != errFatal || calls != 2 {
		t.Errorf("fatal error: %v after %d calls", got, calls)
	}
	// Breaking out calls next no more.
	got, calls = run([]step{{1, nil}, {2, nil}, {3, nil}}, 1)
	if len(got) != 1 || calls != 1 {
		t.Errorf("break: %v after %d calls", got, calls)
	}
}
