# agentwire developer targets. `make test` is what CI runs (.ci/run).
GO ?= go
STATICCHECK_VERSION ?= v0.8.2
PKGS := ./...

.PHONY: setup test fmt-check vet staticcheck unit cover properties

# One-time set-up on a fresh machine: module dependencies and the pinned
# staticcheck (both from the Go module proxy).
setup:
	$(GO) mod download
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -version

test: fmt-check vet staticcheck unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) $(PKGS)

unit:
	$(GO) test -race -count=1 $(PKGS)

cover:
	$(GO) test -count=1 -coverprofile=coverage.out $(PKGS)
	$(GO) tool cover -func=coverage.out | tail -n 1

# The rapid properties at full strength (plain `go test` runs 100 checks each).
RAPID_CHECKS ?= 10000
RAPID_PKGS = $$($(GO) list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' $(PKGS) | grep ' pgregory.net/rapid' | cut -d' ' -f1)
properties:
	$(GO) test -count=1 -run 'Prop' $(RAPID_PKGS) -args -rapid.checks=$(RAPID_CHECKS)

# Area-specific targets (corpus recording, fuzz campaigns, ...) live in mk/*.mk.
-include mk/*.mk
