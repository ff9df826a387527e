//go:build !unix

package parsertest

import "time"

// CPUTime is the process CPU time where the platform reports it; here it
// does not, and CPUTime is 0 (benchmarks then skip their cpuMB/s metric).
func CPUTime() time.Duration { return 0 }
