# agentwire developer targets. `make test` is what CI runs (.ci/run).
GO ?= go
STATICCHECK_VERSION ?= v0.8.2
PKGS := ./...

.PHONY: test fmt-check vet staticcheck unit cover bench-build

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

# Area-specific targets (corpus recording, fuzz campaigns, ...) live in mk/*.mk.
-include mk/*.mk
