# Golden corpus: record the real CLIs against scripted mock model servers
# (see corpus/README.md). Recording needs npm (for cli-install) and a private
# network namespace (unshare -n, as root or with user namespaces).
RECORD_CACHE ?= .cache/npm
# RECORD_RUN selects cases by regexp on <provider>/<cli>@<version>/<case>.
RECORD_RUN ?=
# RECORD_JOBS cases are recorded at once.
RECORD_JOBS ?= 2
# RECORD_SCRATCH, when set, replaces /var/tmp/agentwire-record as the root of
# the per-case scratch directories (outside any git work tree); the
# recordings are normalised to the default root, so they compare the same.
RECORD_SCRATCH ?=
# RECORD_RETRIES: how many more times corpus-verify records a drifting case.
RECORD_RETRIES ?= 2
RECORD_CMD = $(GO) run ./cmd/agentwire-record -cache $(RECORD_CACHE) -jobs $(RECORD_JOBS) $(if $(RECORD_RUN),-run '$(RECORD_RUN)') $(if $(RECORD_SCRATCH),-scratch '$(RECORD_SCRATCH)')

.PHONY: cli-install record corpus-verify corpus-check

# Install the pinned CLI versions from npm into $(RECORD_CACHE).
cli-install:
	$(GO) run ./cmd/agentwire-record -cache $(RECORD_CACHE) -install

# Re-record the whole corpus (or the RECORD_RUN subset) into corpus/.
record: cli-install
	$(RECORD_CMD)

# Re-record into a temporary directory and diff against the committed
# corpus after normalising what depends on the machine, the clock or
# chance (corpus/README.md, "What is normalised").
# A drifting case is recorded again, up to RECORD_RETRIES more times, and
# drifts only when it drifts every time (the CLIs race with themselves).
corpus-verify: cli-install
	$(RECORD_CMD) -verify -retries $(RECORD_RETRIES)

# Exit 0 when recording can run here (CLIs installed, unshare works); else
# print the reason and exit 3.
corpus-check:
	@$(GO) run ./cmd/agentwire-record -cache $(RECORD_CACHE) -check
