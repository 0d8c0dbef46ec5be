import Dispatch
import Glibc
import MailroomCore
import MailroomStore
import Synchronization
import Testing
import TestSupport

/// "A 250 after DATA comes only after the message is committed": eight SMTP sessions send mail
/// as fast as they can while the real program is killed with SIGKILL; after a restart on the
/// same file, every message that was answered 250 is there, once.
@Suite struct SMTPCrashTests {
    static let rounds = 3
    static let sessions = 8
    /// Fixed, so a failing run can be repeated exactly; printed with the summary.
    static let seed: UInt64 = 0x736D_7470_6B69_6C6C

    @Test func everyMessageAnswered250SurvivesSigkill() throws {
        let database = ScratchDatabase("smtp-crash")
        var generator = SeededGenerator(seed: Self.seed)
        var acknowledged: [String] = []
        var kills = 0

        for round in 1...Self.rounds {
            let server = try RunningMailroom(database: database.path, smtp: true)
            // The restart after the previous kill: everything answered 250 before it is here.
            try Self.checkInbox(of: server, holds: acknowledged, afterKill: round - 1)

            // Kill once this many messages have been answered 250 over all sessions: a
            // condition, at a moment that falls while the next messages are in flight.
            let target = Int.random(in: 80...400, using: &generator)
            let progress = Progress(target: target)
            var finished: [DispatchSemaphore] = []
            var senders: [Sender] = []
            for session in 0..<Self.sessions {
                let sender = Sender(port: server.smtpPort!, round: round, session: session, progress: progress)
                senders.append(sender)
                finished.append(try TestThreads.start { sender.run() })
            }
            guard progress.reachedTarget.wait(timeout: .now() + 30) == .success else {
                progress.serverKilled.store(true, ordering: .sequentiallyConsistent)
                throw TestFailure("round \(round): only \(progress.count.load(ordering: .relaxed)) of \(target) messages answered 250 in 30 s; "
                    + "problems: \(senders.flatMap { $0.log.withLock { $0.problems } })")
            }
            progress.serverKilled.store(true, ordering: .sequentiallyConsistent)
            // The sessions may still be sending: the kill lands wherever each of them is.
            try server.kill()
            kills += 1
            for (session, semaphore) in finished.enumerated() {
                guard semaphore.wait(timeout: .now() + 15) == .success else {
                    throw TestFailure("round \(round): session \(session) did not stop within 15 s of the kill")
                }
            }
            for sender in senders {
                let log = sender.log.withLock { $0 }
                #expect(log.problems.isEmpty, "round \(round), session \(sender.session): \(log.problems)")
                acknowledged += log.subjects
            }
            #expect(progress.count.load(ordering: .relaxed) >= target)
        }

        // The last restart, then a clean stop and SQLite's check of the file.
        let server = try RunningMailroom(database: database.path, smtp: true)
        let found = try Self.checkInbox(of: server, holds: acknowledged, afterKill: Self.rounds)
        #expect(try server.stop() == 0)
        #expect(try Self.integrityCheck(database.path) == "ok")
        let store = try Store(path: database.path)
        let count = try store.read { reader throws(StoreError) in try reader.ids(in: .inbox, enteredBy: .max).count }
        store.close()
        // A message in flight at a kill may be stored without its 250 arriving: one per session per kill at most.
        #expect(count >= acknowledged.count && count <= acknowledged.count + Self.rounds * Self.sessions,
                "\(count) messages stored, \(acknowledged.count) answered 250")
        print("SMTP crash test: \(kills) kills, \(acknowledged.count) messages answered 250, \(found) found, \(count) stored (seed \(Self.seed))")
        #expect(kills == Self.rounds)
        #expect(found == acknowledged.count)
    }

    // MARK: Helpers

    /// Reads the search for the test's subjects (every page of it) and checks that it holds every
    /// subject in `expected`, each once. Returns how many of them were found.
    @discardableResult
    private static func checkInbox(of server: RunningMailroom, holds expected: [String], afterKill kill: Int) throws -> Int {
        let client = HTTPClient(port: server.port, timeoutSeconds: 10)
        defer { client.close() }
        var subjects: [String] = []
        var target: String? = "/mailboxes/inbox?q=subject%3Asmtpcrash"
        while let next = target {
            let response = try client.send("GET", next, headers: [("Accept", "text/html")])
            guard response.status == 200 else { throw TestFailure("GET \(next) answered \(response.status)") }
            subjects += ListHTML.subjects(in: response.text)
            target = ListHTML.olderLink(in: response.text)
        }
        var counts: [String: Int] = [:]
        for subject in subjects { counts[subject, default: 0] += 1 }
        let missing = expected.filter { counts[$0] == nil }
        #expect(missing.isEmpty, "after kill \(kill): \(missing.count) messages answered 250 are missing: \(missing.prefix(20))")
        let repeated = counts.filter { $0.value > 1 }.keys.sorted()
        #expect(repeated.isEmpty, "after kill \(kill): subjects listed more than once: \(repeated.prefix(20))")
        return expected.count - missing.count
    }

    /// "ok", or SQLite's list of problems: from the sqlite3 program when it is installed, else
    /// through `MailroomStore.Store`.
    private static func integrityCheck(_ path: String) throws -> String {
        let cli = "/usr/bin/sqlite3"
        if access(cli, X_OK) == 0 {
            let program = try ChildProcess(executable: cli, arguments: [path, "PRAGMA integrity_check;"])
            let code = try program.waitForExit(within: 10)
            guard code == 0 else { return "sqlite3 exited with \(code): \(program.errorText)" }
            return program.outputText.trimmingCharacters(in: "\n ")
        }
        let store = try Store(path: path)
        defer { store.close() }
        return try store.integrityCheck()
    }
}

