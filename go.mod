module github.com/agentwire/agentwire

go 1.26

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/sourcegraph/jsonrpc2 v0.2.3 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
