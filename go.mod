module github.com/agentwire/agentwire

go 1.26

require (
	github.com/google/go-cmp v0.7.0
	github.com/segmentio/encoding v0.5.4
	github.com/sourcegraph/jsonrpc2 v0.2.3
	golang.org/x/sys v0.0.0-20211110154304-99a53858aa08
	pgregory.net/rapid v1.3.0
)

require github.com/segmentio/asm v1.1.3 // indirect
