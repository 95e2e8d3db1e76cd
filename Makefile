# The two commands: `make run` and `make test`. Both install missing system packages first.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
BIN := .build/release/callstorm

.PHONY: deps test-deps build run test limits bench bench-sip bench-gateway soak fuzz test-sanitize clean

deps:
	@scripts/deps.sh

# What the tests launch (chromium, nghttp2's tools, hdrhistogram, aioapns), installed only when missing.
test-deps: deps
	@scripts/test-deps.sh

build: deps
	$(SWIFT) build -c release --product callstorm

run: build
	$(BIN) run Scenarios/smoke.yaml

# The house limits (file, function and type sizes, metric names from the catalog) first: they fail in seconds.
# The tests that launch callstorm as a child process run the debug binary `swift test` builds anyway: a clean
# release build of its own took 4m10s here (4m13s of CPU: whole-module optimisation keeps one core busy), more
# than the whole debug build with the tests (3m05s of CPU over both cores), and those 38 tests pass alike with
# either binary (146 s with the release one, 160 s with the debug one while the machine was busier).
# TEST_BIN=release builds and tests the release binary instead.
# The suite waits far more than it computes (runs on the real clock, Kamailio, SIPp), so scripts/test-parallel.py
# runs TEST_WORKERS test classes at once, each in its own process of the test bundle, then the classes marked
# `// serial: <why>` one at a time; TEST_FILTER=<regex> narrows it to matching Module.Class names. It names every
# failing test at the end and exits 1 when any failed.
TEST_BIN ?= debug
TEST_WORKERS ?= 4
TEST_FILTER ?=
test: test-deps
	python3 scripts/limits.py --self-test
	python3 scripts/limits.py
	@scripts/test-deps-distributed.sh
	$(if $(filter release,$(TEST_BIN)),$(SWIFT) build -c release --product callstorm)
	$(SWIFT) build --build-tests
	CALLSTORM_BIN=$(CURDIR)/.build/$(TEST_BIN)/callstorm python3 scripts/test-parallel.py --workers $(TEST_WORKERS) \
		$(if $(TEST_FILTER),--filter '$(TEST_FILTER)') "$$($(SWIFT) build --show-bin-path)/callstormPackageTests.xctest"

# The house limits alone (make test runs them too).
limits:
	python3 scripts/limits.py --self-test
	python3 scripts/limits.py

# The benchmark suite (scripts/bench.sh): every figure beside a peer, to Benchmarks/results/<date>.md and the README's
# table; BENCH_ONLY="sip" (or gateway, raw-http, devices, metrics, checker, scale, races, capacity, locust, sockets)
# runs a subset.
bench: build
	scripts/bench.sh

# The SIP section alone: callstorm's SIP devices vs SIPp through one Kamailio, then the push wake-up path (SIP_RATES,
# SIP_SECONDS); figures to stdout and Benchmarks/results/sip-<date>.md.
bench-sip: build
	scripts/bench-deps.sh
	CALLSTORM_BIN=$(CURDIR)/$(BIN) scripts/bench-sip.sh Benchmarks/work

# Push gateway throughput against nghttpd with h2load; figures to stdout and Benchmarks/results/gateway-*.md.
bench-gateway: build test-deps
	CALLSTORM_BIN=$(CURDIR)/$(BIN) scripts/bench-gateway.sh

# 30 minutes at steady load; judges RSS (< 5 % growth after 5 min), fds and threads; Benchmarks/results/soak-*.md.
soak: build
	scripts/soak.sh

# libFuzzer (with ASan) on the scenario parser, HTTP/1.1 parser, HTTP/2 server, JSON responses, push payloads
# WebSocket frames and SIP messages, FUZZ_SECONDS (default 60) each; corpora in Fuzz/corpus/. Not part of `make test`.
fuzz: deps
	scripts/fuzz.sh

# The tests under ThreadSanitizer and AddressSanitizer (SANITIZERS="thread", FILTER=<pattern> to narrow).
test-sanitize: test-deps
	scripts/test-sanitize.sh

clean:
	rm -rf .build
