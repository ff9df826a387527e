package codex_test

import (
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/codex"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
)

func stopDriver(binary string, env []string) driver.Driver {
	return codex.New(codex.Config{Binary: binary, Env: env, Grace: drvtest.StopGrace})
}

// stopCases adds a prompt the CLI never reads: it starts with '-', so it
// goes to stdin, and it is larger than the pipe.
func stopCases() []drvtest.StopCase {
	return append(drvtest.StopCases(), drvtest.StopCase{Name: "prompt-1MiB-unread", Script: "ignore-signals.sh", Cancel: true,
		Prompt: "-" + strings.Repeat("x", 1<<20)})
}

func TestStop(t *testing.T) {
	for _, sc := range stopCases() {
		t.Run(sc.Name, func(t *testing.T) { drvtest.RunStop(t, stopDriver, sc) })
	}
}

func TestSoak(t *testing.T) { drvtest.Soak(t, stopDriver, stopCases()) }

func BenchmarkStop(b *testing.B) { drvtest.BenchmarkStop(b, stopDriver, stopCases()) }
