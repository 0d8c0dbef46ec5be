# Mailroom: `make run` serves on http://127.0.0.1:8080, `make test` runs every test.
# Both install the Debian packages they need when missing (CI has no terminal: no prompts).

SWIFT       ?= swift
# make install: PREFIX (default /usr/local), DESTDIR (a staging root), CONFIGURATION (release).
PREFIX        ?= /usr/local
DESTDIR       ?=
CONFIGURATION ?= release
UNITDIR       ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR    ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
PORT        ?= 8080
SMTP_PORT   ?= 2525
HOST        ?= 127.0.0.1
RUN_ARGS    ?=
PYTHON      := /usr/bin/python3

RUN_PACKAGES  := pkg-config libevent-dev libssl-dev libsqlite3-dev libgmime-3.0-dev zlib1g-dev libbrotli-dev libzstd-dev
# make install points the binary at the Swift runtime copied beside it (patchelf); make deb packs it.
INSTALL_PACKAGES := $(RUN_PACKAGES) patchelf dpkg-dev
# wrk measures over HTTP, nginx serves the same bytes as the anchor, curl checks each case first;
# Postfix is the SMTP anchor (its own queue under the bench's folder), with smtp-source and smtp-sink.
BENCH_PACKAGES := $(RUN_PACKAGES) wrk nginx curl postfix
# Java runs the Nu Html Checker, pip fetches it and axe-core (pinned wheels, nothing installed),
# pdftotext reads the text Chromium paints (CSS counters are in no DOM or accessibility tree);
# the sqlite3 shell checks files as another process would; w3m reads the pages as a text browser;
# Postfix's smtp-sink is the relay that outbound mail is checked against.
TEST_PACKAGES := $(RUN_PACKAGES) chromium chromium-driver python3-selenium python3-pytest \
                 python3-pip default-jre-headless poppler-utils sqlite3 swaks openssl w3m tzdata \
                 patchelf dpkg-dev systemd groff-base python3-venv postfix

.PHONY: install install-deps deb package-test compat-test relay-test run build release test unit-test browser-test screenshots bench fuzz fuzz-http fuzz-smtp fuzz-mime deps test-deps bench-deps test-tools clean

run: deps release
	./.build/release/mailroom --host $(HOST) --port $(PORT) --smtp-port $(SMTP_PORT) $(RUN_ARGS)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

test: test-deps unit-test browser-test compat-test relay-test package-test

# Unit, web-layer and end-to-end HTTP tests; the process tests need the debug binary first.
unit-test: test-deps
	$(SWIFT) build
	TZ=UTC MAILROOM_BIN=$(CURDIR)/.build/debug/mailroom $(SWIFT) test

# Real Chromium through WebDriver against the real binary on a free port: every flow, axe-core
# on every page state (phone and desktop, light and dark), and the Nu Html Checker on every page
# and on style.css.
browser-test: test-deps test-tools
	$(SWIFT) build
	TZ=UTC MAILROOM_BIN=$(CURDIR)/.build/debug/mailroom $(PYTHON) -m pytest -q -p no:cacheprovider Tests/Browser

# The published Mailpit and MailHog client libraries (Tests/Compat/requirements.txt, in a venv of
# their own), run unchanged against the real binary's two compatibility doors.
compat-test: test-deps
	$(SWIFT) build
	@./scripts/fetch-compat-clients
	TZ=UTC MAILROOM_BIN=$(CURDIR)/.build/debug/mailroom .build/compat-venv/bin/python -m pytest -q -p no:cacheprovider Tests/Compat

# Release, forward and relay through Postfix's smtp-sink, checked byte for byte, and the queue
# across a 4xx, a 5xx, a lost answer and kill -9.
relay-test: test-deps
	$(SWIFT) build
	TZ=UTC MAILROOM_BIN=$(CURDIR)/.build/debug/mailroom $(PYTHON) -m pytest -q -p no:cacheprovider Tests/Relay

# make install into a staging folder and make deb, both from the debug build (the layout is the
# same), then the installed binary, the unit (systemd-analyze verify), the man page and the
# package: inspected, and installed, removed and purged with dpkg when run as root.
package-test: test-deps
	$(SWIFT) build
	$(PYTHON) -m pytest -q -p no:cacheprovider Tests/Packaging

# Every page state at 390×844 and 1280×800, light and dark (and the lists at 320 px), as PNGs.
screenshots: test-deps
	$(SWIFT) build
	rm -rf screenshots
	MAILROOM_BIN=$(CURDIR)/.build/debug/mailroom $(PYTHON) scripts/screenshots.py screenshots --narrow

