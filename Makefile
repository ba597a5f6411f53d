# PiVirt IPAM. The two commands:
#   make run    start the console on an embedded PostgreSQL
#   make test   run every test (lint, generated code, Go, WASM, end-to-end)
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
TEST_TIMEOUT ?= 12m
FUZZTIME ?= 30s
# DATA_DIR: where make run keeps its PostgreSQL (default: ipam's own default).
DATA_DIR ?=

.PHONY: build run test setup generate check-generated wasm lint test-go test-wasm fuzz bench clean

build: $(WASM)
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/ipam

## run: build and start ipam serve on its own PostgreSQL, with the demo data.
run: setup build
	$(BIN) serve --demo --listen $(LISTEN) $(if $(DATA_DIR),--data-dir $(DATA_DIR))

## test: every check and test; what CI runs.
test: setup check-generated lint test-go test-wasm

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

## fuzz: run each fuzz target for FUZZTIME.
fuzz:
	for target in FuzzSpace FuzzSetBuilder FuzzParsePool; do \
		$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) ./internal/candidates; \
	done

## bench: the enumerator's benchmarks.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/candidates

clean:
	rm -rf bin $(WASM)
