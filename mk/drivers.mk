# End-to-end tests of the reference drivers (drivers/): the real pinned CLIs
# (make cli-install) against the recorder's mock model servers. Each test
# re-executes itself inside `unshare -n` (only loopback); without the CLIs or
# unshare the tests skip and say why. DRIVERS_E2E_RUN selects tests.
DRIVERS_E2E_RUN ?= TestE2E
DRIVERS_E2E_FLAGS ?= -race -count=1 -v -timeout 20m

.PHONY: drivers-e2e drivers-test drivers-soak drivers-stop-bench

# Unit tests of the drivers (fake CLI, always hermetic).
drivers-test:
	$(GO) test -race -count=1 ./drivers/...

drivers-e2e:
	AGENTWIRE_E2E=1 AGENTWIRE_CLI_CACHE=$(abspath $(RECORD_CACHE)) $(GO) test $(DRIVERS_E2E_FLAGS) -run '$(DRIVERS_E2E_RUN)' ./drivers/...

# 200 cancel cycles per driver against the stop cases of
# process/testdata/stop: goroutines, fds and children back to baseline.
drivers-soak:
	AGENTWIRE_SOAK=1 $(GO) test -race -count=1 -v -timeout 30m -p 1 -run 'TestSoak' ./drivers/codex ./drivers/claude ./drivers/appserver ./drivers/acp

# Cancel latency p50/p99 per stop case, process.Run and every driver.
drivers-stop-bench:
	$(GO) test -run '^$$' -bench 'BenchmarkCancel|BenchmarkStop' -benchtime 20x -cpu 1 -p 1 ./process ./drivers/codex ./drivers/claude ./drivers/appserver ./drivers/acp
