// Command agentwire-record records the golden corpus from the real agent
// CLIs against scripted mock model servers, or verifies the committed corpus
// by re-recording it into a temporary directory and printing the drift.
//
//	agentwire-record -install            # npm-install the pinned CLIs into -cache
//	agentwire-record [-run REGEXP]       # record into -out (corpus/)
//	agentwire-record -verify [-run RE]   # re-record into a temp dir and diff
//	agentwire-record -check              # can recording run here?
//
// Recording re-executes itself under `unshare -n` so that the CLIs and the
// mock share a network namespace with nothing but loopback. See
// corpus/README.md.
package main

import (
	"os"

	"github.com/agentwire/agentwire/corpus/record"
)

func main() {
	os.Exit(record.Main(os.Args[1:], os.Args[1:], os.Stdout, os.Stderr))
}
