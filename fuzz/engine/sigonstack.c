/*
 * Linked into every libFuzzer binary by fuzz/engine/build, in the place of
 * the gosigfuzz.o object that OSS-Fuzz's base-builder-go image appends to
 * $LIB_FUZZING_ENGINE for Go projects (same purpose, written for
 * agentwire).
 *
 * The Go runtime runs signal handlers on the alternate signal stack it
 * gives each thread, and aborts ("non-Go code set up signal handler
 * without SA_ONSTACK flag") when a handler installed by C code (here the
 * sanitizer runtime) runs on a goroutine stack. libFuzzer calls
 * LLVMFuzzerInitialize before it starts fuzzing; this one re-installs the
 * handler of every signal the fuzzer and the sanitizer use with
 * SA_ONSTACK added and nothing else changed.
 */
#include <signal.h>
#include <stddef.h>

static void add_onstack(int sig) {
	struct sigaction sa;
	if (sigaction(sig, NULL, &sa) != 0)
		return;
	if (!(sa.sa_flags & SA_SIGINFO) && (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN))
		return;
	sa.sa_flags |= SA_ONSTACK;
	sigaction(sig, &sa, NULL);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGALRM,
		SIGINT, SIGTERM, SIGXFSZ, SIGUSR1, SIGUSR2};
	(void)argc;
	(void)argv;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		add_onstack(sigs[i]);
	return 0;
}
