package fuzz_test

import (
	"testing"

	"github.com/agentwire/agentwire/fuzz/targets"
)

// The fuzz tests of the end-to-end targets; their bodies live in package
// targets (see its doc) and their oracles in package fuzz. Seeds:
// testdata/fuzz/<name>/, regenerated with go generate ./fuzz.

func FuzzSSE(f *testing.F)               { targets.FuzzSSE(f) }
func FuzzNDJSON(f *testing.F)            { targets.FuzzNDJSON(f) }
func FuzzJSONRPC(f *testing.F)           { targets.FuzzJSONRPC(f) }
func FuzzCodex(f *testing.F)             { targets.FuzzCodex(f) }
func FuzzClaude(f *testing.F)            { targets.FuzzClaude(f) }
func FuzzAppServer(f *testing.F)         { targets.FuzzAppServer(f) }
func FuzzGemini(f *testing.F)            { targets.FuzzGemini(f) }
func FuzzAnthropicMessages(f *testing.F) { targets.FuzzAnthropicMessages(f) }
func FuzzOpenAIResponses(f *testing.F)   { targets.FuzzOpenAIResponses(f) }
func FuzzOpenAIChat(f *testing.F)        { targets.FuzzOpenAIChat(f) }
func FuzzChunking(f *testing.F)          { targets.FuzzChunking(f) }
func FuzzCodec(f *testing.F)             { targets.FuzzCodec(f) }
