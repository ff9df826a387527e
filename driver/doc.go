// Package driver is the agentwire driver SPI: the vocabulary shared by
// drivers, parsers, the conformance suite and the CLI. It imports only the
// standard library.
package driver