/// How many messages all the sessions of a round have had answered 250, and the signal to kill.
private final class Progress: Sendable {
    let target: Int
    let count = Atomic<Int>(0)
    /// Set just before the test kills the server: from then on a broken session is expected.
    let serverKilled = Atomic<Bool>(false)
    /// Signalled once, when `target` messages have been answered 250.
    let reachedTarget = DispatchSemaphore(value: 0)

    init(target: Int) { self.target = target }

    func acknowledged() {
        if count.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue == target { reachedTarget.signal() }
    }

    var killed: Bool { serverKilled.load(ordering: .sequentiallyConsistent) }
}

/// One SMTP session sending `smtpcrash-<round>-<session>-<n>` as fast as it can (MAIL, RCPT and
/// DATA pipelined, then the text), recording each subject answered 250, until the server is gone.
private final class Sender: Sendable {
    struct Log {
        var subjects: [String] = []
        var problems: [String] = []
    }

    /// A bound on the loop, far above any target, in case the kill never comes.
    static let maximumMessages = 5_000

    let port: Int
    let round: Int
    let session: Int
    let progress: Progress
    let log = Mutex(Log())

    init(port: Int, round: Int, session: Int, progress: Progress) {
        self.port = port
        self.round = round
        self.session = session
        self.progress = progress
    }

    func run() {
        let client: SMTPClient
        do {
            client = try SMTPClient.session(port: port, ehlo: "sender\(session).example.test")
        } catch {
            if !progress.killed { log.withLock { $0.problems.append("opening the session: \(error)") } }
            return
        }
        defer { client.close() }
        for n in 0..<Self.maximumMessages {
            let subject = "smtpcrash-\(round)-\(session)-\(n)"
            do {
                try client.send("MAIL FROM:<sender\(session)@example.test>\r\nRCPT TO:<inbox@example.test>\r\nDATA\r\n")
                let replies = try client.readReplies(3)
                guard replies.map(\.code) == [250, 250, 354] else {
                    if !progress.killed { log.withLock { $0.problems.append("\(subject): \(replies)") } }
                    return
                }
                try client.send("Subject: \(subject)\r\nFrom: sender\(session)@example.test\r\n\r\nMessage \(n) of session \(session).\r\n.\r\n")
                let reply = try client.readReply()
                guard reply.storedMessage != nil else {
                    if !progress.killed { log.withLock { $0.problems.append("\(subject) was answered \(reply)") } }
                    return
                }
                log.withLock { $0.subjects.append(subject) }
                progress.acknowledged()
            } catch {
                // The kill: the connection breaks.
                if !progress.killed { log.withLock { $0.problems.append("\(subject): \(error)") } }
                return
            }
        }
        if !progress.killed { log.withLock { $0.problems.append("\(Self.maximumMessages) messages and the server was still running") } }
    }
}
