//go:build unix

package claude

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) the process has used: on a
// shared machine it measures the parser's cost where wall time measures
// the neighbours'.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
