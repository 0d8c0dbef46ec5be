import Dispatch
import Glibc
import MailroomCore
import MailroomStore
import Synchronization
import Testing
import TestSupport

/// DESIGN.md §3: "Every change is committed before its response is sent; an acknowledged change
/// survives `kill -9`." A client posts as fast as it can while the real program is killed with
/// SIGKILL at a random moment; after a restart on the same file every acknowledged post is there.
@Suite struct CrashTests {
    static let rounds = 5
    /// Fixed, so a failing run can be repeated exactly; printed with the summary.
    static let seed: UInt64 = 0x6D61_696C_726F_6F6D

    /// With an empty Inbox, and with 100,000 messages already in it.
    @Test(arguments: [0, 100_000])
    func everyAcknowledgedPostSurvivesSigkillAndTheFileStaysIntact(stored: Int) throws {
        let database = ScratchDatabase("crash")
        if stored > 0 { try database.seed(messages: stored) }
        var generator = SeededGenerator(seed: Self.seed)
        var acknowledged: [String] = []
        var kills = 0
        var checked = 0

        for round in 1...Self.rounds {
            let server = try RunningMailroom(database: database.path)
            // The restart after the previous kill: everything acknowledged before it is here.
            checked = try Self.checkInbox(of: server, holds: acknowledged, round: round)

            // Kill once the client has this many acknowledgements: a condition, and a random
            // moment, since the kill lands while the next posts are in flight.
            let target = Int.random(in: 20...300, using: &generator)
            let poster = Poster(port: server.port, round: round, killAfter: target)
            let finished = try poster.start()
            guard poster.reachedTarget.wait(timeout: .now() + 30) == .success else {
                throw TestFailure("round \(round): only \(poster.log.withLock { $0.subjects.count }) of \(target) posts acknowledged in 30 s; "
                    + "problems: \(poster.log.withLock { $0.problems })")
            }
            poster.serverKilled.store(true, ordering: .sequentiallyConsistent)
            // The client may still be posting: the kill lands at whatever point it has reached.
            try server.kill()
            kills += 1
            guard finished.wait(timeout: .now() + 15) == .success else {
                throw TestFailure("round \(round): the client did not stop within 15 s of the kill")
            }
            let log = poster.log.withLock { $0 }
            #expect(log.problems.isEmpty, "round \(round): \(log.problems)")
            #expect(log.subjects.count >= target)
            acknowledged += log.subjects

            // The file exactly as the kill left it (copied, so the program's own recovery is tested
            // on the original) passes SQLite's integrity check.
            let copy = ScratchDatabase("crash-copy")
            for suffix in ["", "-wal"] where access(database.path + suffix, F_OK) == 0 {
                try Self.copyFile(database.path + suffix, to: copy.path + suffix)
            }
            #expect(try Self.integrityCheck(copy.path) == "ok", "round \(round), the file as the kill left it")
        }

        // The last round's restart, then a clean stop and the check of the file itself.
        let server = try RunningMailroom(database: database.path)
        checked = try Self.checkInbox(of: server, holds: acknowledged, round: Self.rounds + 1)
        #expect(try server.stop() == 0)
        #expect(try Self.integrityCheck(database.path) == "ok")
        // Nothing of what was there before is lost either, and the kept count agrees.
        let store = try Store(path: database.path)
        let (count, kept) = try store.read { reader throws(StoreError) in
            (try reader.ids(in: .inbox, enteredBy: .max).count, try reader.mailboxes().first?.count)
        }
        store.close()
        // A post in flight at a kill may be stored without its answer arriving: one per kill at most.
        #expect(count >= stored + acknowledged.count && count <= stored + acknowledged.count + Self.rounds)
        #expect(kept == count)

        print("crash test: \(kills) kills, \(acknowledged.count) posts acknowledged, \(checked) found (seed \(Self.seed))")
        #expect(kills == Self.rounds)
        #expect(checked == acknowledged.count)
    }

    // MARK: Helpers

