package fuzz

import "github.com/agentwire/agentwire/provider"

// Target is one end-to-end fuzz target.
type Target struct {
	// Name is the fuzz test's name (FuzzSSE, ...).
	Name string
	// Check is its oracle.
	Check func(data []byte) error
	// Dict is the base name of its libFuzzer dictionary under dict/.
	Dict string
	// Doc says what the target fuzzes, for the doc comment of its
	// generated fuzz function.
	Doc string
	// Provider is the registered provider a parser target runs (its
	// stdout recordings are the seeds), "" for the other targets.
	Provider string
}

// Targets lists the end-to-end targets, in campaign order: the three
// framings, one parser target per registered provider (sorted by
// provider name; named by provider.Provider.FuzzTarget, with the
// provider's name as dictionary), then FuzzChunking and FuzzCodec. The
// fuzz functions that run them (fuzz/targets/targets.go and
// fuzz_test.go) are generated from this list by go generate ./fuzz
// (cmd/fuzztargets), and a test fails while they are stale.
var Targets = targets()

func targets() []Target {
	ts := []Target{
		{Name: "FuzzSSE", Check: CheckSSE, Dict: "sse", Doc: "runs fuzz.CheckSSE."},
		{Name: "FuzzNDJSON", Check: CheckNDJSON, Dict: "ndjson", Doc: "runs fuzz.CheckNDJSON."},
		{Name: "FuzzJSONRPC", Check: CheckJSONRPC, Dict: "jsonrpc", Doc: "runs fuzz.CheckJSONRPC."},
	}
	for _, p := range provider.All() {
		fp := fuzzProvider(p)
		ts = append(ts, Target{
			Name:     p.FuzzTarget(),
			Check:    func(b []byte) error { return CheckParser(fp, b) },
			Dict:     p.Name,
			Doc:      "runs fuzz.CheckParser for the provider " + p.Name + ".",
			Provider: p.Name,
		})
	}
	return append(ts,
		Target{Name: "FuzzChunking", Check: CheckChunking, Dict: "all", Doc: "runs fuzz.CheckChunking."},
		Target{Name: "FuzzCodec", Check: CheckCodec, Dict: "codec", Doc: "runs fuzz.CheckCodec."},
	)
}

// TargetByName returns the target of Targets called name; it panics when
// there is none (the generated fuzz functions name only listed targets).
func TargetByName(name string) Target {
	for _, t := range Targets {
		if t.Name == name {
			return t
		}
	}
	panic("fuzz: no target " + name + " in fuzz.Targets (go generate ./fuzz)")
}