# Figures, not a timed test, release build: page render cost and durable save rate in-process,
# then scripts/bench-http: Mailroom over HTTP with wrk, beside nginx serving the same bytes and
# SQLite's own commit rate, as one table (BENCH_ROUNDS=3 rounds of BENCH_SECONDS=3, ~4 minutes),
# then scripts/bench-scale: 1,000,000 messages beside 1,000 (pages, deep pages, search, a
# 100,000-message delete and its Undo, posts, memory). The million is seeded once into
# .build/bench-cache (about 10 minutes) and used in place by later runs (what a run changes, it puts back),
# then scripts/bench-smtp: SMTP ingest with smtp-source beside Postfix's own queue (an instance of its
# own in the bench's folder, not /etc/postfix) and smtp-sink, a 25 MiB message, the Inbox page during ingest,
# then scripts/bench-disk: the file that 2,000 cron mails and 2,000 HTML alerts take, then scripts/bench-live: event streams and wait, then scripts/bench-ops: a 1 GB mbox imported into a new
# file, and a hot backup of the million while 64 clients post, then scripts/bench-hostile: 4,000 idle
# connections held against one Mailroom, and a minute of SMTP AUTH guessing.
bench: bench-deps
	$(SWIFT) build -c release --product mailroom-bench
	./.build/release/mailroom-bench
	$(SWIFT) build -c release --product mailroom
	./scripts/bench-http
	./scripts/bench-scale
	./scripts/bench-smtp
	./scripts/bench-disk
	./scripts/bench-live
	./scripts/bench-ops
	./scripts/bench-hostile
	./scripts/bench-relay

# libFuzzer on the HTTP request parsers, then on SMTP sessions, then on the MIME wrapper: `make fuzz RUNS=-1` runs each until
# stopped; crashes land in Fuzz/crashes.
RUNS ?= 1000000
fuzz: fuzz-http fuzz-smtp fuzz-mime

fuzz-http: deps
	mkdir -p .build/fuzz/corpus Fuzz/crashes
	swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name HTTP \
		Sources/HTTP/*.swift Fuzz/FuzzEntry.swift -o .build/fuzz/mailroom-fuzz
	./.build/fuzz/mailroom-fuzz -runs=$(RUNS) -max_len=512 -artifact_prefix=Fuzz/crashes/ .build/fuzz/corpus Fuzz/corpus

fuzz-smtp: deps
	mkdir -p .build/fuzz/smtp-corpus Fuzz/crashes
	swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name SMTP \
		Sources/SMTP/*.swift Fuzz/FuzzEntry.swift -o .build/fuzz/mailroom-fuzz-smtp
	./.build/fuzz/mailroom-fuzz-smtp -runs=$(RUNS) -max_len=2048 -artifact_prefix=Fuzz/crashes/smtp- .build/fuzz/smtp-corpus Fuzz/smtp-corpus

# The MIME wrapper, GMime included, seeded with the corpus the tests read.
fuzz-mime: deps
	mkdir -p .build/fuzz/mime-corpus Fuzz/crashes
	swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name MailroomMail -I Sources/CGMime \
		$$(pkg-config --cflags-only-I gmime-3.0 | sed 's/-I/-Xcc -I/g') \
		Sources/MailroomMail/*.swift Fuzz/FuzzEntry.swift $$(pkg-config --libs gmime-3.0) -o .build/fuzz/mailroom-fuzz-mime
	./.build/fuzz/mailroom-fuzz-mime -runs=$(RUNS) -max_len=16384 -artifact_prefix=Fuzz/crashes/mime- .build/fuzz/mime-corpus Tests/Fixtures/mime

deps:
	@./scripts/install-packages $(RUN_PACKAGES)

install-deps:
	@./scripts/install-packages $(INSTALL_PACKAGES)

# The binary, its Swift runtime, Public/, the systemd unit, the man page (see scripts/install-files).
install: install-deps
	$(SWIFT) build -c $(CONFIGURATION) --product mailroom
	./scripts/install-files "$(DESTDIR)" "$(PREFIX)" "$(CONFIGURATION)" "$(UNITDIR)" "$(SYSCONFDIR)"

# A Debian package of the same, in .build/ (see scripts/make-deb).
deb: install-deps
	$(SWIFT) build -c $(CONFIGURATION) --product mailroom
	./scripts/make-deb $(CONFIGURATION)

test-deps:
	@./scripts/install-packages $(TEST_PACKAGES)

bench-deps:
	@./scripts/install-packages $(BENCH_PACKAGES)

# axe.min.js and vnu.jar from the exact wheels in Tests/Browser/tools-requirements.txt.
test-tools: test-deps
	@./scripts/fetch-test-tools

clean:
	rm -rf .build
