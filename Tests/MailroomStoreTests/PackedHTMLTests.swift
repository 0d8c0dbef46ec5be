import MailroomCore
@testable import MailroomStore
import Testing

/// A mail's decoded HTML kept compressed (schema 14): read back whole, still looked into for the
/// parts it shows inline, still found by `has:html`, and a damaged one reported, never trusted.
@Suite struct PackedHTMLTests {
    /// A newsletter's worth of HTML: tables of rows, as monitoring and CI mail sends.
    private let newsletter = "<html><body><img src=\"cid:logo@host\"><table>"
        + (1...200).map { "<tr><td class=\"cell\">Check \($0)</td><td>passed in \($0 * 7) ms</td></tr>" }.joined()
        + "</table></body></html>"

    private func mail(html: String?) -> IncomingMail {
        IncomingMail(
            subject: "Build report", sender: "CI", text: "Build report", html: html, envelopeFrom: "ci@host.test",
            envelopeTo: ["ops@example.test"], fromHeader: "ci@host.test", toHeader: "ops@example.test", ccHeader: "",
            sentAt: nil, messageID: nil,
            attachments: [
                StoredAttachment(part: 0, name: "logo.png", type: "image/png", size: 100, contentID: "logo@host"),
                StoredAttachment(part: 1, name: "log.txt", type: "text/plain", size: 100, contentID: nil),
            ],
            peer: "127.0.0.1", raw: Array("Subject: Build report\r\n\r\nsee the HTML\r\n".utf8))
    }

    private func htmlColumn(_ store: Store, _ id: MessageID) throws -> (type: String, bytes: Int64) {
        let rows = try store.read { reader throws(StoreError) in
            let statement = try reader.database.prepare("SELECT typeof(html), length(CAST(html AS BLOB)) FROM mail WHERE id = ?")
            try statement.bind([.integer(id.rawValue)])
            guard try statement.step() else { return [(String, Int64)]() }
            return [(try statement.text(at: 0), try statement.optionalInteger(at: 1) ?? 0)]
        }
        let row = try #require(rows.first)
        return (row.0, row.1)
    }

    @Test func largeHTMLIsKeptCompressedAndReadsBackWhole() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            // Stored as it comes (compressed by the writer) and compressed ahead, as SMTP does.
            var ahead = mail(html: newsletter)
            store.packAhead(&ahead, routedBy: ["ops@example.test"])
            #expect(ahead.packedHTML != nil)
            let plain = try #require(try store.write { try $0.addMail(mail(html: newsletter), to: [.inbox], at: 1_000) }.first)
            let packed = try #require(try store.write { try $0.addMail(ahead, to: [.inbox], at: 1_001) }.first)
            for id in [plain, packed] {
                let column = try htmlColumn(store, id)
                #expect(column.type == "blob")
                #expect(column.bytes * 5 < Int64(newsletter.utf8.count))
                #expect(try store.read { reader throws(StoreError) in try reader.mailDetails(id)?.html } == newsletter)
                // The logo is shown inline by the HTML; the log is an attachment.
                #expect(try store.read { reader throws(StoreError) in try reader.inlineParts(of: id) } == [0])
                #expect(try store.read { reader throws(StoreError) in try reader.rowDetails(of: [id])[id]?.hasAttachments } == true)
            }
            let query = try SearchQuery("has:html")
            let found = try store.read { reader throws(StoreError) in try reader.search(query, in: .inbox, from: .top, limit: 10) }
            #expect(found.rows.map(\.id) == [packed, plain])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func shortHTMLAndNoHTMLStayAsTheyWere() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let short = try #require(try store.write { try $0.addMail(mail(html: "<p>Built.</p>"), to: [.inbox], at: 1_000) }.first)
            let none = try #require(try store.write { try $0.addMail(mail(html: nil), to: [.inbox], at: 1_001) }.first)
            #expect(try htmlColumn(store, short).type == "text")
            #expect(try htmlColumn(store, none).type == "null")
            #expect(try store.read { reader throws(StoreError) in try reader.mailDetails(short)?.html } == "<p>Built.</p>")
            #expect(try store.read { reader throws(StoreError) in try reader.mailDetails(none)?.html } == nil)
        }
    }

    /// A damaged frame is an error where the HTML is read and a line of `check`, not a crash or
    /// a vast allocation.
    @Test func aDamagedFrameIsReportedNotTrusted() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let id = try #require(try store.write { try $0.addMail(mail(html: newsletter), to: [.inbox], at: 1_000) }.first)
            try store.write { transaction in
                // A byte in the middle of the frame flipped: its checksum no longer matches.
                let statement = try transaction.database.prepare("SELECT html FROM mail WHERE id = ?")
                try statement.bind([.integer(id.rawValue)])
                guard try statement.step() else { throw StoreError.invalidData("no mail") }
                var frame = try statement.blob(at: 0)
                statement.reset()
                frame[frame.count / 2] ^= 0xFF
                try transaction.run("UPDATE mail SET html = ? WHERE id = ?", [.blob(frame), .integer(id.rawValue)])
            }
            #expect(try htmlColumn(store, id).type == "blob")
            #expect(throws: StoreError.invalidData("the HTML of message \(id.rawValue) does not decompress")) {
                _ = try store.read { reader throws(StoreError) in try reader.mailDetails(id) }
            }
            #expect(try store.integrityCheck() == "the HTML of message \(id.rawValue) does not decompress")
        }
    }
}