    /// Reads the posts' search (every page of it) and checks that it holds every subject in
    /// `expected`, each once. Returns how many of them were found.
    private static func checkInbox(of server: RunningMailroom, holds expected: [String], round: Int) throws -> Int {
        let client = HTTPClient(port: server.port, timeoutSeconds: 10)
        defer { client.close() }
        // Every page, walking Older from the top.
        var subjects: [String] = []
        var target: String? = "/mailboxes/inbox?q=subject%3Acrash"
        while let next = target {
            let response = try client.send("GET", next, headers: [("Accept", "text/html")])
            guard response.status == 200 else { throw TestFailure("GET \(next) answered \(response.status)") }
            subjects += ListHTML.subjects(in: response.text)
            target = ListHTML.olderLink(in: response.text)
        }
        var counts: [String: Int] = [:]
        for subject in subjects { counts[subject, default: 0] += 1 }
        let missing = expected.filter { counts[$0] == nil }
        #expect(missing.isEmpty, "after kill \(round - 1): \(missing.count) acknowledged posts are missing: \(missing.prefix(20))")
        let repeated = counts.filter { $0.value > 1 }.keys.sorted()
        #expect(repeated.isEmpty, "after kill \(round - 1): subjects listed more than once: \(repeated.prefix(20))")
        return expected.count - missing.count
    }

    /// "ok", or SQLite's list of problems: from the sqlite3 program when it is installed, else
    /// through `MailroomStore.Store`.
    private static func integrityCheck(_ path: String) throws -> String {
        let cli = "/usr/bin/sqlite3"
        if access(cli, X_OK) == 0 {
            let program = try ChildProcess(executable: cli, arguments: [path, "PRAGMA integrity_check; PRAGMA foreign_key_check;"])
            let code = try program.waitForExit(within: 10)
            guard code == 0 else { return "sqlite3 exited with \(code): \(program.errorText)" }
            let output = program.outputText.trimmingCharacters(in: "\n ")
            return output
        }
        let store = try Store(path: path)
        defer { store.close() }
        return try store.integrityCheck()
    }

    private static func copyFile(_ source: String, to destination: String) throws {
        let input = open(source, O_RDONLY)
        guard input >= 0 else { throw TestFailure("cannot open \(source): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard output >= 0 else { throw TestFailure("cannot create \(destination): \(String(cString: strerror(errno)))") }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw TestFailure("cannot read \(source): \(String(cString: strerror(errno)))") }
            if count == 0 { return }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(output, $0.baseAddress! + offset, count - offset) }
                guard written > 0 else { throw TestFailure("cannot write \(destination): \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
    }
}

/// One client thread posting `crash-<round>-<n>` on a keep-alive connection as fast as it can,
/// recording each subject whose post was answered 303, until the server is gone.
private final class Poster: Sendable {
    struct Log {
        var subjects: [String] = []
        var problems: [String] = []
    }

    /// A bound on the loop, far above any target, in case the kill never comes.
    static let maximumPosts = 5_000

    let port: Int
    let round: Int
    let target: Int
    let log = Mutex(Log())
    /// Set just before the test kills the server: from then on a failed post is expected.
    let serverKilled = Atomic<Bool>(false)
    /// Signalled once `target` posts are acknowledged, or when the client gives up before that.
    let reachedTarget = DispatchSemaphore(value: 0)

    init(port: Int, round: Int, killAfter target: Int) {
        self.port = port
        self.round = round
        self.target = target
    }

    /// Starts the client thread; the semaphore is signalled when it has stopped.
    func start() throws -> DispatchSemaphore {
        try TestThreads.start { self.run() }
    }

    private func run() {
        var count = 0
        defer { if count < target { reachedTarget.signal() } }
        let client = HTTPClient(port: port, timeoutSeconds: 10)
        defer { client.close() }
        let token: String?
        do {
            token = try client.fetchFormToken()
        } catch {
            log.withLock { $0.problems.append("reading the form token: \(error)") }
            return
        }
        var failuresInARow = 0
        for n in 0..<Self.maximumPosts {
            let subject = "crash-\(round)-\(n)"
            do {
                let response = try client.postForm("/mailboxes/inbox", [("action", "add"), ("subject", subject)], token: token)
                guard response.status == 303 else {
                    if !serverKilled.load(ordering: .sequentiallyConsistent) {
                        log.withLock { $0.problems.append("\(subject) answered \(response.status): \(response.text.prefix(300))") }
                    }
                    return
                }
                failuresInARow = 0
                log.withLock { $0.subjects.append(subject) }
                count += 1
                if count == target { reachedTarget.signal() }
            } catch {
                // The kill: the connection breaks, and reconnecting is refused.
                if serverKilled.load(ordering: .sequentiallyConsistent) { return }
                failuresInARow += 1
                guard failuresInARow <= 3 else {
                    log.withLock { $0.problems.append("\(subject): \(error), \(failuresInARow) times in a row") }
                    return
                }
                client.close()
            }
        }
        log.withLock { $0.problems.append("\(Self.maximumPosts) posts and the server was still running") }
    }
}
