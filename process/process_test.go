package process

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
)

// The test binary doubles as the child process: with AGENTWIRE_PROCESS_HELPER
// set, TestMain runs the named behaviour instead of the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("AGENTWIRE_PROCESS_HELPER"); mode != "" {
		helper(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func helper(mode string) {
	switch mode {
	case "echo":
		data, _ := io.ReadAll(os.Stdin)
		os.Stdout.Write(data)
		fmt.Fprint(os.Stderr, "warning: on stderr\n")
		code, _ := strconv.Atoi(os.Getenv("EXIT"))
		os.Exit(code)
	case "big":
		line := bytes.Repeat([]byte("x"), 1<<20)
		for i := range 5 {
			os.Stdout.Write(line)
			fmt.Fprintf(os.Stdout, "\n%d\n", i)
			fmt.Fprintf(os.Stderr, "e%d\n", i)
		}
	case "graceful":
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT)
		fmt.Println("ready")
		<-ch
		fmt.Println("interrupted, bye")
		os.Exit(130)
	case "ignore-int":
		signal.Ignore(syscall.SIGINT)
		fmt.Println("ready")
		time.Sleep(time.Minute)
	case "grandchild":
		// A child in our group keeps stdout open after we exit.
		c := exec.Command("sleep", "60")
		c.Stdout = os.Stdout
		_ = c.Start()
		fmt.Printf("child %d\n", c.Process.Pid)
	case "protocol":
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Printf("{\"echo\":%q}\n", sc.Text())
		}
	}
}

func helperCmd(mode string, env ...string) Command {
	return Command{Path: os.Args[0], Args: []string{"-test.run=^$"}, Env: append(append(os.Environ(), "AGENTWIRE_PROCESS_HELPER="+mode), env...)}
}

func chunks(s *adaptertest.RecordingSink, stream string) []byte {
	var b []byte
	for _, ev := range s.Events {
		if ev.Type == driver.RunEventChunk && ev.Stream == stream {
			b = append(b, ev.Bytes...)
		}
	}
	return b
}

// checkNoLeak fails when goroutines started during the test outlive it.
func checkNoLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines leaked:\n%s", n-before, buf[:runtime.Stack(buf, true)])
		}
	})
}

