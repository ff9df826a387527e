package record

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"unsafe"
)

// envNetns marks the re-executed recorder running inside its private
// network namespace.
const envNetns = "AGENTWIRE_RECORD_NETNS"

// ErrNoIsolation is returned when a private network namespace cannot be
// created (unshare missing or not permitted).
var ErrNoIsolation = errors.New("record: cannot create a private network namespace")

// InNamespace reports whether this process is the re-executed recorder.
func InNamespace() bool { return os.Getenv(envNetns) == "1" }

// Reexec runs the current executable again with args inside a new network
// namespace and a new mount namespace (unshare -n -m) and returns its exit
// code. The child must call SetupNamespace and LoopbackResolver before
// starting any CLI.
func Reexec(args []string) (int, error) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNoIsolation, err)
	}
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(unshare, append([]string{"-n", "-m", "--", self}, args...)...)
	cmd.Env = append(os.Environ(), envNetns+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}

// CheckUnshare reports whether a private network namespace (and the mount
// namespace LoopbackResolver needs) can be created here, by running
// unshare -n -m true.
func CheckUnshare() error {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoIsolation, err)
	}
	if out, err := exec.Command(unshare, "-n", "-m", "true").CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %v: %s", ErrNoIsolation, err, out)
	}
	return nil
}

// SetupNamespace brings the loopback interface up and checks that it is the
// only interface: nothing but 127.0.0.1 is reachable.
func SetupNamespace() error {
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("record: bringing lo up: %w", err)
	}
	return CheckIsolated()
}

// CheckIsolated returns an error unless the only network interface is an
// up loopback.
func CheckIsolated() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return err
	}
	up := false
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback == 0 {
			return fmt.Errorf("record: not isolated: interface %s present", i.Name)
		}
		up = up || i.Flags&net.FlagUp != 0
	}
	if !up {
		return errors.New("record: loopback is down")
	}
	return nil
}

// loopbackUp sets IFF_UP on "lo" with SIOCGIFFLAGS/SIOCSIFFLAGS, so the
// recorder needs no iproute2.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte
	}
	copy(ifr.name[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr))); e != 0 {
		return e
	}
	ifr.flags |= syscall.IFF_UP | syscall.IFF_RUNNING
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr))); e != 0 {
		return e
	}
	return nil
}

// LoopbackResolver bind-mounts a resolv.conf naming only 127.0.0.1 over
// /etc/resolv.conf, in a private mount namespace (see Reexec): a CLI's
// start-up look-up of its vendor's host (opencode and Qwen Code make one)
// then gets an immediate refusal from loopback, whatever resolver the
// machine has, instead of trying an unreachable nameserver. The file is
// written into dir.
func LoopbackResolver(dir string) error {
	f := filepath.Join(dir, "resolv.conf")
	if err := os.WriteFile(f, []byte("nameserver 127.0.0.1\n"), 0o644); err != nil {
		return err
	}
	if err := syscall.Mount(f, "/etc/resolv.conf", "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("record: bind-mounting %s over /etc/resolv.conf: %w", f, err)
	}
	return nil
}
