import Glibc
import MailroomCore
@testable import MailroomStore
import Testing

/// A file whose raw mail is kept uncompressed (as an older Mailroom left it) is compressed by
/// the running server in the background; killed half way and started again, it finishes, and
/// every message is still there byte for byte; `mailroom check` then finds a damaged row.
@Suite struct RawPackingRestartTests {
    static let count = 10_000

    /// A cron-like mail, different in each message.
    static func raw(_ index: Int) -> [UInt8] {
        let lines = (0..<(10 + index % 20)).map { "job \($0) on host\(index % 37): finished in \(index % 97 + $0) s, exit 0" }
        return Array(("From: Cron Daemon <root@host\(index % 37).office.test>\r\nTo: ops@office.test\r\n"
            + "Subject: Cron <root@host\(index % 37)> nightly run \(index)\r\nMessage-ID: <cron-\(index)@office.test>\r\n\r\n"
            + lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// Stores `count` mails, then writes each back as it came and forgets the packing: the file
    /// an older Mailroom left, upgraded but not yet packed.
    private func makeUnpackedFile(_ path: String) throws {
        let store = try Store(path: path)
        defer { store.close() }
        try store.write { transaction in
            for index in 0..<Self.count {
                let bytes = Self.raw(index)
                _ = try transaction.addMail(IncomingMail(
                    subject: "nightly run \(index)", sender: "Cron Daemon", text: "run \(index)", html: nil,
                    envelopeFrom: "root@office.test", envelopeTo: ["ops@office.test"], fromHeader: "root@office.test",
                    toHeader: "ops@office.test", ccHeader: "", sentAt: nil, messageID: nil, attachments: [],
                    peer: "127.0.0.1", raw: bytes), to: [.inbox], at: Int64(index))
                try transaction.run("UPDATE raw_mail SET bytes = ? WHERE id = ?", [.blob(bytes), .integer(Int64(index + 1))])
            }
            try transaction.run("DELETE FROM raw_packing", [])
            try transaction.run("UPDATE counters SET value = \(Self.count + 1) WHERE name = 'raw_plain_below'", [])
            try transaction.run("UPDATE counters SET value = 1 WHERE name = 'raw_packed_from'", [])
        }
    }

    private func packedFrom(_ path: String) throws -> Int64 {
        let database = try Database(path: path)
        let statement = try database.prepare("SELECT value FROM counters WHERE name = 'raw_packed_from'")
        return try statement.step() ? try statement.integer(at: 0) : -1
    }

    @Test func aKilledMigrationGoesOnAtTheNextStartAndLosesNothing() throws {
        let database = ScratchDatabase("raw-packing")
        defer { database.remove() }
        try makeUnpackedFile(database.path)

        let first = try RunningMailroom(database: database.path)
        _ = try first.program.waitForOutputLine(within: 30) { $0.contains("compressing raw mail kept uncompressed (up to \(Self.count) messages)") }
        // Killed once some batches are in and before the last.
        let deadline = Double(time(nil)) + 60
        var place: Int64 = 1
        while place == 1, Double(time(nil)) < deadline {
            place = try packedFrom(database.path)
            if place == 1 { _ = poll(nil, 0, 5) }
        }
        try first.kill()
        #expect(place > 1 && place <= Int64(Self.count), "the packer had begun and not finished: \(place)")

        let second = try RunningMailroom(database: database.path)
        _ = try second.program.waitForOutputLine(within: 120) { $0.contains("all raw mail is compressed") }
        let client = HTTPClient(port: second.port)
        for index in [0, Self.count / 2, Self.count - 1] {
            let answer = try client.send("GET", "/messages/\(index + 1)/raw")
            #expect(answer.status == 200)
            #expect(answer.body == Self.raw(index), "message \(index + 1) comes back as it was mailed")
        }
        #expect(try second.stop() == 0)

        let check = try ChildProcess(executable: try MailroomExecutable.path(), arguments: ["check", "--db", database.path])
        #expect(try check.waitForExit(within: 120) == 0, "\(check.errorText)")

        let store = try Store(path: database.path)
        var different = 0
        for index in 0..<Self.count where try store.read({ reader throws(StoreError) in try reader.rawMail(Int64(index + 1)) }) != Self.raw(index) {
            different += 1
        }
        #expect(different == 0)
        let kept = try store.read { reader throws(StoreError) in
            try reader.integers("SELECT count(*) FROM raw_packing UNION ALL SELECT count(*) FROM raw_packing WHERE dictionary IS NOT NULL", [])
        }
        // All packed, and with the Inbox's dictionary (it has enough mail for one).
        #expect(kept == [Int64(Self.count), Int64(Self.count)])
        // A byte changed on disk is found by the check.
        try store.write { transaction in
            var bytes = try #require(try transaction.database.readBlob(table: "raw_mail", column: "bytes", row: 5))
            bytes[bytes.count / 2] ^= 0x20
            try transaction.run("UPDATE raw_mail SET bytes = ? WHERE id = 5", [.blob(bytes)])
        }
        store.close()
        let damaged = try ChildProcess(executable: try MailroomExecutable.path(), arguments: ["check", "--db", database.path])
        #expect(try damaged.waitForExit(within: 120) != 0)
        #expect(damaged.outputText.contains("raw mail 5 ") || damaged.errorText.contains("raw mail 5 "),
                "\(damaged.outputText) \(damaged.errorText)")
    }
}
