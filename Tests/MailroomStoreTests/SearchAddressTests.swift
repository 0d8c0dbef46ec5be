import MailroomCore
@testable import MailroomStore
import Testing

/// Searches by address (from:, to:, cc:, a bare address), by attachment and by HTML, over a real
/// SQLite file, through both ways mail comes in: over SMTP (`addMail`) and imported in bulk.
@Suite struct SearchAddressTests {
    static func mail(
        _ subject: String, from: String = "山田 太郎 <taro@example.test>", envelopeFrom: String = "taro@example.test",
        to: String = "Desk <desk@office.test>", cc: String = "", text: String = "Some text", html: String? = nil,
        attachments: [StoredAttachment] = []
    ) -> IncomingMail {
        IncomingMail(
            subject: subject, sender: "山田 太郎", text: text, html: html, envelopeFrom: envelopeFrom,
            envelopeTo: ["desk@office.test"], fromHeader: from, toHeader: to, ccHeader: cc, sentAt: nil, messageID: nil,
            attachments: attachments, peer: "127.0.0.1", raw: Array("Subject: \(subject)\r\n\r\n\(text)\r\n".utf8))
    }

    static func found(_ text: String, in store: Store, box: MailboxID = .inbox) throws -> [Int64] {
        let query = try SearchQuery(text)
        return try store.read { reader throws(StoreError) in
            try reader.search(query, in: box, from: .top, limit: 50).rows.map(\.id.rawValue)
        }
    }

    static func counted(_ text: String, in store: Store) throws -> Int {
        let query = try SearchQuery(text)
        return try store.read { reader throws(StoreError) in try reader.count(query, in: .inbox, enteredBy: nil) }
    }

