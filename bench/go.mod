module github.com/agentwire/agentwire/bench

go 1.26.0

replace github.com/agentwire/agentwire => ../

require (
	github.com/agentwire/agentwire v0.0.0-00010101000000-000000000000
	github.com/anthropics/anthropic-sdk-go/v2 v2.15.0
	github.com/launchdarkly/eventsource v1.11.0
	github.com/openai/openai-go/v3 v3.98.0
	github.com/r3labs/sse/v2 v2.10.0
	github.com/segmentio/encoding v0.5.4
	github.com/sourcegraph/jsonrpc2 v0.2.3
	github.com/tmaxmax/go-sse v0.12.0
	gopkg.in/cenkalti/backoff.v1 v1.1.0
)

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
