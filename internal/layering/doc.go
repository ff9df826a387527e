// Package layering holds the test that enforces the import rules of the
// agentwire design over every package of the module, present and future.
// It has no API.
package layering
