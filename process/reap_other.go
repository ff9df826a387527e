//go:build !linux

package process

import (
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// Outside Linux a descendant that left the process group is not found:
// there are no cgroups and no /proc to find it by.

type cgroup struct{}

func newCgroup() *cgroup                    { return nil }
func (*cgroup) attach(*syscall.SysProcAttr) {}
func (*cgroup) started()                    {}
func (*cgroup) kill() bool                  { return false }
func (*cgroup) remove(time.Duration) bool   { return false }
func findPipeHolders(...*os.File) bool      { return false }

var useCgroups atomic.Bool
