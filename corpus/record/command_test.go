package record

import (
	"bytes"
	"strings"
	"testing"
)

func TestMainExitCodes(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"-bogus"}, nil, &out, &errb); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	if code := Main([]string{"-run", "("}, nil, &out, &errb); code != 2 {
		t.Errorf("bad regexp: exit %d, want 2", code)
	}
	out.Reset()
	if code := Main([]string{"-check", "-cache", t.TempDir()}, nil, &out, &errb); code != 3 {
		t.Errorf("-check without CLIs: exit %d, want 3", code)
	}
	if !strings.Contains(out.String(), "not installed") {
		t.Errorf("-check reason = %q", out.String())
	}
}
