// Command fuzztargets writes the fuzz functions of every fuzz.Targets
// entry, fuzz/targets/targets.go and fuzz/fuzz_test.go (see package
// fuzz/internal/targetgen). Run it from the fuzz directory (go generate
// ./fuzz does):
//
//	go run ./cmd/fuzztargets
package main

import (
	"log"
	"os"

	"github.com/agentwire/agentwire/fuzz"
	"github.com/agentwire/agentwire/fuzz/internal/targetgen"
)

func main() {
	log.SetFlags(0)
	files, err := targetgen.Files(fuzz.Targets)
	if err != nil {
		log.Fatal(err)
	}
	for path, src := range files {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
