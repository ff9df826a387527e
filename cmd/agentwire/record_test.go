package main

import (
	"bytes"
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/corpus/record"
)

// TestRecordFlagsOnce: the recorder's flags are declared once, by
// record.Flags; `agentwire record` and cmd/agentwire-record (record.Main)
// both list every one of them, -scratch and -jobs among them.
func TestRecordFlagsOnce(t *testing.T) {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	record.Flags(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	for _, must := range []string{"scratch", "jobs", "run", "verify", "check", "install", "cache", "out"} {
		if !slices.Contains(names, must) {
			t.Errorf("record.Flags lacks -%s", must)
		}
	}
	code, out, errs := runCmd(t, "", "record", "--help")
	if code != 0 {
		t.Fatalf("agentwire record --help: exit %d %s", code, errs)
	}
	var main bytes.Buffer
	record.Main([]string{"-h"}, nil, &main, &main)
	for _, n := range names {
		if !strings.Contains(out+errs, "-"+n+" ") && !strings.Contains(out+errs, "-"+n+"\n") {
			t.Errorf("agentwire record --help does not list -%s", n)
		}
		if !strings.Contains(main.String(), "-"+n+" ") && !strings.Contains(main.String(), "-"+n+"\n") {
			t.Errorf("agentwire-record -h does not list -%s", n)
		}
	}
}
