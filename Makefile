# The two commands: `make run` and `make test`. Both install missing system packages first.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
BIN := .build/release/callstorm

.PHONY: deps build run test bench clean

deps:
	@scripts/deps.sh

build: deps
	$(SWIFT) build -c release --product callstorm

run: build
	$(BIN) run Scenarios/smoke.yaml

test: deps
	@scripts/test-deps-distributed.sh
	$(SWIFT) build -c release --product callstorm
	CALLSTORM_BIN=$(CURDIR)/$(BIN) $(SWIFT) test --disable-swift-testing

bench: build
	scripts/bench.sh

clean:
	rm -rf .build
