import Glibc
import HTTP
import MailroomCore
import MailroomStore
import MailroomWeb

// Measures what one request costs inside Mailroom, without the network: rendering a mailbox
// page read from the store, and a durable change committed to SQLite.
// `mailroom-bench seed PATH INBOX [ARCHIVE]` instead writes a database for scripts/bench-http.

if CommandLine.arguments.dropFirst().first == "japanese" {
    exit(Japanese.run(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.dropFirst().first == "seed" {
    exit(Seeding.run(Array(CommandLine.arguments.dropFirst(2))))
}

func seconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func cpuSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// The median of `rounds` timings of `iterations` calls, in microseconds per call.
func measure(rounds: Int = 7, iterations: Int, _ body: () -> Void) -> Double {
    var perCall: [Double] = []
    for _ in 0..<rounds {
        let start = seconds()
        for _ in 0..<iterations { body() }
        perCall.append((seconds() - start) / Double(iterations) * 1e6)
    }
    return perCall.sorted()[rounds / 2]
}

func library(messages count: Int) -> Library {
    var library = Library()
    for index in 0..<count {
        let draft = Draft(
            subject: "Message number \(index) about the quarterly plan",
            body: "Hello team, here is the update for item \(index). Everything is on track & <fine>.",
            author: "Author \(index % 17)")
        _ = try? library.add(draft, to: .inbox, at: 1_700_000_000 + Int64(index))
    }
    return library
}

func row(_ columns: [String]) -> String {
    columns.enumerated().map { index, text in
        let width = index == 0 ? 44 : 14
        return text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }.joined()
}

print(row(["case", "µs/op", "ops/s", "bytes"]))

var renderCosts: [(Int, Double)] = []
for count in [50, 500, 1_000, 5_000] {
    guard let app = try? MailroomApp(library: library(messages: count), publicFolder: "Public", now: { 1_700_100_000 }) else {
        print("could not make a store for \(count) messages")
        exit(1)
    }
    let request = Request(method: .get, path: "/mailboxes/inbox")
    var bytes = 0
    let iterations = max(2_000 / count, 3) * 10
    // The first render after a start (or after every row changed) builds each row afresh.
    let coldMicros = measure(rounds: 3, iterations: 1) {
        guard let fresh = try? MailroomApp(library: app.library, publicFolder: "Public", now: { 1_700_100_000 }) else { return }
        bytes = fresh.respond(to: request).body.count
    }
    // After a change: the page is rendered again, its unchanged rows come from the row cache.
    // (A field the page ignores makes each address new, so the whole-page cache never answers.)
    _ = app.respond(to: request)
    var serial = 0
    let renderMicros = measure(iterations: iterations) {
        serial += 1
        let fresh = Request(method: .get, path: "/mailboxes/inbox", query: FormData([("n", String(serial))]))
        bytes = app.respond(to: fresh).body.count
    }
    renderCosts.append((count, renderMicros))
    // Nothing changed since the last request for this address: the whole answer is kept.
    let cachedMicros = measure(iterations: iterations) { bytes = app.respond(to: request).body.count }
    print(row(["GET inbox page, \(count) messages, cold", String(format: coldMicros), String(Int(1e6 / coldMicros)), String(bytes)]))
    print(row(["GET inbox page, \(count), rendered", String(format: renderMicros), String(Int(1e6 / renderMicros)), String(bytes)]))
    print(row(["GET inbox page, \(count), page kept", String(format: cachedMicros), String(Int(1e6 / cachedMicros)), String(bytes)]))
    if count == 50 {
        // The whole answer from the bytes a client sends, as a connection makes it: parsed,
        // answered from the kept page (or Public/), and its head written. Only the socket is missing.
        for (name, path) in [("GET inbox page, 50, request bytes to head", "/mailboxes/inbox"),
                             ("GET /style.css, request bytes to head", "/style.css")] {
            let sent = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".utf8)
            let limits = RequestLimits(maxURLBytes: 8_192, maxHeaderBytes: 16_384, maxHeaderCount: 100, maxBodyBytes: 1 << 20)
            var headBytes = 0
            let micros = measure(iterations: 20_000) {
                guard case .request(let parsed, _, _) = RequestParser.parse(sent, limits: limits) else { return }
                let answer = app.respond(to: parsed)
                headBytes = answer.head(keepAlive: true, date: "Sat, 05 Dec 2026 10:00:00 GMT").count
                bytes = answer.body.count
            }
            print(row([name, String(format: micros, places: 2), String(Int(1e6 / micros)), "\(headBytes) + \(bytes)"]))
        }
    }
    let editing = Request(method: .get, path: "/mailboxes/inbox", query: FormData([("mode", "active"), ("selected", "3")]))
    _ = app.respond(to: editing)
    let editMicros = measure(iterations: iterations) {
        serial += 1
        let fresh = Request(method: .get, path: "/mailboxes/inbox",
                            query: FormData([("mode", "active"), ("selected", "3"), ("n", String(serial))]))
        bytes = app.respond(to: fresh).body.count
    }
    print(row(["GET inbox in edit mode, \(count), rendered", String(format: editMicros), String(Int(1e6 / editMicros)), String(bytes)]))
}
if let first = renderCosts.first, let last = renderCosts.last {
    let perRow = (last.1 - first.1) / Double(last.0 - first.0)
    print(row(["cost per extra row rendered", String(format: perRow * 1000) + " ns", "", ""]))
}

// A durable change: one flag toggled and committed with synchronous=FULL, at 1,000 messages.
let path = "/tmp/mailroom-bench-\(getpid()).sqlite"
defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
do {
    let store = try Store(path: path)
    try store.write { transaction in try transaction.replaceAll(with: library(messages: 1_000)) }
    let target = MessageID(500)
    let saves = 200
    let start = seconds()
    let cpuStart = cpuSeconds()
    for index in 0..<saves {
        try store.write { transaction in try transaction.setFlagged(index % 2 == 0, for: [target], in: .inbox) }
    }
    let elapsed = (seconds() - start) / Double(saves) * 1e6
    let cpu = (cpuSeconds() - cpuStart) / Double(saves) * 1e6
    print(row(["durable save (flag one of 1,000), wall", String(format: elapsed), String(Int(1e6 / elapsed)), ""]))
    print(row(["durable save (flag one of 1,000), CPU", String(format: cpu), "", ""]))
    store.close()
} catch {
    print("store benchmark failed: \(error)")
    exit(1)
}

extension String {
    /// `value` with `places` digits after the point (1 or 2), rounded.
    init(format value: Double, places: Int = 1) {
        let scale = places == 2 ? 100 : 10
        let scaled = Int((abs(value) * Double(scale)).rounded())
        let fraction = String(scaled % scale)
        self = (value < 0 ? "-" : "") + "\(scaled / scale)." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
