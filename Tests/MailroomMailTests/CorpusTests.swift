import Glibc
import MailroomMail
import Testing

/// `Tests/Fixtures/mime`, written by scripts/make-mime-corpus.py with Python's email package,
/// plus files broken by hand: each is read as a person would expect to see it.
@Suite struct CorpusTests {
    static let folder = "/" + String(#filePath).split(separator: "/").dropLast(2).joined(separator: "/") + "/Fixtures/mime/"

    private func mail(_ name: String) throws -> ParsedMail {
        try #require(MailParser.parse(try Self.bytes(of: name)))
    }

    /// The corpus's file names.
    static func files() throws -> [String] {
        guard let directory = opendir(folder) else { throw CorpusError.missing }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".eml") { names.append(name) }
        }
        return names.sorted()
    }

    static func bytes(of name: String) throws -> [UInt8] {
        let path = Self.folder + name
        guard let file = fopen(path, "rb") else {
            Issue.record("the fixture \(path) is missing")
            throw CorpusError.missing
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let read = fread(&chunk, 1, chunk.count, file)
            if read <= 0 { break }
            bytes += chunk[..<read]
        }
        return bytes
    }

    enum CorpusError: Error { case missing }

    private func trimmed(_ text: String) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    @Test(arguments: [
        ("subject-utf-8.eml", "Grüße aus Köln 👋"),
        ("subject-iso-8859-1.eml", "Café crème à emporter"),
        ("subject-shift-jis.eml", "会議の資料を送ります"),
        ("subject-koi8-r.eml", "Привет из Москвы"),
        ("8bit-headers.eml", "Grüße ohne Kodierung"),
    ])
    func subjectsInEveryCharsetReadRight(_ name: String, _ subject: String) throws {
        #expect(try mail(name).subject == subject)
    }

    @Test func rawUTF8InAFromHeaderIsTheSendersName() throws {
        #expect(try mail("8bit-headers.eml").sender == "Jürgen")
    }

    @Test func alternativeShowsThePlainTextAndKeepsTheHTML() throws {
        let alternative = try mail("alternative.eml")
        #expect(trimmed(alternative.text) == "Hello, plain reader.")
        #expect(alternative.html?.contains("<b>HTML</b>") == true)
        #expect(alternative.attachments.isEmpty)
    }

    @Test func htmlOnlyMailReadsAsTextWithoutItsScript() throws {
        let invoice = try mail("html-only.eml")
        #expect(invoice.text == "Invoice\n\nTotal: 12 €")
        #expect(invoice.sender == "Billing")
    }

    @Test func nestedAttachmentsAreListedWithTheirDecodedSizes() throws {
        let scan = try mail("nested-mixed.eml")
        #expect(trimmed(scan.text) == "Two files are attached.")
        #expect(scan.attachments.map(\.type) == ["application/pdf", "message/rfc822"])
        #expect(scan.attachments.first?.listed == Attachment(name: "scan-0001.pdf", type: "application/pdf", size: 2_000))
    }

    @Test func inlineImagesKeepTheContentIDTheHTMLUses() throws {
        let news = try mail("inline-cid.eml")
        #expect(trimmed(news.text) == "The logo is inline.")
        #expect(news.html?.contains("cid:logo@news.test") == true)
        #expect(news.attachments.map(\.listed) == [Attachment(name: nil, type: "image/png", size: 72, contentID: "logo@news.test")])
    }

    @Test func brokenMailStillShowsWhatItCan() throws {
        #expect(try mail("broken-boundary.eml").text.hasPrefix("The boundary is never closed."))
        #expect(try mail("missing-charset.eml").text.hasPrefix("Caf"))
        #expect(try mail("long-line.eml").text.utf8.count >= 100_000)
        let scanner = try mail("scanner-pdf-no-disposition.eml")
        #expect(trimmed(scanner.text) == "Scanned on floor 2.")
        #expect(scanner.attachments.map(\.listed) == [Attachment(name: "scan0042.pdf", type: "application/pdf", size: 9)])
    }
}
