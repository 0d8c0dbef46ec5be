import Dispatch
import Glibc
import MailroomCore
import MailroomStore
import Synchronization
import Testing

/// `mailroom backup` and `mailroom check` as an operator runs them: beside a Mailroom that is
/// serving the file while 8 clients post to it.
@Suite struct BackupCommandTests {
    @Test func aHotBackupHoldsEveryPostAnsweredBeforeItBeganAndChecksClean() throws {
        let database = ScratchDatabase("backup")
        let copy = ScratchDatabase("backup-copy")
        let server = try RunningMailroom(database: database.path)
        defer { _ = try? server.stop() }
        let token = try HTTPClient(port: server.port).fetchFormToken()
        let answered = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
        let writers = DispatchGroup()
        let port = server.port
        for writer in 0..<8 {
            // A queue of its own is an overcommitting one: a thread of its own, however busy the pool.
            DispatchQueue(label: "writer \(writer)").async(group: writers) {
                let client = HTTPClient(port: port)
                var number = 0
                while !stop.load(ordering: .relaxed) {
                    number += 1
                    let subject = "Writer \(writer) post \(number)"
                    guard let response = try? client.postForm("/mailboxes/inbox", [("action", "add"), ("subject", subject)], token: token),
                          response.status == 303 else { continue }
                    answered.withLock { $0.append(subject) }
                }
            }
        }
        while answered.withLock({ $0.count }) < 200 { sched_yield() }
        let before = Set(answered.withLock { $0 })
        let backup = try ChildProcess(executable: try MailroomExecutable.path(), arguments: ["backup", "--db", database.path, copy.path])
        #expect(try backup.waitForExit(within: 60) == 0, "\(backup.errorText)")
        let during = answered.withLock { $0.count } - before.count
        stop.store(true, ordering: .relaxed)
        writers.wait()
        #expect(backup.outputText.contains("copied to \(copy.path)"))
        #expect(during > 0, "the posts went on while the copy was made")

        let check = try ChildProcess(executable: try MailroomExecutable.path(), arguments: ["check", "--db", copy.path])
        #expect(try check.waitForExit(within: 60) == 0, "\(check.errorText)")
        #expect(check.outputText.contains("is in order"))
        // The live file checks clean too, while Mailroom still has it open.
        let live = try ChildProcess(executable: try MailroomExecutable.path(), arguments: ["check", "--db", database.path])
        #expect(try live.waitForExit(within: 60) == 0, "\(live.errorText)")

        let store = try Store(path: copy.path)
        defer { store.close() }
        let subjects = Set(try store.library()[.inbox]?.messages.map(\.subject) ?? [])
        #expect(before.isSubset(of: subjects), "\(before.subtracting(subjects).count) answered posts are missing")
    }

    @Test func backupRefusesToWriteOverAFileAndSaysHowToUseIt() throws {
        let database = ScratchDatabase("backup-refuse")
        let server = try RunningMailroom(database: database.path)
        defer { _ = try? server.stop() }
        let over = try ChildProcess(executable: try MailroomExecutable.path(), arguments: ["backup", "--db", database.path, database.path])
        #expect(try over.waitForExit(within: 30) == 1)
        #expect(over.errorText.contains("never writes over a file"))
        let usage = try ChildProcess(executable: try MailroomExecutable.path(), arguments: ["backup"])
        #expect(try usage.waitForExit(within: 30) == 64)
        #expect(usage.errorText.contains("Usage: mailroom backup"))
    }
}
