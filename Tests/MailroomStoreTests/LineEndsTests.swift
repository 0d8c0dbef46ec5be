import MailroomCore
@testable import MailroomStore
import Testing

/// SMTP mail's text kept once in its compressed raw mail although the wire's CRLF became LF in
/// the text, and only when the bytes read back as exactly that text.
@Suite struct LineEndsTests {
    private let words = (1...6).map { "Line \($0): the nightly backup of /srv finished." }

    private func mail(raw: String, text: String) -> IncomingMail {
        IncomingMail(
            subject: "Backup", sender: "cron", text: text, html: nil, envelopeFrom: "cron@host.test",
            envelopeTo: ["ops@example.test"], fromHeader: "cron@host.test", toHeader: "ops@example.test", ccHeader: "",
            sentAt: nil, messageID: nil, attachments: [], peer: "127.0.0.1", raw: Array(raw.utf8))
    }

    @Test func crlfAndLoneCRReadAsLF() {
        #expect(LineEnds.text(of: Array("a\r\nb\rc\n\r\r\nd".utf8)) == Array("a\nb\nc\n\n\nd".utf8))
        #expect(LineEnds.text(of: Array("no carriage returns\n".utf8)) == Array("no carriage returns\n".utf8))
        #expect(LineEnds.text(of: []) == [])
    }

    @Test func aCRLFBodyIsFoundInItsRawBytes() throws {
        let head = "Subject: Backup\r\nFrom: cron@host.test\r\n\r\n"
        let body = words.joined(separator: "\r\n")
        let text = words.joined(separator: "\n")
        let span = try #require(Transaction.bodyInRaw(mail(raw: head + body + "\r\n\r\n", text: text)))
        #expect(span == head.utf8.count..<(head.utf8.count + body.utf8.count))
        // What `raw_text` gives back for that span is the text.
        #expect(LineEnds.text(of: Array(Array((head + body).utf8)[span])) == Array(text.utf8))
        // Lone CRs, and an mbox's LF, are found too.
        #expect(Transaction.bodyInRaw(mail(raw: head + words.joined(separator: "\r") + "\r", text: text)) != nil)
        #expect(Transaction.bodyInRaw(mail(raw: "Subject: Backup\n\n" + text + "\n", text: text)) == 17..<(17 + text.utf8.count))
    }

    @Test func aTextThatIsNotTheBytesKeepsItsOwnRow() {
        let head = "Subject: Backup\r\n\r\n"
        let text = words.joined(separator: "\n")
        // Decoded (quoted-printable), so the bytes differ.
        #expect(Transaction.bodyInRaw(mail(raw: head + words.joined(separator: "=\r\n") + "\r\n", text: text)) == nil)
        // More after the text than line ends: a signature the text does not have.
        #expect(Transaction.bodyInRaw(mail(raw: head + words.joined(separator: "\r\n") + "\r\n-- \r\ncron\r\n", text: text)) == nil)
        // A text with a CR of its own, which no bytes read back as.
        let withCR = words.joined(separator: "\r\n")
        #expect(Transaction.bodyInRaw(mail(raw: head + withCR + "\r\n", text: withCR)) == nil)
        // Too short to be worth a place in the raw mail.
        #expect(Transaction.bodyInRaw(mail(raw: head + "Done.\r\n", text: "Done.")) == nil)
        // No empty line: no body to find.
        #expect(Transaction.bodyInRaw(mail(raw: "Subject: Backup\r\n" + withCR, text: text)) == nil)
    }

    /// Stored over SMTP, the CRLF text is kept once: its row holds only its place, it reads back
    /// with LF line ends, it is found by its words, and deleting it for good takes them out.
    @Test func smtpMailKeptOnceReadsBackFindsAndLeaves() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let text = words.joined(separator: "\n")
            let incoming = mail(raw: "Subject: Backup\r\n\r\n" + words.joined(separator: "\r\n") + "\r\n", text: text)
            let ids = try store.write { try $0.addMail(incoming, to: [.inbox], at: 1_000) }
            let id = try #require(ids.first)
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT raw_start FROM bodies WHERE id = ? AND body = ''", [.integer(id.rawValue)])
            } == [19])
            #expect(try store.library().message(id)?.body == text)
            func found(_ query: String) throws -> [Int64] {
                try store.read { reader throws(StoreError) in
                    try reader.integers("SELECT rowid FROM search WHERE search MATCH ?", [.text(query)])
                }
            }
            #expect(try found("nightly") == [id.rawValue])
            #expect(try store.integrityCheck() == "ok")
            try store.write { transaction in
                _ = try transaction.move([id], from: .inbox, to: .trash)
                _ = try transaction.deletePermanently([id])
            }
            #expect(try found("nightly") == [])
            #expect(try store.read { reader throws(StoreError) in try reader.integers("SELECT count(*) FROM search_docsize", []) } == [0])
        }
    }
}
