# Fuzz campaigns (see fuzz/README.md and SECURITY.md).
#   make fuzz FUZZTIME=10m          every Fuzz target of the module in turn, then a table
#   make fuzz FUZZJOBS=2            two targets at a time (one per core with FUZZPARALLEL=1)
#   make fuzz FUZZMATCH='fuzz '     only the targets whose "pkg FuzzName" matches
#   make fuzz-list                  the targets a campaign would run
#   make fuzz-regress               stage the fixed crashers as regression inputs (FUZZCOMMIT=1 commits them)
#   make fuzz-minimize              dedupe the cached corpus of ./fuzz by outcome
#   make fuzz-seeds                 regenerate fuzz/testdata/fuzz seeds and fuzz/dict from corpus/
FUZZTIME ?= 30s
FUZZPARALLEL ?= 1
FUZZJOBS ?= 1
FUZZMATCH ?= .
FUZZMINIMIZE ?= 10s
FUZZLOGDIR ?=
FUZZCOMMIT ?=
FUZZ_CAMPAIGN = $(GO) run ./fuzz/cmd/campaign

.PHONY: fuzz fuzz-list fuzz-regress fuzz-minimize fuzz-seeds

fuzz:
	$(FUZZ_CAMPAIGN) run -fuzztime '$(FUZZTIME)' -parallel '$(FUZZPARALLEL)' -jobs '$(FUZZJOBS)' -match '$(FUZZMATCH)' \
		-minimize '$(FUZZMINIMIZE)' $(if $(FUZZLOGDIR),-logdir '$(FUZZLOGDIR)')

fuzz-list:
	$(FUZZ_CAMPAIGN) list -match '$(FUZZMATCH)'

fuzz-regress:
	$(FUZZ_CAMPAIGN) regress $(if $(FUZZCOMMIT),-commit)

fuzz-minimize:
	$(FUZZ_CAMPAIGN) minimize

fuzz-seeds:
	cd fuzz && $(GO) run ./cmd/fuzzseeds -corpus ../corpus -out testdata/fuzz -dict dict
