//go:build !unix

package claude

import "time"

func processCPU() time.Duration { return 0 }
