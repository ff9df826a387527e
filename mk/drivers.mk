# End-to-end tests of the reference drivers (drivers/): the real pinned CLIs
# (make cli-install) against the recorder's mock model servers. Each test
# re-executes itself inside `unshare -n` (only loopback); without the CLIs or
# unshare the tests skip and say why. DRIVERS_E2E_RUN selects tests.
DRIVERS_E2E_RUN ?= TestE2E
DRIVERS_E2E_FLAGS ?= -race -count=1 -v -timeout 20m

.PHONY: drivers-e2e drivers-test

# Unit tests of the drivers (fake CLI, always hermetic).
drivers-test:
	$(GO) test -race -count=1 ./drivers/...

drivers-e2e:
	AGENTWIRE_E2E=1 AGENTWIRE_CLI_CACHE=$(abspath $(RECORD_CACHE)) $(GO) test $(DRIVERS_E2E_FLAGS) -run '$(DRIVERS_E2E_RUN)' ./drivers/...
