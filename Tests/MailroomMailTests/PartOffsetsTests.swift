import MailroomMail
import Testing

/// The places found at intake: decoded from their raw bytes a piece at a time, each part is
/// exactly what GMime's full parse gives for it, so a download never parses the message again.
@Suite struct PartOffsetsTests {
    /// Piece sizes that cut base64 quanta and quoted-printable escapes in every way.
    static let pieceSizes = [1, 2, 3, 5, 7, 64, 1_000, 1 << 20]

    /// `place`'s bytes of `raw`, decoded `size` bytes of input at a time.
    private func decode(_ raw: [UInt8], _ place: MailroomMail.Attachment.Place, piecesOf size: Int) -> [UInt8] {
        let decoder = PartDecoder(place.encoding)
        var out: [UInt8] = []
        var offset = place.start
        let end = place.start + place.length
        while offset < end {
            let next = min(offset + size, end)
            out += decoder.decode(Array(raw[offset..<next]))
            offset = next
        }
        return out + decoder.finish()
    }

    /// Every attachment of `raw` that has a place decodes to GMime's own bytes and to its listed
    /// size, whatever the pieces; the count of those that have one.
    @discardableResult
    private func expectPlacesMatch(_ raw: [UInt8], _ label: String) throws -> Int {
        let mail = try #require(MailParser.parse(raw), "\(label) parses")
        let places = try #require(MailParser.places(in: raw))
        #expect(places == mail.attachments.map(\.place), "\(label): the lazy lookup finds what intake found")
        var placed = 0
        for (index, attachment) in mail.attachments.enumerated() {
            let full = try #require(MailParser.attachment(index, of: raw))
            guard let place = attachment.place else {
                #expect(attachment.type == "message/rfc822", "\(label): part \(index) (\(attachment.type)) has no place")
                continue
            }
            placed += 1
            #expect(place.start >= 0 && place.start + place.length <= raw.count)
            #expect(full.count == attachment.size, "\(label): part \(index)")
            for size in Self.pieceSizes {
                #expect(decode(raw, place, piecesOf: size) == full, "\(label): part \(index) in pieces of \(size)")
            }
        }
        return placed
    }

    @Test(arguments: try CorpusTests.files())
    func everyPartOfTheCorpusDecodesFromItsPlaceToWhatTheFullParseGives(_ name: String) throws {
        try expectPlacesMatch(try CorpusTests.bytes(of: name), name)
    }

    @Test func theCorpusHasPlacedPartsToCompare() throws {
        var placed = 0
        for name in try CorpusTests.files() { placed += try expectPlacesMatch(try CorpusTests.bytes(of: name), name) }
        #expect(placed >= 3)
    }

    private func message(_ parts: [String], boundary: String = "outer") -> [UInt8] {
        var text = "From: a@example.test\r\nSubject: Parts\r\nMIME-Version: 1.0\r\n"
        text += "Content-Type: multipart/mixed; boundary=\"\(boundary)\"\r\n\r\nPreamble.\r\n"
        for part in parts { text += "--\(boundary)\r\n" + part }
        text += "--\(boundary)--\r\nEpilogue.\r\n"
        return Array(text.utf8)
    }

    @Test func aBase64AttachmentDecodesFromItsPlace() throws {
        let bytes = (0..<3_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }
        let raw = message([
            "Content-Type: text/plain\r\n\r\nSee the file.\r\n",
            "Content-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"b.bin\"\r\n"
                + "Content-Transfer-Encoding: base64\r\n\r\n" + Self.base64Lines(bytes) + "\r\n",
        ])
        try expectPlacesMatch(raw, "base64")
        let mail = try #require(MailParser.parse(raw))
        #expect(mail.attachments.first?.place?.encoding == .base64)
        #expect(try #require(MailParser.attachment(0, of: raw)) == bytes)
    }

