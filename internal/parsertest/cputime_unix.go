//go:build unix

package parsertest

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user + system) the process has used: on a
// shared machine it measures the parser's cost where wall time measures
// the neighbours'.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
