import Glibc
import MailroomStore
import Testing

/// What must outlive a restart besides the messages: the form token, and an emptied Inbox.
@Suite struct RestartKeepsFormsTests {
    @Test func aPageOpenedBeforeARestartStillPostsAfterIt() throws {
        let database = ScratchDatabase("restart-forms")
        defer { database.remove() }
        let first = try RunningMailroom(database: database.path)
        let token = try #require(try HTTPClient(port: first.port).fetchFormToken())
        #expect(try first.stop() == 0)

        let second = try RunningMailroom(database: database.path)
        defer { _ = try? second.stop() }
        // The form in the old tab carries the old token: it must still be accepted.
        let response = try HTTPClient(port: second.port).postForm("/mailboxes/inbox", [("action", "add"), ("subject", "After restart")], token: token)
        #expect(response.status == 303)
        #expect(try HTTPClient(port: second.port).fetchFormToken() == token)
    }

    @Test func samplesFillOnlyABrandNewDatabase() throws {
        let database = ScratchDatabase("restart-forms")
        defer { database.remove() }
        let empty = try RunningMailroom(database: database.path)
        #expect(try empty.stop() == 0)

        // Started again without --no-samples, the database is not new: it stays empty.
        let program = try ChildProcess(
            executable: try MailroomExecutable.path(),
            arguments: ["--port", "0", "--smtp-port", "0", "--quiet", "--db", database.path, "--public", PackageLocation.publicFolder])
        let banner = try program.waitForOutputLine(within: 10) { $0.hasPrefix("Mailroom listening on") }
        program.send(SIGTERM)
        #expect(try program.waitForExit(within: 10) == 0)
        #expect(!banner.isEmpty)
        let store = try Store(path: database.path)
        defer { store.close() }
        #expect(try store.library().messageCount == 0)
    }
}
