# gwist — build, test, fuzz, benchmark.
GO        ?= go
FUZZTIME  ?= 10s
PKGS      := ./...

.PHONY: all build cross test vet race gobench fuzz bench run clean interop

all: build test

build:
	$(GO) build $(PKGS)

vet:
	$(GO) mod tidy -diff
	$(GO) vet $(PKGS)

# macOS and the BSDs build and vet (tests included) from Linux, so a
# Linux-only call outside a _linux.go file is caught here; Windows must stop
# at the engine's one clear compile error (engine/unsupported.go).
cross:
	GOOS=darwin GOARCH=arm64 $(GO) vet $(PKGS)
	GOOS=freebsd GOARCH=amd64 $(GO) vet $(PKGS)
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./examples/hello
	@out=$$(GOOS=windows GOARCH=amd64 $(GO) build $(PKGS) 2>&1); \
	  echo "$$out" | grep -q 'gwist_engine_requires_linux_macOS_or_a_BSD' || \
	  { echo "windows: expected the engine's unsupported-OS error, got:"; echo "$$out"; exit 1; }

# The README's test command: vet, cross-builds, the race-enabled test suite
# (with the engine's loop-only assertions: the gwistcheck tag), and every Go
# benchmark once so they keep compiling and working.
test: vet cross
	$(GO) test -race -tags gwistcheck -count=1 $(PKGS)
	$(GO) test -run '^$$' -bench . -benchtime=1x $(PKGS) >/dev/null
	cd benchmarks && $(GO) vet ./... && $(GO) test -count=1 ./...
	$(MAKE) interop

# gRPC (grpc-go's interop cases) and Connect (the conformance suite, when
# connectconformance is installed) against services mounted on gwist; a
# module of its own, so that their dependencies stay out of gwist's go.mod.
# GWIST_CONFORMANCE_NETHTTP=1 also runs the suite against net/http and
# compares.
interop:
	cd interop && $(GO) mod tidy -diff && $(GO) vet ./... && $(GO) test -race -tags gwistcheck -count=1 -timeout 30m ./...

# Go micro-benchmarks (router, parser, whole request without sockets).
gobench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# A short run of every fuzz target, FUZZTIME each. The targets are found in
# the test files that `go list` selects for this platform, so a new Fuzz
# function is run without editing this target. Go 1.26's fuzz coordinator
# can fail a run with a bare "context deadline exceeded" as -fuzztime
# expires (golang/go#75804, fixed in Go 1.27): such a run, with no failing
# input written, is reported and tolerated; any other failure fails.
fuzz:
	@set -e; log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	$(GO) list -f '{{$$d := .Dir}}{{.ImportPath}}{{range .TestGoFiles}} {{$$d}}/{{.}}{{end}}{{range .XTestGoFiles}} {{$$d}}/{{.}}{{end}}' $(PKGS) | \
	while read -r pkg files; do \
		[ -n "$$files" ] || continue; \
		for f in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$files); do \
			echo "== $$pkg $$f ($(FUZZTIME))"; \
			if $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg </dev/null >$$log 2>&1; then \
				tail -n 3 $$log; \
			elif grep -q 'context deadline exceeded' $$log && ! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' $$log; then \
				tail -n 4 $$log; echo "== $$f: deadline flake of Go's fuzz coordinator (golang/go#75804), no failing input: tolerated"; \
			else \
				cat $$log; exit 1; \
			fi; \
		done; \
	done

# The side-by-side suite against net/http, fasthttp, nbio and bare gnet;
# writes benchmarks/RESULTS.md. QUICK=1 for a smoke run.
bench:
	$(MAKE) -C benchmarks bench

run:
	$(GO) run ./examples/hello

clean:
	$(GO) clean -testcache