    @Test func aQuotedPrintablePartWithSoftBreaksAndEscapesDecodesFromItsPlace() throws {
        let raw = message([
            "Content-Type: text/plain\r\n\r\nBody.\r\n",
            "Content-Type: text/csv; name=\"r.csv\"\r\nContent-Disposition: attachment; filename=\"r.csv\"\r\n"
                + "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
                + "Caf=C3=A9;cr=C3=A8me;=3D;a very long line that goes on and on and is broken =\r\n"
                + "softly;tab=09end;trailing space =20\r\nlast line=\r\n",
        ])
        try expectPlacesMatch(raw, "quoted-printable")
        let mail = try #require(MailParser.parse(raw))
        #expect(mail.attachments.first?.place?.encoding == .quotedPrintable)
        let text = String(decoding: try #require(MailParser.attachment(0, of: raw)), as: UTF8.self)
        #expect(text.hasPrefix("Café;crème;=;a very long line"))
    }

    @Test func aSevenBitPartIsItsBytesAsTheyLie() throws {
        let raw = message([
            "Content-Type: text/plain\r\n\r\nBody.\r\n",
            "Content-Type: text/plain; name=\"notes.txt\"\r\nContent-Disposition: attachment\r\n"
                + "Content-Transfer-Encoding: 7bit\r\n\r\nLine one.\r\nLine two.\r\n",
        ])
        try expectPlacesMatch(raw, "7bit")
        let place = try #require(MailParser.parse(raw)?.attachments.first?.place)
        #expect(place.encoding == .sevenBit)
        #expect(Array(raw[place.start..<(place.start + place.length)]) == Array("Line one.\r\nLine two.".utf8))
    }

    @Test func partsOfNestedMultipartsAndAPartWithoutDispositionHavePlaces() throws {
        let inner = "Content-Type: multipart/alternative; boundary=\"inner\"\r\n\r\n"
            + "--inner\r\nContent-Type: text/plain\r\n\r\nPlain.\r\n"
            + "--inner\r\nContent-Type: text/html\r\n\r\n<p>HTML.</p>\r\n--inner--\r\n"
        let deeper = "Content-Type: multipart/related; boundary=\"deeper\"\r\n\r\n"
            + "--deeper\r\nContent-Type: image/png\r\nContent-ID: <logo@x>\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + Self.base64Lines(Array(repeating: 0x89, count: 500)) + "\r\n"
            + "--deeper\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + Self.base64Lines(Array("%PDF-1.4 no disposition".utf8)) + "\r\n--deeper--\r\n"
        let raw = message([inner, deeper])
        #expect(try expectPlacesMatch(raw, "nested") == 2)
        let mail = try #require(MailParser.parse(raw))
        #expect(mail.attachments.map(\.type) == ["image/png", "application/pdf"])
        #expect(try #require(MailParser.attachment(1, of: raw)) == Array("%PDF-1.4 no disposition".utf8))
    }

    @Test func aForwardedMessageHasNoPlaceAndStillDownloadsWhole() throws {
        let raw = message([
            "Content-Type: text/plain\r\n\r\nForwarding.\r\n",
            "Content-Type: message/rfc822\r\n\r\nFrom: b@example.test\r\nSubject: Inner\r\n\r\nInner body.\r\n",
        ])
        let mail = try #require(MailParser.parse(raw))
        #expect(mail.attachments.map(\.type) == ["message/rfc822"])
        #expect(mail.attachments.first?.place == nil)
        try expectPlacesMatch(raw, "forwarded")
    }

    @Test func aBase64BodyWithBrokenCharactersDecodesAsGMimeDecodesIt() throws {
        let raw = message([
            "Content-Type: text/plain\r\n\r\nBody.\r\n",
            "Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n"
                + "SGVs bG8h\r\n*&^ V29y\r\nbGQ=\r\n==junk\r\n",
        ])
        try expectPlacesMatch(raw, "broken base64")
    }

    private static func base64Lines(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : UInt8(ascii: "="))
            }
            index += 3
            if index % 57 == 0 { out += [13, 10] }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension MailroomMail.Attachment {
    /// The attachment as a list shows it: without where it lies in its raw mail.
    var listed: Self {
        var copy = self
        copy.place = nil
        return copy
    }
}