// alive reports whether pid is still a live process after giving a killed
// process a moment to finish dying. A zombie (killed, not yet reaped by an
// init that does not reap) counts as dead.
func alive(pid int) bool {
	for range 100 {
		if !aliveNow(pid) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func aliveNow(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

func TestRunCapturesEverything(t *testing.T) {
	checkNoLeak(t)
	var sink adaptertest.RecordingSink
	var observed []byte
	c := helperCmd("echo", "EXIT=3")
	c.Stdin = strings.NewReader("hello\nworld\n")
	c.Stdout = func(b []byte) error { observed = append(observed, b...); return nil }
	res, err := Run(context.Background(), c, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "hello\nworld\n" || string(res.Stderr) != "warning: on stderr\n" {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	if res.ExitCode != 3 || res.Signal != "" || res.Cancelled || res.Killed {
		t.Errorf("result %+v", res)
	}
	if !bytes.Equal(observed, res.Stdout) || !bytes.Equal(chunks(&sink, "stdout"), res.Stdout) || !bytes.Equal(chunks(&sink, "stderr"), res.Stderr) {
		t.Errorf("observer or chunks differ from raw")
	}
	if sink.Events[0].Type != driver.RunEventInvocation || sink.Events[1].Type != driver.RunEventSpawn {
		t.Errorf("first events %s %s", sink.Events[0].Type, sink.Events[1].Type)
	}
	env := sink.Events[0].Data["env"].([]string)
	for _, name := range env {
		if strings.Contains(name, "=") {
			t.Errorf("invocation leaks an env value: %q", name)
		}
	}
	if vs := adaptertest.CheckRun(sink.Events, driver.Response{RawStreams: &driver.RawStreams{Stdout: string(res.Stdout), Stderr: string(res.Stderr)}}); len(vs) != 0 {
		t.Errorf("CheckRun: %s", vs)
	}
}

func TestRunLargeOutputSmallReads(t *testing.T) {
	checkNoLeak(t)
	old := ReadSize
	ReadSize = 1000
	defer func() { ReadSize = old }()
	var sink adaptertest.RecordingSink
	res, err := Run(context.Background(), helperCmd("big"), &sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != 5*(1<<20)+5*3 || !bytes.Equal(chunks(&sink, "stdout"), res.Stdout) || string(res.Stderr) != "e0\ne1\ne2\ne3\ne4\n" {
		t.Errorf("stdout %d bytes, stderr %q", len(res.Stdout), res.Stderr)
	}
}

func TestCancelGraceful(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithCancel(context.Background())
	var sink adaptertest.RecordingSink
	c := helperCmd("graceful")
	c.Stdout = func(b []byte) error {
		if bytes.Contains(b, []byte("ready")) {
			cancel()
		}
		return nil
	}
	start := time.Now()
	res, err := Run(ctx, c, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || !res.Interrupted || res.Killed || res.ExitCode != 130 {
		t.Errorf("result %+v", res)
	}
	if !strings.Contains(string(res.Stdout), "interrupted, bye") {
		t.Errorf("bytes written after the interrupt were lost: %q", res.Stdout)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancel took %v", d)
	}
}

func TestCancelKillsAfterGrace(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithCancel(context.Background())
	c := helperCmd("ignore-int")
	c.Grace = 200 * time.Millisecond
	c.Stdout = func(b []byte) error {
		if bytes.Contains(b, []byte("ready")) {
			cancel()
		}
		return nil
	}
	var sink adaptertest.RecordingSink
	start := time.Now()
	res, err := Run(ctx, c, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Killed || res.Signal != "SIGKILL" || string(res.Stdout) != "ready\n" {
		t.Errorf("result %+v", res)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancel took %v", d)
	}
	if alive(res.PID) {
		t.Errorf("process %d still alive", res.PID)
	}
}

func TestDeadlineIsTimedOut(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	c := helperCmd("ignore-int")
	c.Grace = 50 * time.Millisecond
	var sink adaptertest.RecordingSink
	res, _ := Run(ctx, c, &sink)
	// The SIGINT may arrive before the child ignores it: either way the
	// deadline, not a cancellation, ended the run.
	if !res.TimedOut || res.Cancelled || !res.Interrupted || (res.Signal != "SIGINT" && res.Signal != "SIGKILL") {
		t.Errorf("result %+v", res)
	}
}

func TestProtocolInterrupt(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithCancel(context.Background())
	c := helperCmd("protocol")
	c.KeepStdin = true
	c.Grace = 10 * time.Second // the test is not about time: a loaded machine may be slow
	var interrupted bool
	c.Interrupt = func(p *Process) error {
		interrupted = true
		_, err := io.WriteString(p.Stdin(), "interrupt\n")
		p.CloseStdin() // the helper exits at EOF
		return err
	}
	var sink adaptertest.RecordingSink
	p, err := Start(ctx, c, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p.Stdin(), "hello\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	cancel()
	res, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !interrupted || res.Killed || string(res.Stdout) != "{\"echo\":\"hello\"}\n{\"echo\":\"interrupt\"}\n" {
		t.Errorf("interrupted=%v result %+v stdout %q", interrupted, res, res.Stdout)
	}
	if _, err := p.Stdin().Write([]byte("late\n")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("write after exit = %v, want os.ErrClosed", err)
	}
}

func TestGrandchildInGroupIsKilled(t *testing.T) {
	checkNoLeak(t)
	var sink adaptertest.RecordingSink
	res, err := Run(context.Background(), helperCmd("grandchild"), &sink)
	if err != nil { // the drain-timeout error, if the grandchild kept the readers waiting
		t.Fatal(err)
	}
	if !res.KilledDescendants || res.Killed {
		t.Errorf("result %+v", res)
	}
	var pid int
	fmt.Sscanf(string(res.Stdout), "child %d", &pid)
	if pid == 0 || alive(pid) {
		st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		t.Errorf("grandchild %d survived (stdout %q) stat %s", pid, res.Stdout, st)
	}
}

func TestSinkErrorStopsTheProcess(t *testing.T) {
	checkNoLeak(t)
	sink := &adaptertest.RecordingSink{FailAfter: 2} // invocation and spawn pass, the first chunk fails
	c := helperCmd("ignore-int")
	res, err := Run(context.Background(), c, sink)
	if !errors.Is(err, adaptertest.ErrSinkFailed) {
		t.Fatalf("err = %v", err)
	}
	if !res.Killed || string(res.Stdout) != "ready\n" {
		t.Errorf("result %+v", res)
	}
}

func TestObserverErrorStopsTheProcess(t *testing.T) {
	checkNoLeak(t)
	boom := errors.New("parser failed")
	c := helperCmd("ignore-int")
	c.Stdout = func([]byte) error { return boom }
	var sink adaptertest.RecordingSink
	if _, err := Run(context.Background(), c, &sink); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

func TestStartFailure(t *testing.T) {
	var sink adaptertest.RecordingSink
	if _, err := Run(context.Background(), Command{Path: "/nonexistent/agentwire-cli"}, &sink); err == nil {
		t.Fatal("want a start error")
	}
	// A sink that refuses the invocation event stops the launch.
	p, err := Start(context.Background(), helperCmd("echo"), &adaptertest.RecordingSink{FailAfter: -1})
	if err != nil {
		t.Fatalf("FailAfter<0 never fails: %v", err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	refusing := &adaptertest.RecordingSink{FailAfter: 1}
	_ = refusing.Emit(driver.RunEvent{Type: driver.RunEventLifecycle})
	if _, err := Start(context.Background(), helperCmd("echo"), refusing); !errors.Is(err, adaptertest.ErrSinkFailed) {
		t.Fatalf("err = %v, want the sink error", err)
	}
}

func TestSerialize(t *testing.T) {
	var rs adaptertest.RecordingSink
	s := Serialize(&rs)
	d, ok := s.(driver.DecisionCapableSink)
	if !ok {
		t.Fatal("Serialize lost DecisionCapableSink")
	}
	rs.Answers = []driver.DecisionResponse{{Result: driver.DecisionApproved}}
	if r, err := d.RequestDecision(context.Background(), driver.DecisionRequest{}); err != nil || r.Result != driver.DecisionApproved {
		t.Errorf("decision %+v %v", r, err)
	}
	_ = s.Emit(driver.RunEvent{Type: driver.RunEventLifecycle})
	_ = s.EmitStream(driver.StreamPayload{Kind: driver.StreamRunStarted})
	if len(rs.Order) != 2 {
		t.Errorf("order %v", rs.Order)
	}
	if _, ok := Serialize(plainSink{}).(driver.DecisionCapableSink); ok {
		t.Errorf("a plain sink must not become decision-capable")
	}
}

type plainSink struct{}

func (plainSink) Emit(driver.RunEvent) error            { return nil }
func (plainSink) EmitStream(driver.StreamPayload) error { return nil }
