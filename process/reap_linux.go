//go:build linux

package process

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Descendants that leave the process group (setsid, setpgid, a double
// fork) are found on Linux in one of two ways.
//
// Where a cgroup v2 directory can be created below the host's own cgroup
// (root, or a delegated cgroup), every run gets its own cgroup and the
// CLI is started inside it (clone3 CLONE_INTO_CGROUP, so not even its
// first instruction runs outside). No descendant can leave it: killing
// the run writes cgroup.kill (or SIGKILLs every pid of cgroup.procs on a
// kernel before 5.14), and the empty cgroup is removed after the run.
//
// Where no cgroup can be created (no cgroup2 mount, no write permission),
// a descendant that left the group is found only while it holds one of
// the run's stdout or stderr pipes (a /proc/*/fd scan after the leader
// exited and the readers did not reach EOF): it is killed then. A
// descendant that left the group and closed or redirected those pipes
// survives the run; nothing else can find it without a cgroup, and a
// child subreaper (PR_SET_CHILD_SUBREAPER) is not used because it would
// make the whole host the parent of every orphan of every child it runs,
// which the host would then have to reap.

// useCgroups is whether Start may create a cgroup per run. A variable so
// tests can exercise the fallback.
var useCgroups atomic.Bool

func init() { useCgroups.Store(true) }

// cgroupBase is the host's own cgroup v2 directory, or "" when there is
// none.
var cgroupBase = sync.OnceValue(func() string {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	var path string
	for _, l := range strings.Split(string(self), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			path = p
		}
	}
	if path == "" {
		return ""
	}
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer mi.Close()
	sc := bufio.NewScanner(mi)
	for sc.Scan() {
		// id parent maj:min root mountpoint opts... - fstype source superopts
		f := strings.Fields(sc.Text())
		sep := -1
		for i, s := range f {
			if s == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+1 >= len(f) || f[sep+1] != "cgroup2" {
			continue
		}
		root, mnt := f[3], f[4]
		rel, ok := strings.CutPrefix(path, root)
		if !ok {
			continue
		}
		return filepath.Join(mnt, rel)
	}
	return ""
})

var cgroupSeq atomic.Uint64

// cgroup is the cgroup v2 directory of one run.
type cgroup struct {
	dir string
	fd  *os.File // open until the process started
}

// newCgroup creates the cgroup of a run, or returns nil where none can be
// created (and stops trying after the first failure).
func newCgroup() *cgroup {
	if !useCgroups.Load() {
		return nil
	}
	base := cgroupBase()
	if base == "" {
		return nil
	}
	dir := filepath.Join(base, fmt.Sprintf("agentwire-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		useCgroups.Store(false)
		return nil
	}
	fd, err := os.Open(dir)
	if err != nil {
		_ = os.Remove(dir)
		useCgroups.Store(false)
		return nil
	}
	return &cgroup{dir: dir, fd: fd}
}

// attach makes the process start inside the cgroup.
func (c *cgroup) attach(a *syscall.SysProcAttr) {
	a.UseCgroupFD = true
	a.CgroupFD = int(c.fd.Fd())
}

// started closes the directory handle once the process runs in it.
func (c *cgroup) started() { _ = c.fd.Close() }

func (c *cgroup) pids() []int {
	b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// kill SIGKILLs every process in the cgroup and reports whether there was
// any.
func (c *cgroup) kill() bool {
	if len(c.pids()) == 0 {
		return false
	}
	if os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0) != nil {
		for range 10 { // a kernel before 5.14: kill what is there until nothing forks
			pids := c.pids()
			if len(pids) == 0 {
				break
			}
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	return true
}

// remove kills what is left, waits up to wait for the cgroup to empty and
// removes it.
func (c *cgroup) remove(wait time.Duration) bool {
	left := c.kill()
	deadline := time.Now().Add(wait)
	for os.Remove(c.dir) != nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return left
}

// findPipeHolders is killPipeHolders; a variable so tests can blind it.
var findPipeHolders = killPipeHolders

// killPipeHolders SIGKILLs every other process that holds one of files
// open (found in /proc/*/fd) and reports whether there was any.
func killPipeHolders(files ...*os.File) bool {
	want := map[string]bool{}
	for _, f := range files {
		var st syscall.Stat_t
		if syscall.Fstat(int(f.Fd()), &st) == nil {
			want["pipe:["+strconv.FormatUint(st.Ino, 10)+"]"] = true
		}
	}
	if len(want) == 0 {
		return false
	}
	self := os.Getpid()
	procs, _ := os.ReadDir("/proc")
	found := false
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		fds, _ := os.ReadDir("/proc/" + e.Name() + "/fd")
		for _, fd := range fds {
			if l, err := os.Readlink("/proc/" + e.Name() + "/fd/" + fd.Name()); err == nil && want[l] {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				found = true
				break
			}
		}
	}
	return found
}
