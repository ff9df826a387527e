// Package fakecli is a scripted stand-in for a provider CLI, used by the
// drivers' tests: a test binary calls Main first thing in TestMain, and a
// driver configured with the test binary as its CLI and the script in its
// environment runs the script instead of the tests. The script replays
// captures and injects faults (stalls, crashes, huge or malformed lines,
// ignored SIGINT).
package fakecli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// EnvScript names the environment variable that holds the JSON Script.
const EnvScript = "AGENTWIRE_FAKECLI_SCRIPT"

// Script is what the fake CLI does.
type Script struct {
	// ArgsOut, when set, receives argv[1:] as JSON.
	ArgsOut string `json:"args_out,omitempty"`
	// StdinOut, when set, receives everything read from stdin when the
	// script ends (ReadStdin) or each line read (ReadLine).
	StdinOut string `json:"stdin_out,omitempty"`
	Steps    []Step `json:"steps"`
	// ByLastArg replaces Steps when the last argument (the prompt) is a key.
	ByLastArg map[string][]Step `json:"by_last_arg,omitempty"`
}

// Step is one action. Exactly one field is set.
type Step struct {
	// StdoutFile copies a file to stdout, with the templates of Stdout.
	StdoutFile string `json:"stdout_file,omitempty"`
	// Stdout is written to stdout. "{{ARG_AFTER:x}}" is replaced by the
	// argument following x ("" when absent), "{{ARG_AFTER:x|d}}" by d then.
	Stdout string `json:"stdout,omitempty"`
	// Stderr is written to stderr.
	Stderr string `json:"stderr,omitempty"`
	// Huge writes a line of that many bytes (a JSON string) to stdout.
	Huge int `json:"huge,omitempty"`
	// SleepMS sleeps.
	SleepMS int `json:"sleep_ms,omitempty"`
	// Stall blocks until a signal ends the process.
	Stall bool `json:"stall,omitempty"`
	// IgnoreSIGINT ignores SIGINT from now on.
	IgnoreSIGINT bool `json:"ignore_sigint,omitempty"`
	// OnSIGINT, when set, is written to stdout when SIGINT arrives, then
	// the process exits with code 130.
	OnSIGINT string `json:"on_sigint,omitempty"`
	// ReadStdin reads stdin to EOF.
	ReadStdin bool `json:"read_stdin,omitempty"`
	// ReadLine reads one line of stdin; it exits 0 at EOF.
	ReadLine bool `json:"read_line,omitempty"`
	// Exit exits with the code (use -1 for a crash by SIGKILL of itself).
	Exit *int `json:"exit,omitempty"`
}

// Main runs the script in the environment, if any, and exits; without one
// it returns at once.
func Main() {
	raw := os.Getenv(EnvScript)
	if raw == "" {
		return
	}
	var s Script
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		fmt.Fprintln(os.Stderr, "fakecli:", err)
		os.Exit(97)
	}
	os.Exit(run(s))
}

func run(s Script) int {
	if s.ArgsOut != "" {
		b, _ := json.Marshal(os.Args[1:])
		_ = os.WriteFile(s.ArgsOut, b, 0o644)
	}
	in := bufio.NewReader(os.Stdin)
	var stdin []byte
	saveStdin := func() {
		if s.StdinOut != "" {
			_ = os.WriteFile(s.StdinOut, stdin, 0o644)
		}
	}
	defer saveStdin()
	sigs := make(chan os.Signal, 1)
	steps := s.Steps
	if alt, ok := s.ByLastArg[os.Args[len(os.Args)-1]]; ok {
		steps = alt
	}
	for _, st := range steps {
		switch {
		case st.StdoutFile != "":
			b, err := os.ReadFile(st.StdoutFile)
			if err != nil {
				fmt.Fprintln(os.Stderr, "fakecli:", err)
				return 98
			}
			os.Stdout.WriteString(expand(string(b)))
		case st.Stdout != "":
			os.Stdout.WriteString(expand(st.Stdout))
		case st.Stderr != "":
			os.Stderr.WriteString(st.Stderr)
		case st.Huge > 0:
			os.Stdout.WriteString(`"` + strings.Repeat("x", st.Huge) + "\"\n")
		case st.SleepMS > 0:
			time.Sleep(time.Duration(st.SleepMS) * time.Millisecond)
		case st.Stall:
			for {
				time.Sleep(time.Hour)
			}
		case st.IgnoreSIGINT:
			signal.Ignore(syscall.SIGINT)
		case st.OnSIGINT != "":
			msg := expand(st.OnSIGINT)
			signal.Notify(sigs, syscall.SIGINT)
			go func() {
				<-sigs
				os.Stdout.WriteString(msg)
				saveStdin()
				os.Exit(130)
			}()
		case st.ReadStdin:
			for {
				b, err := in.ReadBytes('\n')
				stdin = append(stdin, b...)
				if err != nil {
					break
				}
			}
		case st.ReadLine:
			b, err := in.ReadBytes('\n')
			stdin = append(stdin, b...)
			saveStdin()
			if err != nil {
				return 0
			}
		case st.Exit != nil:
			if *st.Exit < 0 {
				saveStdin()
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				time.Sleep(time.Hour)
			}
			return *st.Exit
		}
	}
	return 0
}

func expand(s string) string {
	for {
		i := strings.Index(s, "{{ARG_AFTER:")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return s
		}
		spec := s[i+len("{{ARG_AFTER:") : i+j]
		key, def, _ := strings.Cut(spec, "|")
		val := def
		for k, a := range os.Args {
			if a == key && k+1 < len(os.Args) {
				val = os.Args[k+1]
				break
			}
		}
		s = s[:i] + val + s[i+j+2:]
	}
}

// Env returns the environment entry that runs script.
func Env(s Script) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return EnvScript + "=" + string(b)
}

// Exit returns a pointer to code, for Step.Exit.
func Exit(code int) *int { return &code }
