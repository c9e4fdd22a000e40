# gwist — build, test, fuzz, benchmark.
GO        ?= go
FUZZTIME  ?= 10s
PKGS      := ./...

.PHONY: all build test vet race gobench fuzz bench run clean

all: build test

build:
	$(GO) build $(PKGS)

vet:
	$(GO) vet $(PKGS)

# The README's test command: vet, the race-enabled test suite, and every Go
# benchmark once so they keep compiling and working.
test: vet
	$(GO) test -race -count=1 $(PKGS)
	$(GO) test -run '^$$' -bench . -benchtime=1x $(PKGS) >/dev/null
	cd benchmarks && $(GO) vet ./... && $(GO) test -count=1 ./...

# Go micro-benchmarks (router, parser, whole request without sockets).
gobench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# A short run of every fuzz target.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./http1/
	$(GO) test -run '^$$' -fuzz '^FuzzLookup$$' -fuzztime $(FUZZTIME) ./router/
	$(GO) test -run '^$$' -fuzz '^FuzzFeed$$' -fuzztime $(FUZZTIME) ./tlsstate/

# The side-by-side suite against net/http, fasthttp, nbio and bare gnet;
# writes benchmarks/RESULTS.md. QUICK=1 for a smoke run.
bench:
	$(MAKE) -C benchmarks bench

run:
	$(GO) run ./examples/hello

clean:
	$(GO) clean -testcache
