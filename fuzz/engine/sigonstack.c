/*
 * Linked into every libFuzzer binary by fuzz/engine/build, in the place of
 * the gosigfuzz.o object that OSS-Fuzz's base-builder-go image appends to
 * $LIB_FUZZING_ENGINE for Go projects (same mechanism, written for
 * agentwire; the differences are below).
 *
 * Why: in a process that runs Go code every signal handler must be
 * installed with SA_ONSTACK (Go's cgo documentation says so). A
 * process-directed signal, such as the SIGALRM of the setitimer(ITIMER_REAL)
 * that libFuzzer arms every -timeout/2+1 seconds, is delivered to any
 * thread that does not block it, often one running a goroutine.
 * Without SA_ONSTACK the kernel writes its signal frame (AT_MINSIGSTKSZ,
 * 3,632 bytes on an AVX-512 machine) and the C handler's frames below the
 * goroutine's stack pointer, where the goroutine's stack may have only a
 * few hundred bytes left (its guard is 928 bytes on linux/amd64, and
 * nosplit functions run inside the guard): what lies past the end belongs
 * to another goroutine's stack or to the heap. That is how the
 * session-4 libFuzzer runs died after 1 to 9 minutes with "found pointer to
 * free object" and a SIGSEGV at pc 0x8000000 (fuzz/README.md, session 6).
 * The Go runtime's own handlers always have SA_ONSTACK and run on the
 * alternate signal stack the runtime gives every thread.
 *
 * How: libFuzzer calls LLVMFuzzerInitialize first and installs its own
 * handlers (SIGALRM, SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGABRT, SIGILL,
 * SIGFPE, SIGXFSZ, SIGUSR1, SIGUSR2 with clang 14) after it returns
 * (FuzzerDriver.cpp: LLVMFuzzerInitialize, then SetSignalHandler), so
 * re-installing handlers here reaches only the sanitizer's and the Go
 * runtime's, which already have the flag. What works is what gosigfuzz.c
 * does: set SA_ONSTACK on the disposition of each signal even while it is
 * SIG_DFL, because libFuzzer's SetSigaction (FuzzerUtilPosix.cpp) keeps
 * an SA_ONSTACK it finds when it replaces a disposition. A version of this
 * file that skipped SIG_DFL signals left eight of libFuzzer's handlers,
 * SIGALRM's among them, without the flag; fuzz/engine/sigcheck.c, run by fuzz/engine/build, fails the
 * build whenever a handler of a libFuzzer binary linked with this object
 * lacks it.
 *
 * Differences from gosigfuzz.c: every signal from 1 to 31 (not a list of
 * ten, which misses SIGILL, handled by libFuzzer's -handle_ill, and any
 * signal a later libFuzzer handles), and the signal mask of an
 * installed handler is kept (gosigfuzz.c empties it, also for the Go
 * runtime's SIGBUS and SIGFPE handlers, which Go installs blocking every
 * signal while they run).
 * SIGKILL and SIGSTOP cannot be changed and are left alone.
 */
#include <signal.h>
#include <stddef.h>

static void add_onstack(int sig) {
	struct sigaction sa;
	if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa) != 0)
		return;
	if (sa.sa_flags & SA_ONSTACK)
		return;
	sa.sa_flags |= SA_ONSTACK;
	sigaction(sig, &sa, NULL);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
	(void)argc;
	(void)argv;
	for (int sig = 1; sig < 32; sig++)
		add_onstack(sig);
	return 0;
}
