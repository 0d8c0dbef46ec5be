import MailroomCore
@testable import MailroomStore
import Testing

/// Mail that arrived over SMTP: kept once, exactly as received, however many mailboxes hold a
/// copy, and gone with its last copy.
@Suite struct MailStoreTests {
    private func mail(_ subject: String, raw: String = "Subject: x\r\n\r\nBody\r\n", attachments: Int = 0) -> IncomingMail {
        IncomingMail(
            subject: subject, sender: "Scanner", text: "The text of \(subject)", html: "<p>\(subject)</p>",
            envelopeFrom: "scanner@office.test", envelopeTo: ["inbox@example.test", "ops@example.test"],
            fromHeader: "Scanner <scanner@office.test>", toHeader: "inbox@example.test", ccHeader: "",
            sentAt: 1_700_000_000, messageID: "id@office.test",
            attachments: (0..<attachments).map {
                StoredAttachment(part: $0, name: "scan-\($0).pdf", type: "application/pdf", size: 100 + $0, contentID: nil)
            },
            peer: "127.0.0.1", raw: Array(raw.utf8))
    }

    @Test func aMessageForTwoMailboxesIsTwoCopiesOfOneRawMessage() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let box = try store.write { try $0.createMailbox(named: "Scans") }
            let raw = "Subject: Scan\r\nX-Odd: \u{00e9}\r\n\r\nbare\nlf kept\r\n"
            let ids = try store.write { try $0.addMail(mail("Scan", raw: raw, attachments: 2), to: [.inbox, box], at: 1_000) }
            #expect(ids.count == 2)
            let first = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(ids[0]) })
            let second = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(ids[1]) })
            #expect(first.raw == second.raw)
            #expect(try store.read { reader throws(StoreError) in try reader.rawMail(first.raw) } == Array(raw.utf8))
            #expect(first.attachments.map(\.name) == ["scan-0.pdf", "scan-1.pdf"])
            #expect(first.envelopeTo == ["inbox@example.test", "ops@example.test"])
            #expect(first.size == raw.utf8.count)
            let library = try store.library()
            #expect(library[.inbox]?.messages.first?.subject == "Scan")
            #expect(library[box]?.messages.first?.author == "Scanner")
            #expect(try store.integrityCheck() == "ok")

            // The first copy goes: the bytes stay for the second; the second goes: nothing is left.
            try store.write { try $0.move([ids[0]], from: .inbox, to: .trash) }
            try store.write { _ = try $0.emptyTrash() }
            #expect(try store.read { reader throws(StoreError) in try reader.rawMail(first.raw) } != nil)
            #expect(try store.read { reader throws(StoreError) in try reader.mailDetails(ids[1]) }?.attachments.count == 2)
            try store.write { try $0.move([ids[1]], from: box, to: .trash) }
            try store.write { _ = try $0.emptyTrash() }
            #expect(try store.read { reader throws(StoreError) in try reader.rawMail(first.raw) } == nil)
            #expect(try store.read { reader throws(StoreError) in try reader.integers("SELECT count(*) FROM attachments", []) } == [0])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func aMessageWithNoSubjectIsListedAsNoSubjectAndItsTextIsSearchable() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            var incoming = mail("")
            incoming.text = "toner cartridge julokox low"
            let ids = try store.write { try $0.addMail(incoming, to: [], at: 1_000) }
            #expect(try store.library()[.inbox]?.messages.map(\.subject) == ["(no subject)"])
            let query = try SearchQuery("julokox")
            let found = try store.read { reader throws(StoreError) in
                try reader.search(query, in: .inbox, from: .top, limit: 10)
            }
            #expect(found.rows.map(\.id) == ids)
        }
    }

    @Test func toFindsMailByItsRecipientsAndForgetsThemWithTheMessage() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            var incoming = mail("For the desk")
            incoming.toHeader = "Front Desk <frontdesk@office.test>"
            incoming.envelopeTo = ["backoffice@office.test"]
            let ids = try store.write { try $0.addMail(incoming, to: [.inbox], at: 1_000) }
            try store.write { try $0.add(Draft(subject: "Posted about the frontdesk"), to: .inbox, at: 2_000) }
            for text in ["to:frontdesk", "to:backoffice"] {
                let query = try SearchQuery(text)
                let found = try store.read { reader throws(StoreError) in try reader.search(query, in: .inbox, from: .top, limit: 10) }
                #expect(found.rows.map(\.id) == ids, "\(text)")
            }
            let indexed = "SELECT rowid FROM search WHERE search MATCH 'recipients:frontdesk'"
            #expect(try store.read { reader throws(StoreError) in try reader.integers(indexed, []) } == [ids[0].rawValue])
            try store.write { try $0.move(ids, from: .inbox, to: .trash) }
            try store.write { _ = try $0.emptyTrash() }
            // A contentless index forgets a row only when told its very words: none may be left.
            #expect(try store.read { reader throws(StoreError) in try reader.integers(indexed, []) } == [])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func aLargeMessageIsKeptByteForByte() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            var incoming = mail("Big")
            var generator = SystemRandomNumberGenerator()
            incoming.raw = (0..<(3 << 20) + 17).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let ids = try store.write { try $0.addMail(incoming, to: [.inbox], at: 1_000) }
            let details = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(ids[0]) })
            #expect(try store.read { reader throws(StoreError) in try reader.rawMail(details.raw) } == incoming.raw)
        }
    }

    /// A batch of imports: each message on top in turn with its own state, a message whose key
    /// was seen earlier in the batch or in an earlier batch skipped, the counters moved once.
    @Test func anImportBatchSkipsKnownKeysAndKeepsEachMessagesState() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let box = try store.write { try $0.createMailbox(named: "Old mail") }
            func imported(_ subject: String, key: UInt8, unread: Bool = true, flagged: Bool = false, size: Int = 40) -> ImportedMail {
                var incoming = mail(subject, raw: "Subject: \(subject)\r\n\r\n" + String(repeating: "z", count: size))
                incoming.peer = "import"
                return ImportedMail(mail: incoming, key: [UInt8](repeating: key, count: 32), time: 1_000 + Int64(key),
                                    isUnread: unread, isFlagged: flagged)
            }
            let first = try store.write { transaction in
                try transaction.importMail([
                    imported("One", key: 1), imported("Two", key: 2, unread: false), imported("One again", key: 1),
                    imported("Big", key: 3, flagged: true, size: 300 << 10),
                ], to: box)
            }
            #expect(first == 3)
            let second = try store.write { transaction in
                try transaction.importMail([imported("Two again", key: 2), imported("Four", key: 4, unread: false, flagged: true)], to: box)
            }
            #expect(second == 1)
            let messages = try #require(try store.library()[box]).messages
            #expect(messages.map(\.subject) == ["Four", "Big", "Two", "One"])
            #expect(messages.map(\.isUnread) == [false, true, false, true])
            #expect(messages.map(\.isFlagged) == [true, true, false, false])
            #expect(messages.map(\.createdAt) == [1_004, 1_003, 1_002, 1_001])
            let summary = try #require(try store.read { reader throws(StoreError) in try reader.mailboxes() }.first { $0.id == box })
            #expect(summary.count == 4)
            #expect(summary.unreadCount == 2)
            let big = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(messages[1].id) })
            #expect(try store.read { reader throws(StoreError) in try reader.rawMail(big.raw) }?.count == "Subject: Big\r\n\r\n".utf8.count + (300 << 10))
            // Indexed once per batch, by its words, subject and recipients; skipped ones not at all.
            func found(_ query: String) throws -> [Int64] {
                try store.read { reader throws(StoreError) in
                    try reader.integers("SELECT rowid FROM search WHERE search MATCH ? ORDER BY rowid", [.text(query)])
                }
            }
            #expect(try found("four") == [4])
            #expect(try found("subject:again") == [])
            #expect(try found("text") == [1, 2, 3, 4])
            #expect(try found("recipients:ops") == [1, 2, 3, 4])
            // What comes next takes the next ids, after the batch's, and the trigger indexes it again.
            let next = try store.write { try $0.addMail(mail("After"), to: [.inbox], at: 2_000) }
            #expect(next.map(\.rawValue) == [5])
            #expect(try found("after") == [5])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// A plain text that is its mail's body byte for byte, but for line ends (CRLF as SMTP sends
    /// them, LF as an mbox has them), is kept once, in the raw mail, whether it came by SMTP or
    /// by import: it reads back whole with LF line ends, its preview and search words are its
    /// own, an edit or a rename takes the right words out, and deleting it for good leaves
    /// nothing in the index. A text that differs from the bytes, or a very short one, keeps its
    /// own row.
    @Test func aPlainBodyIsKeptOnceInItsRawMailAndReadsBackWhole() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let box = try store.write { try $0.createMailbox(named: "Reports") }
            func plain(_ subject: String, words: String, lineEnd: String = "\n") -> IncomingMail {
                let text = (1...120).map { "Line \($0): \(words) counted and filed." }.joined(separator: lineEnd)
                var incoming = mail(subject, raw: "Subject: \(subject)\(lineEnd)From: a@b.test\(lineEnd)\(lineEnd)\(text)\(lineEnd)\(lineEnd)")
                incoming.text = (1...120).map { "Line \($0): \(words) counted and filed." }.joined(separator: "\n")
                return incoming
            }
            let smtp = try store.write { try $0.addMail(plain("Toner", words: "toner cartridges"), to: [.inbox], at: 1_000) }
            let imported = ImportedMail(mail: plain("Paper", words: "paper reams"), key: [UInt8](repeating: 7, count: 32),
                                        time: 1_001, isUnread: true, isFlagged: false)
            #expect(imported.mail.text.isEmpty)
            let crlf = ImportedMail(mail: plain("Ink", words: "ink bottles", lineEnd: "\r\n"), key: [UInt8](repeating: 8, count: 32),
                                    time: 1_002, isUnread: true, isFlagged: false)
            #expect(crlf.mail.text.isEmpty)
            #expect(try store.write { try $0.importMail([imported, crlf], to: box) } == 2)
            func body(_ id: Int64) throws -> (text: String, start: Int64?) {
                let start = try store.read { reader throws(StoreError) in
                    try reader.integers("SELECT coalesce(raw_start, -1) FROM bodies WHERE id = ?", [.integer(id)])
                }
                let text = try #require(try store.library().message(MessageID(id))?.body)
                return (text, start.first == -1 ? nil : start.first)
            }
            let expected = { (words: String) in (1...120).map { "Line \($0): \(words) counted and filed." }.joined(separator: "\n") }
            #expect(try body(smtp[0].rawValue) == (expected("toner cartridges"), Int64("Subject: Toner\nFrom: a@b.test\n\n".utf8.count)))
            #expect(try body(2) == (expected("paper reams"), Int64("Subject: Paper\nFrom: a@b.test\n\n".utf8.count)))
            #expect(try body(3) == (expected("ink bottles"), Int64("Subject: Ink\r\nFrom: a@b.test\r\n\r\n".utf8.count)))
            let rows = try #require(try store.library()[box]).messages
            #expect(rows.map(\.subject) == ["Ink", "Paper"])
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT count(*) FROM headers WHERE id = 2 AND preview LIKE 'Line 1: paper reams counted and filed. Line 2:%'", [])
            } == [1])
            func found(_ query: String) throws -> [Int64] {
                try store.read { reader throws(StoreError) in
                    try reader.integers("SELECT rowid FROM search WHERE search MATCH ? ORDER BY rowid", [.text(query)])
                }
            }
            #expect(try found("cartridges") == [1])
            #expect(try found("reams") == [2])
            #expect(try found("bottles") == [3])
            #expect(try found("recipients:ops") == [1, 2, 3])
            #expect(try store.integrityCheck() == "ok")
            // An edit replaces the text (now kept in its row); a rename re-reads it from the raw mail.
            try store.write { try $0.edit(MessageID(1), with: Draft(subject: "Toner", body: "Ordered more.")) }
            #expect(try body(1) == ("Ordered more.", nil))
            #expect(try found("cartridges") == [])
            #expect(try found("ordered") == [1])
            try store.write { try $0.edit(MessageID(2), with: Draft(subject: "Paper stock", body: expected("paper reams"))) }
            #expect(try found("reams") == [2])
            #expect(try found("stock") == [2])
            try store.write { transaction in
                _ = try transaction.move([MessageID(2), MessageID(3)], from: box, to: .trash)
                _ = try transaction.deletePermanently([MessageID(2), MessageID(3)])
            }
            #expect(try found("reams") == [])
            #expect(try found("bottles") == [])
            #expect(try found("recipients:ops") == [1])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// `check` finds a body that points outside its raw mail.
    @Test func aBodyPointingPastItsRawMailIsReported() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let text = String(String(repeating: "word ", count: 1_000).dropLast())
            var incoming = mail("Long", raw: "Subject: Long\n\n" + text + "\n")
            incoming.text = text
            _ = try store.write { try $0.addMail(incoming, to: [.inbox], at: 1_000) }
            #expect(try store.read { reader throws(StoreError) in try reader.integers("SELECT raw_start FROM bodies", []) } == [15])
            #expect(try store.integrityCheck() == "ok")
            try store.write { transaction in try transaction.run("UPDATE bodies SET raw_length = 10000 WHERE id = 1", []) }
            #expect(try store.integrityCheck() == "body 1 is not in its raw mail")
        }
    }

    @Test func retentionTakesTheOldestUnflaggedFirstAndKeepsFlaggedOnes() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            for index in 1...10 {
                try store.write { _ = try $0.addMail(mail("Mail \(index)"), to: [.inbox], at: Int64(index * 100)) }
            }
            let oldest = try #require(try store.library()[.inbox]?.messages.last)
            try store.write { try $0.setFlagged(true, for: [oldest.id], in: .inbox) }
            #expect(try store.write { try $0.expireOldest(3) } == 3)
            #expect(try store.library()[.inbox]?.messages.map(\.subject)
                == ["Mail 10", "Mail 9", "Mail 8", "Mail 7", "Mail 6", "Mail 5", "Mail 1"])
            // Only what arrived before 700: Mail 5 and Mail 6 (Mail 1 is flagged).
            #expect(try store.write { try $0.expireOldest(100, arrivedBefore: 700) } == 2)
            #expect(try store.read { reader throws(StoreError) in try reader.totalMessages() } == 5)
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func addressesRouteMailAndGoWithTheirMailbox() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let scans = try store.write { try $0.createMailbox(named: "Scans") }
            let alerts = try store.write { try $0.createMailbox(named: "Build Alerts") }
            try store.write { try $0.setAddresses(["scanner@office.test", "*@scan.test"], for: scans) }
            #expect(try store.write { try $0.route(["SCANNER@office.test"]) } == [scans])
            #expect(try store.write { try $0.route(["x@scan.test", "ops+build-alerts@ci.test"]) } == [scans, alerts])
            #expect(try store.write { try $0.route(["nobody@example.test"]) } == [.inbox])
            #expect(try store.read { reader throws(StoreError) in try reader.addresses() } == [scans: ["*@scan.test", "scanner@office.test"]])
            _ = try store.write { try $0.deleteMailbox(scans) }
            #expect(try store.read { reader throws(StoreError) in try reader.addresses() }.isEmpty)
            #expect(try store.write { try $0.route(["scanner@office.test"]) } == [.inbox])
        }
    }

    /// The writer keeps the routing table between messages: every change to it is seen at once,
    /// in its own transaction too, and one that is rolled back is never seen.
    @Test func routingFollowsEveryChangeToMailboxesAndAddresses() throws {
        struct Refused: Error {}
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            #expect(try store.write { try $0.route(["scans@office.test"]) } == [.inbox])
            let scans = try store.write { try $0.createMailbox(named: "Scans") }
            #expect(try store.write { try $0.route(["scans@office.test"]) } == [scans])
            // Changed and routed in one transaction: the change is seen before it is committed.
            #expect(try store.write { transaction in
                try transaction.renameMailbox(scans, to: "Paper")
                return try transaction.route(["scans@office.test", "paper@office.test"])
            } == [scans])
            #expect(try store.write { try $0.route(["scans@office.test"]) } == [.inbox])
            // A rename rolled back leaves the name that was committed.
            #expect(throws: StoreError.self) {
                try store.write { transaction in
                    try transaction.renameMailbox(scans, to: "Copier")
                    #expect(try transaction.route(["copier@office.test"]) == [scans])
                    throw Refused()
                }
            }
            #expect(try store.write { try $0.route(["copier@office.test"]) } == [.inbox])
            #expect(try store.write { try $0.route(["paper@office.test"]) } == [scans])
            try store.write { try $0.setAddresses(["*@scan.test"], for: scans) }
            #expect(try store.write { try $0.route(["x@scan.test"]) } == [scans])
            _ = try store.write { try $0.deleteMailbox(scans) }
            #expect(try store.write { try $0.route(["x@scan.test", "paper@office.test"]) } == [.inbox])
        }
    }

    /// The writer learns of a change to the routing table from SQLite, not from the code that
    /// makes it: a statement written without routing in mind is seen too, and counts changing
    /// with every message are not taken for a change.
    @Test func routingFollowsAChangeMadeByAnyStatement() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let scans = try store.write { try $0.createMailbox(named: "Scans") }
            #expect(try store.write { try $0.route(["copier@office.test"]) } == [.inbox])
            let before = store.routingEpoch.load(ordering: .acquiring)
            try store.write { transaction in
                try transaction.run("INSERT INTO addresses (pattern, mailbox) VALUES (?, ?)",
                                    [.text("copier@office.test"), .integer(scans.rawValue)])
                #expect(try transaction.route(["copier@office.test"]) == [scans])
            }
            #expect(try store.write { try $0.route(["copier@office.test"]) } == [scans])
            try store.write { try $0.run("UPDATE mailboxes SET name = 'Paper' WHERE id = ?", [.integer(scans.rawValue)]) }
            #expect(try store.write { try $0.route(["paper@office.test", "scans@office.test"]) } == [scans])
            let changed = store.routingEpoch.load(ordering: .acquiring)
            #expect(changed == before + 2)
            // Mail changes a mailbox's counts, never its routing.
            try store.write { _ = try $0.addMail(mail("Counted"), to: [.inbox], at: 1_000) }
            #expect(store.routingEpoch.load(ordering: .acquiring) == changed)
        }
    }
}