    @Test(arguments: [false, true])
    func fromFindsTheAddressItsLocalPartAndTheDisplayName(imported: Bool) throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let other = Self.mail("Other", from: "Ann <ann@else.test>", envelopeFrom: "bounce@else.test")
            let taro = Self.mail("From Taro")
            let ids: [Int64]
            if imported {
                let batch = [other, taro].map { ImportedMail(mail: $0, key: Array($0.subject.utf8), time: 1_000, isUnread: true, isFlagged: false) }
                _ = try store.write { try $0.importMail(batch, to: .inbox) }
                ids = try store.library()[.inbox]?.ids.map(\.rawValue).sorted() ?? []
            } else {
                ids = try [other, taro].map { mail in
                    try store.write { try $0.addMail(mail, to: [.inbox], at: 1_000) }[0].rawValue
                }
            }
            try store.write { try $0.add(Draft(subject: "Posted by taro"), to: .inbox, at: 2_000) }
            for text in ["from:taro", "from:taro@example.test", "taro@example.test", "from:山田", "from:太郎", "FROM:TARO"] {
                #expect(try Self.found(text, in: store) == [ids[1]], "\(text)")
            }
            // The envelope sender counts only for mail without a From header.
            #expect(try Self.found("from:bounce", in: store) == [])
            #expect(try Self.found("from:ann@else.test", in: store) == [ids[0]])
            #expect(try Self.found("from:nobody", in: store) == [])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func mailWithoutAFromHeaderIsFoundByItsEnvelopeSender() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let id = try store.write {
                try $0.addMail(Self.mail("No From", from: "", envelopeFrom: "cron@nas.test"), to: [.inbox], at: 1_000)
            }[0].rawValue
            #expect(try Self.found("from:cron@nas.test", in: store) == [id])
        }
    }

    @Test func toAndCcFindAddressesAndCcOnlyTheCcHeader() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let toBob = try store.write {
                try $0.addMail(Self.mail("To Bob", to: "Bob Lee <bob@office.test>"), to: [.inbox], at: 1_000)
            }[0].rawValue
            let ccBob = try store.write {
                try $0.addMail(Self.mail("Cc Bob", cc: "Bob Lee <bob@office.test>, 花子 <hanako@office.test>"), to: [.inbox], at: 1_000)
            }[0].rawValue
            #expect(try Self.found("to:bob", in: store) == [ccBob, toBob])
            #expect(try Self.found("to:bob@office.test", in: store) == [ccBob, toBob])
            #expect(try Self.found("cc:bob", in: store) == [ccBob])
            #expect(try Self.found("cc:bob@office.test", in: store) == [ccBob])
            #expect(try Self.found("cc:花子", in: store) == [ccBob])
            #expect(try Self.found("cc:hanako", in: store) == [ccBob])
            #expect(try Self.found("cc:BOB", in: store) == [ccBob])
            #expect(try Self.found("to:bob -cc:bob", in: store) == [toBob])
            #expect(try Self.found("bob@office.test", in: store) == [ccBob, toBob])
            #expect(try Self.counted("cc:bob", in: store) == 1)
        }
    }

    @Test func aBareAddressIsLookedForInSendersAndRecipientsOnly() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let mentions = try store.write {
                try $0.addMail(Self.mail("Mentions", from: "Ann <ann@else.test>", envelopeFrom: "ann@else.test",
                                         text: "write to taro@example.test"), to: [.inbox], at: 1_000)
            }[0].rawValue
            let sent = try store.write { try $0.addMail(Self.mail("Sent"), to: [.inbox], at: 1_000) }[0].rawValue
            #expect(try Self.found("taro@example.test", in: store) == [sent])
            // In quotes, it is words like any other, wherever they are.
            #expect(try Self.found("\"taro@example.test\"", in: store) == [sent, mentions])
        }
    }

    @Test func hasAttachmentCountsListedPartsNotInlineImages() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let pdf = StoredAttachment(part: 0, name: "scan.pdf", type: "application/pdf", size: 100, contentID: nil)
            let logo = StoredAttachment(part: 0, name: "logo.png", type: "image/png", size: 100, contentID: "logo@x")
            let withPDF = try store.write {
                try $0.addMail(Self.mail("Scan", html: "<p>scan</p>", attachments: [pdf]), to: [.inbox], at: 1_000)
            }[0].rawValue
            let inlineOnly = try store.write {
                try $0.addMail(Self.mail("Logo", html: "<img src=\"cid:logo@x\">", attachments: [logo]), to: [.inbox], at: 1_000)
            }[0].rawValue
            // A Content-ID the HTML never shows: listed after all.
            let unreferenced = try store.write {
                try $0.addMail(Self.mail("Plain", html: nil, attachments: [logo]), to: [.inbox], at: 1_000)
            }[0].rawValue
            let plain = try store.write { try $0.addMail(Self.mail("None", html: "<p>x</p>"), to: [.inbox], at: 1_000) }[0].rawValue
            try store.write { try $0.add(Draft(subject: "Posted"), to: .inbox, at: 2_000) }
            #expect(try Set(Self.found("has:attachment", in: store)) == [withPDF, unreferenced])
            #expect(try Self.counted("has:attachment", in: store) == 2)
            #expect(try Self.found("has:attachment scan", in: store) == [withPDF])
            #expect(try Self.found("has:attachment logo", in: store) == [])
            #expect(try Set(Self.found("has:html", in: store)) == [withPDF, inlineOnly, plain])
            #expect(try Self.found("has:html has:attachment", in: store) == [withPDF])
            #expect(try Self.found("has:html from:taro none", in: store) == [plain])
        }
    }

    @Test func hasAttachmentAloneIsReadThroughThePartialIndex() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let query = try SearchQuery("has:attachment")
            let (sql, values) = Reader.matchSQL(query, in: .inbox, columns: "1", extra: "", [])
            let plan = try store.read { reader throws(StoreError) in
                try reader.texts("EXPLAIN QUERY PLAN SELECT count(*) FROM (\(sql))", values, column: 3)
            }
            #expect(plan.contains { $0.contains("mail_with_attachments") }, "\(plan)")
        }
    }
}

extension Reader {
    /// Column `column` of every row of `sql`, as text.
    func texts(_ sql: String, _ values: [SQLValue], column: Int = 0) throws(StoreError) -> [String] {
        let statement = try database.prepare(sql)
        try statement.bind(values)
        var all: [String] = []
        while try statement.step() { all.append(try statement.text(at: column)) }
        return all
    }
}
