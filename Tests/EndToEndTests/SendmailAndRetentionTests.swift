import Glibc
import MailroomCore
import MailroomStore
import Testing

/// `mailroom sendmail` from a shell, as cron calls it, and retention at start.
@Suite struct SendmailAndRetentionTests {
    private func shell(_ command: String) throws -> ChildProcess {
        try ChildProcess(executable: "/bin/sh", arguments: ["-c", command])
    }

    private func newestID(on port: Int) throws -> Int {
        let inbox = try HTTPClient(port: port).send("GET", "/mailboxes/inbox").text
        guard let row = inbox.split(separator: "data-id=\"", maxSplits: 1).dropFirst().first,
              let id = Int(row.prefix { $0.isNumber }) else { throw TestFailure("no row in the Inbox") }
        return id
    }

    @Test func sendmailDashTDeliversFromStandardInputWithoutTheBccLine() throws {
        let database = ScratchDatabase("sendmail")
        let server = try RunningMailroom(database: database.path, smtp: true)
        let port = try #require(server.smtpPort)
        let binary = try MailroomExecutable.path()
        let run = try shell("""
            printf 'Subject: Nightly backup finished\\nTo: ops@example.test\\nBcc: secret@example.test\\n\\nAll 3 volumes copied.\\n.hidden line\\n' \
              | '\(binary)' sendmail -t -f cron@backup.test --server 127.0.0.1:\(port)
            """)
        #expect(try run.waitForExit(within: 20) == 0, "stderr: \(run.errorText)")
        let id = try newestID(on: server.port)
        let client = HTTPClient(port: server.port)
        let page = try client.send("GET", "/messages/\(id)?keep=unread").text
        #expect(page.contains("<h1 class=\"message-subject\">Nightly backup finished</h1>"))
        let raw = try client.send("GET", "/messages/\(id)/raw").text
        #expect(raw.hasPrefix("Subject: Nightly backup finished\r\nTo: ops@example.test\r\nFrom: <cron@backup.test>\r\nDate: "))
        #expect(!raw.contains("secret@example.test"))
        #expect(raw.hasSuffix("\r\n\r\nAll 3 volumes copied.\r\n.hidden line\r\n"))
        #expect(try server.stop() == 0)
    }

    @Test func sendmailWithRecipientsAsArgumentsAndAStoppedServerExitsSeventyFive() throws {
        let database = ScratchDatabase("sendmail-args")
        let server = try RunningMailroom(database: database.path, smtp: true)
        let port = try #require(server.smtpPort)
        let binary = try MailroomExecutable.path()
        let run = try shell("echo 'Disk 91% full' | '\(binary)' sendmail -oi alerts@example.test --server 127.0.0.1:\(port)")
        #expect(try run.waitForExit(within: 20) == 0, "stderr: \(run.errorText)")
        let id = try newestID(on: server.port)
        let raw = try HTTPClient(port: server.port).send("GET", "/messages/\(id)/raw").text
        #expect(raw.contains("\r\n\r\nDisk 91% full\r\n"))
        #expect(try server.stop() == 0)

        let refused = try shell("echo hello | '\(binary)' sendmail someone@example.test --server 127.0.0.1:\(port)")
        #expect(try refused.waitForExit(within: 20) == 75)
        #expect(refused.errorText.contains("cannot connect to Mailroom"))
    }

    @Test func maxMessagesDeletesTheOldestUnflaggedSoonAfterStartAndSaysSo() throws {
        let database = ScratchDatabase("retention")
        try database.seed(messages: 20, flagged: [MessageID(2)])
        let server = try RunningMailroom(database: database.path, extra: ["--max-messages", "5"])
        let line = try server.program.waitForOutputLine(within: 20) { $0.contains("retention deleted") }
        #expect(line.contains("retention deleted 15 oldest unflagged message(s) over --max-messages 5"))
        #expect(try server.stop() == 0)
        let store = try Store(path: database.path)
        defer { store.close() }
        #expect(try store.library()[.inbox]?.messages.map(\.subject)
            == ["Stored 20", "Stored 19", "Stored 18", "Stored 17", "Stored 2"])
        #expect(try store.integrityCheck() == "ok")
    }
}
