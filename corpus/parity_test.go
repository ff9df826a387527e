package corpus

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/appserver"
	"github.com/agentwire/agentwire/parsers/claude"
	"github.com/agentwire/agentwire/parsers/codex"
	"github.com/google/go-cmp/cmp"
)

// TestReplayMatchesParse: Replay, which feeds frames itself to know their
// offsets, gives the same response and payloads as each parser's own Parse
// convenience (cases whose replay needs more than Parse takes, a resumed
// codex run or Claude's recorded stdin, are left out).
func TestReplayMatchesParse(t *testing.T) {
	cases, err := Load(os.DirFS("."), ".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		var parse func(sink driver.EventSink) (driver.Response, error)
		out := c.Meta.Outcome()
		switch {
		case c.Provider == ProviderCodex && c.Prev == nil:
			parse = func(sink driver.EventSink) (driver.Response, error) {
				return codex.Parse(bytes.NewReader(c.Stdout), bytes.NewReader(c.Stderr), sink, codex.Options{Streaming: true, SessionData: sessionData(c)}, out)
			}
		case c.Provider == ProviderClaude && c.Stdin == nil:
			parse = func(sink driver.EventSink) (driver.Response, error) {
				return claude.Parse(bytes.NewReader(c.Stdout), bytes.NewReader(c.Stderr), sink, ClaudeOptions(c), out)
			}
		case c.Provider == ProviderAppServer:
			parse = func(sink driver.EventSink) (driver.Response, error) {
				var stdin *bytes.Reader
				if c.Stdin != nil {
					stdin = bytes.NewReader(c.Stdin)
				}
				if stdin == nil {
					return appserver.ParseSession(nil, bytes.NewReader(c.Stdout), bytes.NewReader(c.Stderr), sink, appServerParity(c), out)
				}
				return appserver.ParseSession(stdin, bytes.NewReader(c.Stdout), bytes.NewReader(c.Stderr), sink, appServerParity(c), out)
			}
		default:
			continue
		}
		n++
		r, err := Replay(c)
		if err != nil {
			t.Fatal(err)
		}
		sink := &adaptertest.RecordingSink{}
		resp, _ := parse(sink)
		// Marshalled bytes first: cmp.Diff is slow on megabyte responses.
		if !sameJSON(t, resp, r.Response) {
			t.Errorf("%s: Replay's response differs from Parse's (-parse +replay):\n%s", c.Name, cmp.Diff(resp, r.Response))
		}
		if !sameJSON(t, sink.Payloads, r.Sink.Payloads) {
			t.Errorf("%s: payloads differ (-parse +replay):\n%s", c.Name, cmp.Diff(sink.Payloads, r.Sink.Payloads))
		}
	}
	if n < 30 {
		t.Fatalf("only %d cases compared", n)
	}
}

func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

func appServerParity(c *Case) appserver.Options {
	o := AppServerOptions(c)
	o.Streaming = true
	return o
}
