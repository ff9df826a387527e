package claude_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/claude"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
)

func stopDriver(interactive bool) drvtest.StopDriver {
	return func(binary string, env []string) driver.Driver {
		return claude.New(claude.Config{Binary: binary, Env: env, Grace: drvtest.StopGrace, Interactive: interactive})
	}
}

var requestID = regexp.MustCompile(`"request_id":"[^"]*"`)

// floodCase answers initialize, then floods can_use_tool requests (from
// the control-allow capture) that the driver answers on a stdin the CLI
// never reads, so the driver's writes block, its interrupt too.
func floodCase(t testing.TB) drvtest.StopCase {
	lines := capture(t, "control-allow")
	head := strings.Replace(lines[0], "req_1_agentwire", "agentwire_init_1", 1) + lines[1]
	var req string
	for _, l := range lines {
		if strings.Contains(l, `"subtype":"can_use_tool"`) {
			req = strings.TrimSuffix(l, "\n")
			break
		}
	}
	if req == "" {
		t.Fatal("no can_use_tool request in control-allow")
	}
	req = requestID.ReplaceAllString(strings.ReplaceAll(req, "%", "%%"), `"request_id":"flood-%d"`)
	return drvtest.StopCase{Name: "flood-unread-answers", Script: "flood-unread.sh", Cancel: true, Stall: 300 * time.Millisecond,
		Env: []string{"FLOOD_HEAD=" + head, "FLOOD_LINE=" + req, "FLOOD_COUNT=3000"}}
}

func TestStop(t *testing.T) {
	for _, sc := range drvtest.StopCases() {
		t.Run(sc.Name, func(t *testing.T) { drvtest.RunStop(t, stopDriver(false), sc) })
	}
	for _, sc := range append(drvtest.StopCases(), floodCase(t)) {
		t.Run("interactive/"+sc.Name, func(t *testing.T) { drvtest.RunStop(t, stopDriver(true), sc) })
	}
}

func TestSoak(t *testing.T) {
	t.Run("one-shot", func(t *testing.T) { drvtest.Soak(t, stopDriver(false), drvtest.StopCases()) })
	t.Run("interactive", func(t *testing.T) { drvtest.Soak(t, stopDriver(true), append(drvtest.StopCases(), floodCase(t))) })
}

func BenchmarkStop(b *testing.B) {
	b.Run("one-shot", func(b *testing.B) { drvtest.BenchmarkStop(b, stopDriver(false), drvtest.StopCases()) })
	b.Run("interactive", func(b *testing.B) {
		drvtest.BenchmarkStop(b, stopDriver(true), append(drvtest.StopCases(), floodCase(b)))
	})
}
