import Glibc
import MailroomCore
@testable import MailroomStore
import Testing

/// `Tests/Fixtures/schema-2.sqlite` was written by the release before lists at any size (schema
/// 2), through its own pages: the sample Inbox, a mailbox "Projects" with two posts, one message
/// flagged, one deleted to Trash and one archived. Opening it with this build must keep every
/// message, flag, place, mailbox and Trash origin.
///
/// `Tests/Fixtures/schema-3.sqlite` is that file opened by the schema-3 release (commit 5ae26af),
/// which upgraded it, and then changed through that release's pages: message 6 deleted, 4
/// flagged, 2 marked read, and a message 9 ("After the upgrade", by Cy) added on top.
///
/// `Tests/Fixtures/schema-4.sqlite` is `schema-3.sqlite` opened by the schema-4 release (the
/// parent of commit 2e586fb), which upgraded it, then changed through its pages: 9 marked read,
/// 8 deleted from Projects, 7 flagged, and "Schema four" (by Dee) added to the Archive as 10.
@Suite struct MigrationTests {
    static let fixtures = String(#filePath).split(separator: "/").dropLast(2).joined(separator: "/")
        .prepending("/") + "/Fixtures/"

    /// A copy of a fixture to open (opening migrates the file in place).
    private func withCopy(of name: String = "schema-2.sqlite", _ body: (String) throws -> Void) throws {
        let fixture = Self.fixtures + name
        let bytes = try #require(contents(of: fixture), "the fixture is missing at \(fixture)")
        try withTemporaryPath { path in
            let file = try #require(fopen(path, "wb"))
            _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            try body(path)
        }
    }

    @Test func aSchemaTwoFileOpensMigratedWithEveryMessageInItsPlace() throws {
        try withCopy { path in
            #expect(try Database(path: path).userVersion == 2)
            let store = try Store(path: path)
            defer { store.close() }
            #expect(store.migratedFrom == 2)
            #expect(!store.isNew)
            let library = try store.library()
            #expect(library.mailboxes.map(\.name) == ["Inbox", "Archive", "Trash", "Projects"])
            #expect(library[.inbox]?.ids.map(\.rawValue) == [6, 4, 2, 1])
            #expect(library[.archive]?.ids.map(\.rawValue) == [5])
            #expect(library[.trash]?.ids.map(\.rawValue) == [3])
            #expect(library[MailboxID(rawValue: 100)]?.messages.map(\.subject) == ["Budget review", "Plan for Q1"])
            #expect(library.message(MessageID(2))?.isFlagged == true)
            #expect(library.message(MessageID(2))?.isUnread == true)
            #expect(library.message(MessageID(1))?.isUnread == false)
            #expect(library.message(MessageID(5))?.isFlagged == true)
            #expect(library.message(MessageID(7))?.body == "Draft the plan")
            #expect(library.message(MessageID(8))?.author == "Bob")
            #expect(library.message(MessageID(3))?.origin?.mailbox == .inbox)
            #expect(library.nextMessageID == 9)
            #expect(library.nextMailboxID == 101)
            // Counts are kept, not counted on a page load.
            let summaries = try store.read { reader throws(StoreError) in try reader.mailboxes() }
            #expect(summaries.map(\.count) == [4, 1, 1, 2])
            #expect(summaries.map(\.unreadCount) == [3, 1, 0, 2])
            #expect(try store.integrityCheck() == "ok")
            #expect(try store.setting("form-token", orMake: { "new" }) != "new", "the form token survives")
        }
    }

    @Test func aTrashedMessageFromSchemaTwoGoesBackToItsOldPlace() throws {
        try withCopy { path in
            let store = try Store(path: path)
            defer { store.close() }
            // Message 3 was between 4 (above) and 2 (below) when it was deleted.
            try store.write { try $0.restore([MessageID(3)]) }
            #expect(try store.library()[.inbox]?.ids.map(\.rawValue) == [6, 4, 3, 2, 1])
        }
    }

    @Test func theSearchIndexCoversMigratedMessages() throws {
        try withCopy { path in
            let store = try Store(path: path)
            defer { store.close() }
            let found = try store.read { reader throws(StoreError) in
                try reader.rows("WHERE m.id IN (SELECT rowid FROM search WHERE search MATCH ?) ORDER BY m.id", [.text("\"plan\"")])
            }
            #expect(found.map(\.message.id.rawValue) == [7])
        }
    }

    @Test func aSchemaThreeFileOpensWithItsMessagesSplitFromTheirHeadersAndNothingLost() throws {
        try withCopy(of: "schema-3.sqlite") { path in
            #expect(try Database(path: path).userVersion == 3)
            let store = try Store(path: path)
            defer { store.close() }
            #expect(store.migratedFrom == 3)
            #expect(try Database(path: path).userVersion == Schema.currentVersion)
            let library = try store.library()
            #expect(library.mailboxes.map(\.name) == ["Inbox", "Archive", "Trash", "Projects"])
            #expect(library[.inbox]?.ids.map(\.rawValue) == [9, 4, 2, 1])
            #expect(library[.archive]?.ids.map(\.rawValue) == [5])
            #expect(library[.trash]?.ids.map(\.rawValue) == [6, 3])
            #expect(library[MailboxID(rawValue: 100)]?.messages.map(\.subject) == ["Budget review", "Plan for Q1"])
            #expect(library.message(MessageID(9))?.subject == "After the upgrade")
            #expect(library.message(MessageID(9))?.body == "Written by schema 3")
            #expect(library.message(MessageID(9))?.author == "Cy")
            #expect(library.message(MessageID(4))?.isFlagged == true)
            #expect(library.message(MessageID(2))?.isUnread == false)
            #expect(library.nextMessageID == 10)
            let summaries = try store.read { reader throws(StoreError) in try reader.mailboxes() }
            #expect(summaries.map(\.count) == [4, 1, 2, 2])
            #expect(summaries.map(\.unreadCount) == [2, 1, 1, 2])
            let found = try store.read { reader throws(StoreError) in
                try reader.rows("WHERE m.id IN (SELECT rowid FROM search WHERE search MATCH ?) ORDER BY m.id", [.text("schema")])
            }
            #expect(found.map(\.message.id.rawValue) == [9])
            #expect(try store.integrityCheck() == "ok")
            // Message 6 was on top when it was deleted; 9 has taken its rank since, so 6 goes
            // back just above it. Then it can be destroyed, words and all.
            try store.write { try $0.restore([MessageID(6)]) }
            #expect(try store.library()[.inbox]?.ids.map(\.rawValue) == [6, 9, 4, 2, 1])
            func matches(_ word: String) throws -> Int {
                try store.read { reader throws(StoreError) in
                    try reader.count("SELECT count(*) FROM search WHERE search MATCH ?", [.text(word)])
                }
            }
            #expect(try matches("password") == 1)
            try store.write { try $0.emptyTrash() }
            #expect(try matches("password") == 0)
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func aSchemaFourFileOpensWithEveryMessageInItsPlaceAndTakesMail() throws {
        try withCopy(of: "schema-4.sqlite") { path in
            #expect(try Database(path: path).userVersion == 4)
            let store = try Store(path: path)
            defer { store.close() }
            #expect(store.migratedFrom == 4)
            let library = try store.library()
            #expect(library.mailboxes.map(\.name) == ["Inbox", "Archive", "Trash", "Projects"])
            #expect(library[.inbox]?.ids.map(\.rawValue) == [9, 4, 2, 1])
            #expect(library[.archive]?.ids.map(\.rawValue) == [10, 5])
            #expect(library[.trash]?.ids.map(\.rawValue) == [8, 6, 3])
            #expect(library[MailboxID(rawValue: 100)]?.messages.map(\.subject) == ["Plan for Q1"])
            #expect(library.message(MessageID(10))?.subject == "Schema four")
            #expect(library.message(MessageID(10))?.author == "Dee")
            #expect(library.message(MessageID(10))?.body == "Written by the schema-4 release")
            #expect(library.message(MessageID(7))?.isFlagged == true)
            #expect(library.message(MessageID(9))?.isUnread == false)
            #expect(library.message(MessageID(8))?.origin?.mailbox == MailboxID(rawValue: 100))
            let summaries = try store.read { reader throws(StoreError) in try reader.mailboxes() }
            #expect(summaries.map(\.count) == [4, 2, 3, 1])
            #expect(summaries.map(\.unreadCount) == [1, 2, 2, 1])
            #expect(try store.integrityCheck() == "ok")
            // Deleted from Projects under schema 4, it goes back there.
            try store.write { try $0.restore([MessageID(8)]) }
            #expect(try store.library()[MailboxID(rawValue: 100)]?.messages.map(\.subject) == ["Budget review", "Plan for Q1"])
            // The tables schema 5 added take mail.
            let mail = IncomingMail(
                subject: "After schema five", sender: "a@example.test", text: "Hello", html: nil, envelopeFrom: "a@example.test",
                envelopeTo: ["ops@example.test"], fromHeader: "a@example.test", toHeader: "ops@example.test", ccHeader: "",
                sentAt: nil, messageID: nil, attachments: [], peer: "127.0.0.1", raw: Array("Subject: After schema five\r\n\r\nHello\r\n".utf8))
            let ids = try store.write { transaction in try transaction.addMail(mail, to: [.inbox], at: 1_800_000_000) }
            #expect(try store.read { reader throws(StoreError) in try reader.mailDetails(ids[0]) }?.envelopeTo == ["ops@example.test"])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// `schema-5.sqlite` is `schema-4.sqlite` opened by the schema-5 build (this one, commit
    /// a9e66c1), which upgraded it, then given two messages over SMTP (a scan with a PDF for
    /// Projects, by its local part, and a cron report for the Inbox), message 10 marked read
    /// and message 6 restored from Trash.
    @Test func aSchemaFiveFileOpensMigratedWithItsMail() throws {
        try withCopy(of: "schema-5.sqlite") { path in
            #expect(try Database(path: path).userVersion == 5)
            let store = try Store(path: path)
            defer { store.close() }
            #expect(store.migratedFrom == 5)
            let library = try store.library()
            #expect(library[.inbox]?.ids.map(\.rawValue) == [12, 6, 9, 4, 2, 1])
            #expect(library[.archive]?.ids.map(\.rawValue) == [10, 5])
            #expect(library[.trash]?.ids.map(\.rawValue) == [8, 3])
            #expect(library[MailboxID(rawValue: 100)]?.messages.map(\.subject) == ["Scan for the project", "Plan for Q1"])
            #expect(library.message(MessageID(10))?.isUnread == false)
            let details = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(MessageID(11)) })
            #expect(details.envelopeTo == ["projects@mailroom.test"])
            #expect(details.attachments.map(\.name) == ["scan.pdf"])
            #expect(details.attachments.map(\.size) == [16])
            let raw = try #require(try store.read { reader throws(StoreError) in try reader.rawMail(details.raw) })
            #expect(String(decoding: raw, as: UTF8.self).contains("Subject: Scan for the project"))
            let found = try store.read { reader throws(StoreError) in
                try reader.rows("WHERE m.id IN (SELECT rowid FROM search WHERE search MATCH ?) ORDER BY m.id", [.text("recipients:projects")])
            }
            #expect(found.map(\.message.id.rawValue) == [11])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// `schema-6.sqlite` is `schema-5.sqlite` upgraded by the schema-6 build (the commit that
    /// added this test) through `mailroom import --db schema-6.sqlite --mailbox Imported`, which
    /// brought in two messages from an mbox: "Toner low" (Status: RO, so read) and "Nightly
    /// backup finished" (X-Status: F, flagged, with a quoted `>From` line in its body).
    @Test func aSchemaSixFileOpensAsItIsWithItsImportedMail() throws {
        try withCopy(of: "schema-6.sqlite") { path in
            #expect(try Database(path: path).userVersion == 6)
            let store = try Store(path: path)
            defer { store.close() }
            #expect(store.migratedFrom == 6)
            let library = try store.library()
            #expect(library[.inbox]?.ids.map(\.rawValue) == [12, 6, 9, 4, 2, 1])
            #expect(library[.trash]?.ids.map(\.rawValue) == [8, 3])
            let imported = try #require(library.mailboxes.first { $0.name == "Imported" })
            #expect(imported.messages.map(\.subject) == ["Nightly backup finished", "Toner low"])
            #expect(imported.messages.map(\.isUnread) == [true, false])
            #expect(imported.messages.map(\.isFlagged) == [true, false])
            let details = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(MessageID(14)) })
            let raw = try #require(try store.read { reader throws(StoreError) in try reader.rawMail(details.raw) })
            #expect(String(decoding: raw, as: UTF8.self).hasSuffix("All 12 folders copied.\nFrom the log: done.\n"))
            let keys = try store.read { reader throws(StoreError) in
                try reader.count("SELECT count(*) FROM raw_mail WHERE length(import_key) = 32", [])
            }
            #expect(keys == 2)
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// `schema-7.sqlite` is `schema-6.sqlite` upgraded by the schema-7 build (the commit that
    /// added this test) through `mailroom import --db schema-7.sqlite --mailbox Imported`, which
    /// brought in "Signing key rotated" (message 15), whose body holds a 320-character hex key:
    /// a run the index leaves out since schema 7.
    @Test func aSchemaSevenFileOpensAsItIsAndItsIndexLeavesOutTheLongRun() throws {
        try withCopy(of: "schema-7.sqlite") { path in
            #expect(try Database(path: path).userVersion == 7)
            let store = try Store(path: path)
            defer { store.close() }
            #expect(store.migratedFrom == 7)
            let library = try store.library()
            let imported = try #require(library.mailboxes.first { $0.name == "Imported" })
            #expect(imported.messages.map(\.subject) == ["Signing key rotated", "Nightly backup finished", "Toner low"])
            let key = String(repeating: "9f3a", count: 80)
            #expect(library.message(MessageID(15))?.body == "The new key is \(key) and the old one is retired.")
            #expect(try matches("retired", in: store) == [15])
            #expect(try matches(key, in: store) == [])
            // Message 14 was indexed by schema 6, message 15 by schema 7: both come out whole.
            try store.write { transaction in
                _ = try transaction.move([MessageID(14), MessageID(15)], from: imported.id, to: .trash)
                _ = try transaction.deletePermanently([MessageID(14), MessageID(15)])
            }
            #expect(try matches("retired", in: store) == [])
            #expect(try matches("folders", in: store) == [])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// `schema-8.sqlite` is `schema-7.sqlite` upgraded by the schema-8 build (the commit that
    /// added this test) through `mailroom import --db schema-8.sqlite --mailbox Imported`, which
    /// brought in "Weekly report" (message 16): 5,551 bytes of plain text, kept once, in its raw
    /// mail, from byte 202. Its text reads back whole, its words are found, and taking it out of
    /// the index (deleted for good) leaves nothing behind; the older messages beside it too.
    @Test func aSchemaEightFileOpensAsItIsWithABodyKeptInItsRawMail() throws {
        try withCopy(of: "schema-8.sqlite") { path in
            #expect(try Database(path: path).userVersion == 8)
            let store = try Store(path: path)
            defer { store.close() }
            #expect(store.migratedFrom == 8)
            let library = try store.library()
            let imported = try #require(library.mailboxes.first { $0.name == "Imported" })
            #expect(imported.messages.map(\.subject) == ["Weekly report", "Signing key rotated", "Nightly backup finished", "Toner low"])
            let kept = try store.read { reader throws(StoreError) in
                try reader.integers("SELECT raw_start FROM bodies WHERE id = 16 AND body = '' AND raw_length = 5551", [])
            }
            #expect(kept == [202])
            let body = try #require(library.message(MessageID(16))?.body)
            #expect(body.utf8.count == 5_551)
            #expect(body.hasPrefix("Line 001 of the weekly report: printers 4"))
            #expect(body.hasSuffix("\n\nSigned off by the night shift."))
            #expect(try matches("night shift", in: store) == [16])
            #expect(try matches("retired", in: store) == [15])
            #expect(try store.integrityCheck() == "ok")
            try store.write { transaction in
                _ = try transaction.move([MessageID(15), MessageID(16)], from: imported.id, to: .trash)
                _ = try transaction.deletePermanently([MessageID(15), MessageID(16)])
            }
            #expect(try matches("night shift", in: store) == [])
            #expect(try matches("printers", in: store) == [])
            #expect(try matches("retired", in: store) == [])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// A schema-6 file's bodies were indexed whole: after the upgrade they are found as before,
    /// and one taken out of the index (an edit) is found by its new words only.
    @Test func aSchemaSixIndexKeepsWorkingAfterTheUpgrade() throws {
        try withCopy(of: "schema-6.sqlite") { path in
            let store = try Store(path: path)
            defer { store.close() }
            #expect(try matches("folders", in: store) == [14])
            try store.write { transaction in
                try transaction.edit(MessageID(14), with: Draft(subject: "Nightly backup failed", body: "Disk full again."))
            }
            #expect(try matches("folders", in: store) == [])
            #expect(try matches("failed", in: store) == [14])
            #expect(try matches("disk", in: store) == [14])
        }
    }

    /// What the index itself holds for `words` (not joined with the messages, so a row left
    /// behind would show).
    private func matches(_ words: String, in store: Store) throws -> [Int64] {
        try store.read { reader throws(StoreError) in
            try reader.integers("SELECT rowid FROM search WHERE search MATCH ? ORDER BY rowid", [.text("\"\(words)\"")])
        }
    }

    /// `schema-9.sqlite` holds mail taken over SMTP and imported (one body kept in its raw mail),
    /// indexed with the sender's name alone, and two parts with no Content-ID (so listed).
    @Test func aSchemaNineFileFindsMailByItsSendersAddressAndAttachments() throws {
        try withCopy(of: "schema-9.sqlite") { path in
            #expect(try Database(path: path).userVersion == 9)
            let store = try Store(path: path)
            defer { store.close() }
            #expect(store.migratedFrom == 9)
            func found(_ text: String, in box: MailboxID) throws -> [Int64] {
                let query = try SearchQuery(text)
                return try store.read { reader throws(StoreError) in
                    try reader.search(query, in: box, from: .top, limit: 50).rows.map(\.id.rawValue)
                }
            }
            let imported = MailboxID(rawValue: 101)
            #expect(try found("from:scanner@office.test", in: .inbox) == [17])
            #expect(try found("scanner@office.test", in: .inbox) == [17])
            #expect(try found("from:scanner", in: .inbox) == [17])
            #expect(try found("from:reports", in: imported) == [16])
            #expect(try found("from:keys@example.test", in: imported) == [15])
            #expect(try found("from:\"night shift\"", in: imported) == [16])
            #expect(try Set(found("has:attachment", in: .inbox)) == [17])
            #expect(try found("has:attachment", in: MailboxID(rawValue: 100)) == [11])
            #expect(try found("has:attachment", in: imported) == [])
            #expect(try store.integrityCheck() == "ok")
            // The index took each mail out with the words it had, and now takes the new ones out.
            try store.write { transaction in
                _ = try transaction.move([MessageID(15), MessageID(16)], from: imported, to: .trash)
                _ = try transaction.deletePermanently([MessageID(15), MessageID(16)])
            }
            for words in ["author : reports", "author : keys", "author : \"Key Robot\"", "night shift"] {
                let left = try store.read { reader throws(StoreError) in
                    try reader.integers("SELECT rowid FROM search WHERE search MATCH ?", [.text(words)])
                }
                #expect(left == [], "\(words)")
            }
        }
    }

    @Test func aMigratedFileReopensWithoutMigratingAgain() throws {
        try withCopy { path in
            try Store(path: path).close()
            let again = try Store(path: path)
            defer { again.close() }
            #expect(again.migratedFrom == nil)
            #expect(try Database(path: path).userVersion == Schema.currentVersion)
        }
    }
}

extension String {
    fileprivate func prepending(_ prefix: String) -> String { prefix + self }
}
