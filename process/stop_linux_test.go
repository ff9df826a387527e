package process

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withoutCgroups runs f as on a host where no cgroup can be created.
func withoutCgroups(t *testing.T) {
	old := useCgroups.Load()
	useCgroups.Store(false)
	t.Cleanup(func() { useCgroups.Store(old) })
}

func TestCgroupInUse(t *testing.T) {
	if cgroupBase() == "" {
		t.Skip("no cgroup2 mount")
	}
	cg := newCgroup()
	if cg == nil {
		t.Skip("no cgroup can be created here: the fallback is all there is")
	}
	cg.started()
	cg.remove(0)
}

// Without a cgroup, an escaped descendant that holds a pipe is found by it
// and killed; one that holds none (a daemon) survives, as documented.
func TestNoCgroupFallback(t *testing.T) {
	withoutCgroups(t)
	d, pids := runStop(t, stopCases[4]) // setsid-grandchild
	if stopCases[4].script != "setsid-grandchild.sh" || len(pids) != 2 {
		t.Fatalf("case %s, pids %v", stopCases[4].name, pids)
	}
	if d > stopGrace+time.Second || alive(pids[1]) {
		t.Errorf("took %v; grandchild %d alive %v", d, pids[1], alive(pids[1]))
	}

	daemon := stopCase{name: "setsid-daemon", script: "setsid-daemon.sh", check: func(t testing.TB, res Result, err error) {
		if err != nil || res.ExitCode != 0 || res.Killed {
			t.Errorf("err %v, %s", err, flags(res))
		}
	}}
	_, pids = runStop(t, daemon)
	if len(pids) != 2 {
		t.Fatalf("pids %v", pids)
	}
	defer syscall.Kill(pids[1], syscall.SIGKILL)
	if !aliveNow(pids[1]) {
		t.Errorf("the daemon %d was found without a cgroup: update the documented limit", pids[1])
	}
}

// A pipe holder nothing can find costs DrainTimeout of silence, then the
// pipes are closed and Wait says why.
func TestDrainTimeoutWhenHolderIsNotFound(t *testing.T) {
	withoutCgroups(t)
	old, oldFind := DrainTimeout, findPipeHolders
	DrainTimeout, findPipeHolders = 200*time.Millisecond, func(...*os.File) bool { return false }
	defer func() { DrainTimeout, findPipeHolders = old, oldFind }()
	sc := stopCase{name: "hidden", script: "setsid-grandchild.sh", check: func(t testing.TB, res Result, err error) {
		if err == nil || !strings.Contains(err.Error(), "pipes still open") {
			t.Errorf("err = %v, want the drain-timeout error", err)
		}
		if !strings.HasPrefix(string(res.Stdout), "child ") || res.Killed {
			t.Errorf("stdout %q, %s", res.Stdout, flags(res))
		}
	}}
	d, pids := runStop(t, sc)
	for _, pid := range pids[1:] {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if d > DrainTimeout+time.Second {
		t.Errorf("took %v", d)
	}
}
