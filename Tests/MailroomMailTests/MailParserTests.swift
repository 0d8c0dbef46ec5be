import MailroomMail
import Testing

/// Real GMime on mail as devices and programs send it, broken mail included.
@Suite struct MailParserTests {
    private func parse(_ lines: [String], body: String = "") throws -> ParsedMail {
        let raw = lines.joined(separator: "\r\n") + "\r\n\r\n" + body
        return try #require(MailParser.parse(Array(raw.utf8)))
    }

    @Test(arguments: [
        ("=?ISO-8859-1?Q?Caf=E9_au_lait?=", "Café au lait"),
        ("=?Shift_JIS?B?ie+LY4LMjpGXvw==?=", "会議の資料"),
        ("=?KOI8-R?B?8NLJ18XUIMnaIO3P08vX2Q==?=", "Привет из Москвы"),
        ("=?UTF-8?B?R3LDvMOfZSDwn5GL?=", "Grüße 👋"),
        ("Plain =?utf-8?q?and_encoded?= words", "Plain and encoded words"),
        ("Grüße, sent as raw UTF-8", "Grüße, sent as raw UTF-8"),
    ])
    func subjectsAreDecodedFromTheirCharsets(_ header: String, _ expected: String) throws {
        let mail = try parse(["From: a@example.test", "Subject: \(header)"], body: "x\r\n")
        #expect(mail.subject == expected)
    }

    @Test func addressesDateAndMessageIDAreDecoded() throws {
        let mail = try parse([
            "From: =?UTF-8?Q?J=C3=BCrgen_M=C3=BCller?= <juergen@example.test>",
            "To: Ann <ann@example.test>, bob@example.test",
            "Cc: Team: carol@example.test, dave@example.test;",
            "Date: Tue, 01 Dec 2026 10:30:00 +0100",
            "Message-ID: <scan-0042@scanner.office.test>",
            "Subject: Scan",
        ], body: "Page one.\r\n")
        #expect(mail.from == [Address(name: "Jürgen Müller", address: "juergen@example.test")])
        #expect(mail.sender == "Jürgen Müller")
        #expect(mail.to == [Address(name: "Ann", address: "ann@example.test"), Address(address: "bob@example.test")])
        #expect(mail.cc.map(\.address) == ["carol@example.test", "dave@example.test"])
        #expect(mail.date == 1_796_117_400)
        #expect(mail.messageID == "scan-0042@scanner.office.test")
        #expect(mail.text == "Page one.\r\n")
        #expect(mail.html == nil)
        #expect(mail.attachments.isEmpty)
    }

    @Test func alternativeMailShowsItsPlainTextAndKeepsItsHTML() throws {
        let mail = try parse([
            "From: app@example.test", "Subject: Welcome", "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"b1\"",
        ], body: """
            --b1\r
            Content-Type: text/plain; charset=utf-8\r
            Content-Transfer-Encoding: quoted-printable\r
            \r
            Hello, na=C3=AFve reader.\r
            --b1\r
            Content-Type: text/html; charset=utf-8\r
            \r
            <p>Hello, <b>naïve</b> reader.</p>\r
            --b1--\r

            """)
        // The CRLF before a boundary belongs to the boundary (RFC 2046 5.1.1).
        #expect(mail.text == "Hello, naïve reader.")
        #expect(mail.html?.contains("<b>naïve</b>") == true)
        #expect(mail.attachments.isEmpty)
    }

    @Test func htmlOnlyMailGetsReadableTextWithoutScriptsOrTags() throws {
        let mail = try parse([
            "From: shop@example.test", "Subject: Offer", "Content-Type: text/html; charset=utf-8",
        ], body: """
            <html><head><style>p { color: red }</style><script>alert("x")</script></head>\r
            <body><p>Hello <b>world</b>&nbsp;&amp; friends</p><div>Second&#33; &#x263A;</div>\r
            <SCRIPT type="text/javascript">steal()</SCRIPT><p>Bye</p></body></html>\r

            """)
        #expect(mail.text == "Hello world & friends\n\nSecond! ☺\n\nBye")
        #expect(mail.html?.contains("steal()") == true)
    }

    @Test func aScannersPDFWithoutContentDispositionIsAnAttachmentWithItsDecodedSize() throws {
        let mail = try parse([
            "From: scanner@office.test", "Subject: Scan", "MIME-Version: 1.0",
            "Content-Type: multipart/mixed; boundary=\"scan\"",
        ], body: """
            --scan\r
            Content-Type: text/plain\r
            \r
            Scanned by the copier on floor 2.\r
            --scan\r
            Content-Type: application/pdf; name="scan0042.pdf"\r
            Content-Transfer-Encoding: base64\r
            \r
            JVBERi0xLjQgZmFrZSBzY2FuIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4fICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6\r
            Ozw9Pj9AQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVpbXF1eX2BhYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ent8fX5/gIGCg4SFhoeI\r
            iYqLjI2Oj5CRkpOUlZaXmJmam5ydnp+goaKjpKWmp6ipqqusra6vsLGys7S1tre4ubq7vL2+v8DBwsPExcbHyMnKy8zNzs/Q0dLT1NXW\r
            19jZ2tvc3d7f4OHi4+Tl5ufo6err7O3u7/Dx8vP09fb3+Pn6+/z9/v8=\r
            --scan--\r

            """)
        #expect(mail.text == "Scanned by the copier on floor 2.")
        #expect(mail.attachments.map(\.listed) == [Attachment(name: "scan0042.pdf", type: "application/pdf", size: 275)])
    }

