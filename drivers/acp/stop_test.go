package acp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/acp"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
)

func stopDriver(binary string, env []string) driver.Driver {
	return acp.New(acp.Config{Command: binary, Env: env, Grace: drvtest.StopGrace})
}

// floodCase opens a session and a turn, then floods permission requests
// under new ids; the driver answers each on a stdin the agent never
// reads, so its writes block, its session/cancel too.
func floodCase() drvtest.StopCase {
	head := initOK + sessionOK + chunks
	req := `{"jsonrpc":"2.0","id":"p%d","method":"session/request_permission","params":{"sessionId":"` + sessionID +
		`","toolCall":{"toolCallId":"c%d","title":"Run x"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`
	// The printf format has one %d per line number; the call id reuses it.
	req = strings.Replace(req, `"c%d"`, `"c"`, 1)
	return drvtest.StopCase{Name: "flood-unread-answers", Script: "flood-unread.sh", Cancel: true, Stall: 300 * time.Millisecond,
		Env: []string{"FLOOD_HEAD=" + head, "FLOOD_LINE=" + req, "FLOOD_COUNT=3000"}}
}

func stopCases() []drvtest.StopCase { return append(drvtest.StopCases(), floodCase()) }

func TestStop(t *testing.T) {
	for _, sc := range stopCases() {
		t.Run(sc.Name, func(t *testing.T) { drvtest.RunStop(t, stopDriver, sc) })
	}
}

func TestSoak(t *testing.T) { drvtest.Soak(t, stopDriver, stopCases()) }

func BenchmarkStop(b *testing.B) { drvtest.BenchmarkStop(b, stopDriver, stopCases()) }
