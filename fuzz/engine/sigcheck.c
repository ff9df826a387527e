/*
 * The check of sigonstack.c that fuzz/engine/build runs before it builds
 * any target: a trivial libFuzzer target, linked exactly as the Go targets
 * are ($CC $CFLAGS $LIB_FUZZING_ENGINE, so with sigonstack.o and the
 * sanitizer), that looks at the disposition of every signal once libFuzzer
 * has installed its handlers (the first input runs after SetSignalHandler)
 * and exits with status 1, naming them, when a handler lacks SA_ONSTACK.
 * Such a handler runs on whatever stack the interrupted thread was using,
 * in a Go binary a goroutine's, and corrupts memory past its end (see
 * sigonstack.c). The build runs it with -timeout, so libFuzzer's SIGALRM
 * handler is among those checked.
 *
 * It exits with _exit, not exit: libFuzzer turns an exit() from the target
 * into a crash report with an artifact, and this is a build check.
 */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	static int done;
	int handlers = 0, bad = 0;
	(void)data;
	(void)size;
	if (done++)
		return 0;
	for (int sig = 1; sig < 32; sig++) {
		struct sigaction sa;
		if (sigaction(sig, NULL, &sa) != 0)
			continue;
		if (sa.sa_flags & SA_SIGINFO ? sa.sa_sigaction == NULL
		                             : sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN)
			continue;
		handlers++;
		if (!(sa.sa_flags & SA_ONSTACK)) {
			fprintf(stderr, "sigcheck: the handler of signal %d (%s) lacks SA_ONSTACK\n", sig, strsignal(sig));
			bad++;
		}
	}
	if (handlers == 0) {
		fprintf(stderr, "sigcheck: no signal handler is installed, so libFuzzer's were not checked\n");
		_exit(1);
	}
	if (bad) {
		fprintf(stderr, "sigcheck: %d of %d signal handlers lack SA_ONSTACK: a Go libFuzzer binary linked so corrupts goroutine stacks (fuzz/engine/sigonstack.c)\n", bad, handlers);
		_exit(1);
	}
	fprintf(stderr, "sigcheck: all %d signal handlers have SA_ONSTACK\n", handlers);
	return 0;
}
