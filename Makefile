# PiVirt IPAM. The two commands:
#   make run    start the console on an embedded PostgreSQL
#   make test   run every test (lint, generated code, Go, WASM, end-to-end,
#               and every measurement of make bench at toy sizes)
# Both install what is missing first (scripts/setup.sh).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

GO ?= go
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
BIN := bin/ipam
WASM := static/wasm/preview.wasm
WASM_SOURCES := $(shell find internal/candidates wasm -name '*.go' ! -name '*_test.go')
GO_DIRS := cmd internal web views wasm static e2e
LISTEN ?= 127.0.0.1:8080
TEST_TIMEOUT ?= 20m
FUZZTIME ?= 30s
# SOAK: how long make soak runs the load test; SOAK_TIMEOUT bounds it.
SOAK ?= 10m
SOAK_TIMEOUT ?= 15m
# DATA_DIR: where make run keeps its PostgreSQL (default: ipam's own default).
DATA_DIR ?=

.PHONY: build run test setup generate check-generated wasm lint test-go test-wasm test-bench fuzz bench soak clean

build: $(WASM)
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/ipam

## run: build and start ipam serve on its own PostgreSQL, with the demo data.
run: setup build
	$(BIN) serve --demo --listen $(LISTEN) $(if $(DATA_DIR),--data-dir $(DATA_DIR))

## test: every check and test; what CI runs.
test: setup check-generated lint test-go test-wasm test-bench

setup:
	@scripts/setup.sh

## generate: regenerate the templ components (commit the result).
generate:
	$(GO) tool templ generate -path views

check-generated:
	@scripts/check-generated.sh

$(WASM): $(WASM_SOURCES) go.mod go.sum
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -o $@ ./wasm

wasm: $(WASM)

lint: $(WASM)
	@unformatted=$$(gofmt -l $(GO_DIRS)); \
	if [[ -n $$unformatted ]]; then echo "gofmt: run gofmt -w on:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm ./internal/candidates
	$(GO) tool staticcheck ./...
	cd cmd/ipambench && $(GO) vet ./... && $(GO) tool staticcheck ./...

test-go: $(WASM)
	@before=$$(pgrep -u postgres -x postgres | sort || true); \
	eval "$$(scripts/setup.sh --print-env)"; \
	status=0; $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./... || status=$$?; \
	sleep 1; \
	left=$$(comm -13 <(echo "$$before") <(pgrep -u postgres -x postgres | sort || true)); \
	if [[ -n $$left ]]; then echo "test: PostgreSQL processes left behind: $$left"; exit 1; fi; \
	exit $$status

## test-wasm: the enumerator's tests compiled to WebAssembly, run by node.
test-wasm:
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec "$$($(GO) env GOROOT)/lib/wasm/go_js_wasm_exec" ./internal/candidates

## test-bench: every measurement of make bench at toy sizes, once
## (ipambench --smoke, under a minute on 2 cores): fails when one cannot run
## to the report, or finds an address or a number handed out twice. Its
## figures are not judged against the targets. The bench's own tests (a
## module of its own, which test-go does not reach) run first.
test-bench: setup
	cd cmd/ipambench && $(GO) test -count=1 ./... && $(GO) run . --smoke

## fuzz: run each fuzz target for FUZZTIME; what they find goes to
## $(go env GOCACHE)/fuzz, and failures to the package's testdata/fuzz.
FUZZ_TARGETS := internal/candidates:FuzzSpace internal/candidates:FuzzSetBuilder internal/candidates:FuzzFreePrefixes internal/candidates:FuzzListing \
	internal/candidates:FuzzParsePool internal/candidates:FuzzParseRangeList \
	internal/candidates:FuzzNumberPool internal/candidates:FuzzParseNumberList \
	internal/manifest:FuzzParse internal/schema:FuzzParse internal/graphql:FuzzGraphQL web:FuzzConsoleForms web:FuzzSafeNext \
	internal/forecast:FuzzForecast internal/store:FuzzRedactURL
fuzz: $(WASM)
	for entry in $(FUZZ_TARGETS); do \
		$(GO) test -run '^$$' -fuzz "^$${entry#*:}$$" -fuzztime $(FUZZTIME) ./$${entry%%:*} || exit 1; \
	done

## soak: the load test of internal/reliability for SOAK (10m) instead of 60 s:
## three ipam serve processes, mixed traffic, memory and connections flat.
soak: setup $(WASM)
	IPAM_SOAK=$(SOAK) $(GO) test -count=1 -run '^TestLoad$$' -v -timeout $(SOAK_TIMEOUT) ./internal/reliability

## bench: the measurements of docs/benchmarks.md (cmd/ipambench, a module of its own so
## that go-ipam's dependencies stay out of go.mod): the floor, claims at every
## fill level, 16 clients, 2 processes, churn, go-ipam, the WASM preview and
## the pool page, on a PostgreSQL of its own; prints a Markdown table.
## BENCHFLAGS=--quick (a few minutes), --smoke (toy sizes, what make test
## runs), --json (a JSON line), --database-url URL.
BENCHFLAGS ?=
.PHONY: bench-go
bench: setup
	cd cmd/ipambench && $(GO) run . $(BENCHFLAGS)

## bench-go: the Go benchmarks of the enumerator.
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/candidates

clean:
	rm -rf bin $(WASM)
