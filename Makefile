# Mailroom: `make run` serves on http://127.0.0.1:8080, `make test` runs every test.
# Both install the Debian packages they need when missing (CI has no terminal: no prompts).

SWIFT       ?= swift
PORT        ?= 8080
HOST        ?= 127.0.0.1
RUN_ARGS    ?=
PYTHON      := /usr/bin/python3

RUN_PACKAGES  := pkg-config libevent-dev libsqlite3-dev
TEST_PACKAGES := $(RUN_PACKAGES) chromium chromium-driver python3-selenium python3-pytest

.PHONY: run build release test unit-test browser-test bench fuzz deps test-deps clean

run: deps release
	./.build/release/mailroom --host $(HOST) --port $(PORT) $(RUN_ARGS)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

test: test-deps unit-test browser-test

# Unit, web-layer and end-to-end HTTP tests; the process tests need the debug binary first.
unit-test: test-deps
	$(SWIFT) build
	MAILROOM_BIN=$(CURDIR)/.build/debug/mailroom $(SWIFT) test

# Real Chromium through WebDriver against the real binary on a free port.
browser-test: test-deps
	$(SWIFT) build
	MAILROOM_BIN=$(CURDIR)/.build/debug/mailroom $(PYTHON) -m pytest -q -p no:cacheprovider Tests/Browser

# Figures, not a timed test: page render cost and durable save rate, release build.
bench: deps
	$(SWIFT) build -c release --product mailroom-bench
	./.build/release/mailroom-bench

# libFuzzer on the request parsers: `make fuzz RUNS=-1` runs until stopped; crashes land in Fuzz/crashes.
RUNS ?= 1000000
fuzz: deps
	mkdir -p .build/fuzz/corpus Fuzz/crashes
	swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name HTTP \
		Sources/HTTP/*.swift Fuzz/FuzzEntry.swift -o .build/fuzz/mailroom-fuzz
	./.build/fuzz/mailroom-fuzz -runs=$(RUNS) -max_len=512 -artifact_prefix=Fuzz/crashes/ .build/fuzz/corpus Fuzz/corpus

deps:
	@./scripts/install-packages $(RUN_PACKAGES)

test-deps:
	@./scripts/install-packages $(TEST_PACKAGES)

clean:
	rm -rf .build
