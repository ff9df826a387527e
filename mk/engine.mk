# The OSS-Fuzz / ClusterFuzzLite build, built and run here (fuzz/engine/build,
# fuzz/README.md "libFuzzer engine").
#   make engine-install                 install clang and libFuzzer if missing (Debian's packages)
#   make engine-build                   every fuzz.Targets target as a libFuzzer binary in $(ENGINE_OUT),
#                                       with its seed corpus zip and dictionary, through .clusterfuzzlite/build.sh
#   make engine-run FUZZTIME=60s        each binary in turn with its seeds and dictionary, then a table;
#                                       a crash becomes fuzz/testdata/fuzz/<Target>/engine-* and is replayed with go test -run
#   make engine-run FUZZMATCH=Codex     only the targets whose name matches
ENGINE_DIR ?= $(or $(TMPDIR),/tmp)/agentwire-engine
ENGINE_OUT ?= $(ENGINE_DIR)/out
# libFuzzer flags, when set (the defaults are campaign's: -max_len fuzz.MaxInput
# plus the 4-byte length prefix of the inputs, see fuzz/libfuzzer.go;
# -rss_limit_mb 2560 and -timeout 25, ClusterFuzz's). ENGINE_FRESH=1 drops the
# corpus kept under $(ENGINE_DIR)/run from earlier runs.
ENGINE_MAXLEN ?=
ENGINE_RSS ?=
ENGINE_TIMEOUT ?=
ENGINE_FRESH ?=
# ENGINE_FINDINGS_OK=1: exit 0 when every binary ran, even if some left
# artifacts (campaign engine exits 3 then); the CI smoke sets it.
ENGINE_FINDINGS_OK ?=

.PHONY: engine-install engine-build engine-run

engine-install:
	@fuzz/engine/build install

engine-build:
	ENGINE_DIR='$(ENGINE_DIR)' OUT='$(ENGINE_OUT)' fuzz/engine/build

# Built, not `go run`: go run turns every exit status into 1.
engine-run:
	@mkdir -p '$(ENGINE_DIR)' && $(GO) build -o '$(ENGINE_DIR)/campaign' ./fuzz/cmd/campaign
	@rc=0; '$(ENGINE_DIR)/campaign' engine -out '$(ENGINE_OUT)' -workdir '$(ENGINE_DIR)/run' -fuzztime '$(FUZZTIME)' -match '$(FUZZMATCH)' \
		$(if $(ENGINE_MAXLEN),-max_len '$(ENGINE_MAXLEN)') $(if $(ENGINE_RSS),-rss_limit_mb '$(ENGINE_RSS)') \
		$(if $(ENGINE_TIMEOUT),-timeout '$(ENGINE_TIMEOUT)') $(if $(ENGINE_FRESH),-fresh) $(if $(FUZZLOGDIR),-logdir '$(FUZZLOGDIR)') || rc=$$?; \
	if [ $$rc = 3 ] && [ -n '$(ENGINE_FINDINGS_OK)' ]; then \
		echo "engine-run: FINDINGS above (artifacts turned into fuzz/testdata/fuzz/*/engine-*; not gated: ENGINE_FINDINGS_OK)"; rc=0; fi; \
	exit $$rc
