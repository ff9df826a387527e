// Package targets holds the fuzz functions of package fuzz in a non-test
// file, so that OSS-Fuzz's compile_native_go_fuzzer (go-118-fuzz-build)
// can build each one as a libFuzzer target. The native Go fuzz tests in
// package fuzz call these same functions.
//
// targets.go is generated from the fuzz.Targets registry (go generate
// ./fuzz): a provider registered in package provider gets its function
// there without an edit here.
package targets
