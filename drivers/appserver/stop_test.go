package appserver_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/appserver"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
)

func stopDriver(binary string, env []string) driver.Driver {
	return appserver.New(appserver.Config{Binary: binary, Env: env, Grace: drvtest.StopGrace})
}

var requestID = regexp.MustCompile(`,"id":[0-9]+,`)

// floodCase replays approval-accept up to its first approval request (so
// the turn is known and the gentle stop is turn/interrupt), then floods
// that request under new ids; the driver answers each on a stdin the
// server never reads, so its writes block, its interrupt too.
func floodCase(t testing.TB) drvtest.StopCase {
	ls := lines(t, "approval-accept")
	var head strings.Builder
	var req string
	for _, l := range ls {
		if strings.Contains(l, `"method":"item/commandExecution/requestApproval"`) {
			req = strings.TrimSuffix(l, "\n")
			break
		}
		head.WriteString(l)
	}
	if !requestID.MatchString(req) {
		t.Fatalf("no approval request with an id in approval-accept: %.100q", req)
	}
	req = requestID.ReplaceAllString(strings.ReplaceAll(req, "%", "%%"), `,"id":%d,`)
	return drvtest.StopCase{Name: "flood-unread-answers", Script: "flood-unread.sh", Cancel: true, Stall: 300 * time.Millisecond,
		Env: []string{"FLOOD_HEAD=" + head.String(), "FLOOD_LINE=" + req, "FLOOD_COUNT=3000"}}
}

func stopCases(t testing.TB) []drvtest.StopCase { return append(drvtest.StopCases(), floodCase(t)) }

func TestStop(t *testing.T) {
	for _, sc := range stopCases(t) {
		t.Run(sc.Name, func(t *testing.T) { drvtest.RunStop(t, stopDriver, sc) })
	}
}

func TestSoak(t *testing.T) { drvtest.Soak(t, stopDriver, stopCases(t)) }

func BenchmarkStop(b *testing.B) { drvtest.BenchmarkStop(b, stopDriver, stopCases(b)) }
