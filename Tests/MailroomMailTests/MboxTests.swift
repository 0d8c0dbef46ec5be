import Digests
import Glibc
@testable import MailroomMail
import TestSupport
import Testing

/// mbox files as tools really write them, read by `MboxScanner`, and `MboxWriter`'s files read
/// back byte for byte.
@Suite struct MboxTests {
    /// Every message in `file`, fed `chunk` bytes at a time.
    private func messages(_ file: String, chunk: Int = 1 << 20) -> [MboxMessage] {
        messages(Array(file.utf8), chunk: chunk)
    }

    private func messages(_ bytes: [UInt8], chunk: Int = 1 << 20) -> [MboxMessage] {
        var scanner = MboxScanner()
        var found: [MboxMessage] = []
        bytes.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                let end = min(start + chunk, all.count)
                scanner.feed(UnsafeRawBufferPointer(rebasing: all[start..<end])) { found.append($0) }
                start = end
            }
        }
        scanner.finish { found.append($0) }
        return found
    }

    private func text(_ message: MboxMessage) -> String { String(decoding: message.raw, as: UTF8.self) }

    @Test func messagesAreSplitAtPostmarksAndTheSeparatingEmptyLineIsNotKept() {
        let found = messages("""
            From ann@example.test Mon Jan  1 09:00:00 2024
            Subject: one

            First body.

            From bob@example.test Tue Jan  2 10:30:00 2024
            Subject: two

            Second body.

            """)
        #expect(found.map(text) == ["Subject: one\n\nFirst body.\n", "Subject: two\n\nSecond body.\n"])
        #expect(found.map(\.sender) == ["ann@example.test", "bob@example.test"])
        #expect(found[1].postmark == "bob@example.test Tue Jan  2 10:30:00 2024")
    }

    @Test func fromLinesInBodiesStayInTheirMessage() {
        // Quoted (mboxrd: one ">" comes off), unquoted in a paragraph, and unquoted after an
        // empty line but without a postmark's time: none of them starts a message.
        let found = messages("""
            From ann@example.test Mon Jan  1 09:00:00 2024
            Subject: quoting

            >From the top, quoted.
            >>From twice quoted.
            Text, then
            From the middle of a paragraph.

            From the start of a paragraph, with no time in it.
            > From is not quoting.

            From bob@example.test Tue Jan  2 10:30:00 2024
            Subject: next

            Body.

            """)
        #expect(found.count == 2)
        #expect(text(found[0]) == """
            Subject: quoting

            From the top, quoted.
            >From twice quoted.
            Text, then
            From the middle of a paragraph.

            From the start of a paragraph, with no time in it.
            > From is not quoting.

            """)
    }

    @Test func aFileWithoutAFinalNewlineKeepsItsLastLine() {
        let found = messages("From a@b.test Mon Jan  1 09:00:00 2024\nSubject: last\n\nNo newline at the end")
        #expect(found.map(text) == ["Subject: last\n\nNo newline at the end"])
    }

    @Test func crlfFilesKeepTheirLineEnds() {
        let file = "From a@b.test Mon Jan  1 09:00:00 2024\r\nSubject: one\r\n\r\nBody\r\n>From quoted\r\n\r\n"
            + "From c@d.test Mon Jan  1 09:00:01 2024\r\nSubject: two\r\n\r\nx\r\n"
        let found = messages(file)
        #expect(found.map(text) == ["Subject: one\r\n\r\nBody\r\nFrom quoted\r\n", "Subject: two\r\n\r\nx\r\n"])
    }

    @Test func aFileWithoutAPostmarkIsOneMessage() {
        let found = messages("Subject: an .eml file\n\nFrom here on, the body.\n")
        #expect(found.map(text) == ["Subject: an .eml file\n\nFrom here on, the body.\n"])
        #expect(found.first?.sender == nil)
        #expect(messages("").isEmpty)
    }

    @Test func theResultDoesNotDependOnHowTheFileIsChunked() {
        let file = Array("""
            From ann@example.test Mon Jan  1 09:00:00 2024
            Subject: one

            >From quoted

            From bob@example.test Tue Jan  2 10:30:00 2024
            Subject: two

            Body
            """.utf8)
        let whole = messages(file)
        for chunk in [1, 2, 3, 7, 64] {
            #expect(messages(file, chunk: chunk) == whole, "fed \(chunk) bytes at a time")
        }
    }

    @Test func writtenMessagesReadBackByteForByte() {
        var random = SeededGenerator(seed: 41)
        let pieces = ["From ", ">From ", ">>From ", "text", " ", "\n", "\r\n", "\n\n", "From x Mon Jan  1 09:00:00 2024\n", "é"]
        for _ in 0..<500 {
            let count = random.below(4) + 1
            var originals: [[UInt8]] = []
            for _ in 0..<count {
                var raw = Array("Subject: random\n\n".utf8)
                for _ in 0..<random.below(20) { raw += Array(random.pick(pieces).utf8) }
                // A message as it arrives always ends in a line end (SMTP's DATA ends in CRLF).
                if raw.last != 10 { raw += [10] }
                originals.append(raw)
            }
            let file = originals.flatMap { MboxWriter.entry($0, sender: "a@b.test", date: 1_700_000_000) }
            let read = messages(file, chunk: random.below(50) + 1)
            #expect(read.map(\.raw) == originals)
        }
    }

    @Test func theWriterQuotesFromLinesAndWritesAnAsctimePostmark() {
        let entry = MboxWriter.entry(Array("Subject: s\r\n\r\nFrom me\r\n>From you\r\n".utf8), sender: "ann@example.test", date: 0)
        #expect(String(decoding: entry, as: UTF8.self)
            == "From ann@example.test Thu Jan  1 00:00:00 1970\r\nSubject: s\r\n\r\n>From me\r\n>>From you\r\n\r\n")
        let unnamed = MboxWriter.entry(Array("Subject: s\n\nbody".utf8), sender: nil, date: 1_733_045_400)
        #expect(String(decoding: unnamed, as: UTF8.self) == "From MAILER-DAEMON Sun Dec  1 09:30:00 2024\nSubject: s\n\nbody\n\n")
    }

    @Test func maildirFlagsAreReadFromTheName() {
        #expect(Maildir.flags(in: "1700000000.M1P2.host:2,FS") == "FS")
        #expect(Maildir.flags(in: "1700000000.M1P2.host!2,S") == "S")
        #expect(Maildir.flags(in: "1700000000.M1P2.host") == "")
    }

    @Test func theImportKeyIsTheSHA256OfTheBytes() {
        let hex = MailDigest.sha256(Array("abc".utf8)).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// The message as `mailroom import` reads it back from `MboxWriter`'s entry for it.
    private func roundTrip(_ raw: [UInt8]) -> [UInt8] {
        messages(MboxWriter.entry(raw, sender: "a@b.test", date: 0)).first?.raw ?? []
    }

    @Test(arguments: [
        "Subject: no final newline\n\nLast line",
        "Subject: crlf, none at the end\r\n\r\nLast line",
        "Subject: one\n\nBody\n",
        "Subject: quoted\n\nFrom me\n>From you\n>>From them\nend\n",
        "Subject: empty lines at the end\n\nBody\n\n\n",
    ])
    func aMessageKeepsItsImportKeyThroughAnExportAndThroughAnImportByURL(_ text: String) {
        let raw = Array(text.utf8)
        // Once read back from an export (or as a running Mailroom is sent it), and twice.
        let once = roundTrip(raw)
        #expect(ImportKey.keys(for: once).key == ImportKey.keys(for: raw).key)
        #expect(ImportKey.keys(for: roundTrip(once)).key == ImportKey.keys(for: raw).key)
    }

    @Test func theImportKeyLeavesOutFinalLineEndsAndFromQuotingButNothingElse() {
        let key = { (text: String) in ImportKey.keys(for: Array(text.utf8)).key }
        #expect(key("Subject: s\n\nBody") == MailDigest.sha256(Array("Subject: s\n\nBody".utf8)))
        #expect(key("Subject: s\n\nBody\n") == key("Subject: s\n\nBody"))
        #expect(key("Subject: s\r\n\r\nBody\r\n\r\n") == key("Subject: s\r\n\r\nBody"))
        // mboxrd, mboxo and no quoting at all give one key.
        #expect(key("Subject: s\n\n>>From a\n>From b\n") == key("Subject: s\n\nFrom a\nFrom b\n"))
        #expect(key("Subject: s\n\n>From a\n") == key("Subject: s\n\nFrom a\n"))
        // Line ends inside, a `>` before anything but `From `, and other text still count.
        #expect(key("Subject: s\n\nBody\n") != key("Subject: s\r\n\r\nBody\r\n"))
        #expect(key("Subject: s\n\n> From a\n") != key("Subject: s\n\n From a\n"))
        #expect(key("Subject: s\n\n>Fromage\n") != key("Subject: s\n\nFromage\n"))
        #expect(key("Subject: s\n\nA >From b\n") != key("Subject: s\n\nA From b\n"))
        #expect(key("Subject: s\n\n>> x\n>From b\n") == key("Subject: s\n\n>> x\nFrom b\n"))
        #expect(key("Subject: s\n\nBody\n\nmore") != key("Subject: s\n\nBody\nmore"))
    }

    @Test func theFormerKeysAreTheBytesAsReadAndLessTheirFinalLineEnd() {
        let raw = Array("Subject: s\r\n\r\nBody\r\n".utf8)
        // It ends in one line end and quotes nothing: the key is its bytes less their line end.
        #expect(ImportKey.keys(for: raw).former == [MailDigest.sha256(raw)])
        let quoted = Array("Subject: s\n\n>From a\n".utf8)
        #expect(ImportKey.keys(for: quoted).former == [MailDigest.sha256(quoted), MailDigest.sha256(Array(quoted.dropLast()))])
        let bare = Array("Subject: s\n\nBody".utf8)
        #expect(ImportKey.keys(for: bare).former.isEmpty)
    }

    @Test(arguments: [
        ("", MailFile.empty),
        ("From a@b.test Mon Jan  1 09:00:00 2024\nSubject: s\n\nx\n", .mbox),
        ("Subject: an .eml\r\nFrom: Ann <a@b.test>\r\n\r\nBody\r\n", .message),
        ("Received: from x\n\tby y; Mon, 1 Jan 2024 09:00:00 +0000\nX-Thing: 1\n\nBody\n", .message),
        ("Subject: only a header, no newline", .message),
        ("\u{89}PNG\r\n\u{1A}\n\0\0\0\rIHDR", .other),
        ("Shopping list: eggs, milk\nbread\n", .other),
        ("Note: call Ann\nTodo: reply\n\nLater.\n", .other),
        ("\nSubject: after an empty line\n", .other),
        (" Subject: folded first\n", .other),
    ])
    func aFileIsToldFromItsStart(_ text: String, _ expected: MailFile) {
        let bytes = Array(text.utf8)
        #expect(MailFile(start: bytes[...], isWhole: true) == expected)
    }

    @Test func aHeaderCutOffByTheEndOfWhatIsSeenIsStillAMessage() {
        let bytes = Array(("Subject: long\nX-Long: " + String(repeating: "a", count: 100)).utf8)
        #expect(MailFile(start: bytes[...], isWhole: false) == .message)
        #expect(MailFile(start: Array("Subj".utf8)[...], isWhole: false) == .other)
    }

    @Test func aPostedMessageIsWrittenAsMailGMimeCanRead() throws {
        let raw = PostedMail.message(subject: "Café menu", author: "Zoë", body: "Line one\nLine two é", date: 1_700_000_000, id: 7)
        let parsed = try #require(MailParser.parse(raw))
        #expect(parsed.subject == "Café menu")
        #expect(parsed.from.first?.name == "Zoë")
        #expect(parsed.text.contains("Line two é"))
        #expect(parsed.date == 1_700_000_000)
        #expect(parsed.messageID == "posted-7@mailroom.invalid")
    }
}