    @Test func inlineImagesKeepTheirContentIDsAndNestedPartsAreFound() throws {
        let mail = try parse([
            "From: news@example.test", "Subject: News", "MIME-Version: 1.0",
            "Content-Type: multipart/mixed; boundary=\"outer\"",
        ], body: """
            --outer\r
            Content-Type: multipart/related; boundary="inner"\r
            \r
            --inner\r
            Content-Type: text/html; charset=us-ascii\r
            \r
            <p><img src="cid:logo@news"> News</p>\r
            --inner\r
            Content-Type: image/png\r
            Content-ID: <logo@news>\r
            Content-Transfer-Encoding: base64\r
            \r
            iVBORw0KGgo=\r
            --inner--\r
            --outer\r
            Content-Type: text/csv; name=figures.csv\r
            Content-Disposition: attachment; filename="figures.csv"\r
            \r
            a,b\r
            1,2\r
            --outer--\r

            """)
        #expect(mail.html?.contains("cid:logo@news") == true)
        #expect(mail.text == "News")
        #expect(mail.attachments.map(\.listed) == [
            Attachment(name: nil, type: "image/png", size: 8, contentID: "logo@news"),
            Attachment(name: "figures.csv", type: "text/csv", size: 8),
        ])
    }

    @Test func brokenMailStillGivesWhatCanBeRead() throws {
        // A boundary that is never closed, and a body of Latin-1 bytes with no charset.
        let broken = try parse([
            "From: old@device.test", "Subject: Broken", "Content-Type: multipart/mixed; boundary=\"never\"",
        ], body: "--never\r\nContent-Type: text/plain\r\n\r\nStill readable.\r\n")
        #expect(broken.text.hasPrefix("Still readable."))
        var latin: [UInt8] = Array("From: a@b.test\r\nSubject: x\r\nContent-Type: text/plain\r\n\r\ncaf".utf8)
        latin += [0xE9, 13, 10]
        let mail = try #require(MailParser.parse(latin))
        #expect(mail.text.hasPrefix("caf"))
    }

    @Test func aHundredKilobyteLineAndJunkAreTakenWithoutACrash() throws {
        let long = String(repeating: "x", count: 100_000)
        let mail = try parse(["From: a@b.test", "Subject: long"], body: long + "\r\n")
        #expect(mail.text.utf8.count == 100_002)
        for junk in [[], [0], Array("\r\n\r\n".utf8), Array(repeating: UInt8(0xFF), count: 1_000)] as [[UInt8]] {
            _ = MailParser.parse(junk)
        }
        let deep = (0..<200).map { "Content-Type: multipart/mixed; boundary=\"b\($0)\"\r\n\r\n--b\($0)\r\n" }.joined()
        _ = MailParser.parse(Array(("From: a@b.test\r\n" + deep).utf8))
    }

    /// Found by `make fuzz`: with a transfer encoding GMime does not know, the size listed was
    /// what was read, not what a download gives.
    @Test func anAttachmentsListedSizeIsWhatItsDownloadHolds() throws {
        let raw = Array(("From: scanner@office.test\r\nSubject: Scan\r\nMIME-Version: 1.0\r\n"
            + "Content-Type: multipart/mixed; boundary=\"scan\"\r\n\r\n--scan\r\nContent-Type: text/plain\r\n\r\n"
            + "Scanned on floor 2.\r\n--scan\r\nContent-Type: application/pdf; name=\"scan.pdf\"\r\n"
            + "Content-Transfer-Encoding: base64\r]\r\nJVBERi0xLjQK\r\n--scan--\r\n").utf8)
        let mail = try #require(MailParser.parse(raw))
        let attachment = try #require(mail.attachments.first)
        #expect(MailParser.attachment(0, of: raw)?.count == attachment.size)
        for file in try CorpusTests.files() {
            let bytes = try CorpusTests.bytes(of: file)
            guard let parsed = MailParser.parse(bytes) else { continue }
            for (index, listed) in parsed.attachments.enumerated() where listed.type != "message/rfc822" {
                #expect(MailParser.attachment(index, of: bytes)?.count == listed.size, "\(file) attachment \(index)")
            }
        }
    }
}
