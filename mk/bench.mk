# End-to-end benchmarks (bench/e2e): the library's Feed and Parse and the
# agentwire command against scan+map and the IndexByte limit, on long
# streams built from corpus captures and on hostile streams. Interleaved
# rounds, CPU time; see bench/e2e/e2e_test.go and bench/README.md.
E2E_ROUNDS ?= 3
E2E_MB ?= 50
E2E_LINES ?= 1000000

.PHONY: bench-e2e
bench-e2e:
	cd bench && E2E_ROUNDS=$(E2E_ROUNDS) E2E_MB=$(E2E_MB) E2E_LINES=$(E2E_LINES) $(GO) test -run TestE2E -v -count=1 -timeout 120m ./e2e/
