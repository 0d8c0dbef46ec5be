import Glibc
import MailroomCore
@testable import MailroomStore
import Testing

/// Where attachments lie in their raw mail (schema 9), and raw mail read a piece at a time.
@Suite struct PartStorageTests {
    private func mail(raw: [UInt8], places: [StoredAttachment.Place?]) -> IncomingMail {
        IncomingMail(
            subject: "Scan", sender: "Scanner", text: "See the scan.", html: nil, envelopeFrom: "scanner@office.test",
            envelopeTo: ["inbox@example.test"], fromHeader: "scanner@office.test", toHeader: "inbox@example.test",
            ccHeader: "", sentAt: nil, messageID: nil,
            attachments: places.enumerated().map { index, place in
                StoredAttachment(part: index, name: "scan-\(index).pdf", type: "application/pdf", size: 10, contentID: nil, place: place)
            },
            peer: "127.0.0.1", raw: raw)
    }

    /// A copy of a fixture to open (opening migrates the file in place).
    private func withCopy(of name: String, _ body: (String) throws -> Void) throws {
        let fixture = MigrationTests.fixtures + name
        let bytes = try #require(contents(of: fixture), "the fixture is missing at \(fixture)")
        try withTemporaryPath { path in
            let file = try #require(fopen(path, "wb"))
            _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            try body(path)
        }
    }

    @Test func anAttachmentsPlaceIsKeptWithItAndReadBack() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let place = StoredAttachment.Place(start: 120, length: 5_000, encoding: "base64")
            let ids = try store.write { try $0.addMail(mail(raw: Array(repeating: 65, count: 6_000), places: [place, nil]), to: [], at: 1) }
            let details = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(ids[0]) })
            #expect(details.attachments.map(\.place) == [place, nil])
        }
    }

    @Test func rawMailIsReadAPieceAtATimeAndNothingPastItsEnd() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            // Larger than what is bound as a value: written into its blob in place.
            let raw = (0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let ids = try store.write { try $0.addMail(mail(raw: raw, places: []), to: [], at: 1) }
            let id = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(ids[0]) }).raw
            #expect(try store.read { reader throws(StoreError) in try reader.rawMailLength(id) } == raw.count)
            var read: [UInt8] = []
            while read.count < raw.count {
                let count = min(65_536, raw.count - read.count)
                read += try #require(try store.read { reader throws(StoreError) in try reader.rawMail(id, at: read.count, count: count) })
            }
            #expect(read == raw)
            #expect(try store.read { reader throws(StoreError) in try reader.rawMail(id, at: raw.count - 10, count: 11) } == nil)
            #expect(try store.read { reader throws(StoreError) in try reader.rawMail(id, at: raw.count, count: 0) } == [])

            // Deleted for good: the next piece is not there.
            try store.write { try $0.move(ids, from: .inbox, to: .trash) }
            try store.write { _ = try $0.emptyTrash() }
            #expect(try store.read { reader throws(StoreError) in try reader.rawMail(id, at: 0, count: 10) } == nil)
            #expect(try store.read { reader throws(StoreError) in try reader.rawMailLength(id) } == nil)
        }
    }

    @Test func placesFoundLaterAreRecordedWithoutANewRevisionAndNeverReplaceOnesKept() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let kept = StoredAttachment.Place(start: 10, length: 20, encoding: "7bit")
            let ids = try store.write { try $0.addMail(mail(raw: Array(repeating: 65, count: 100), places: [nil, kept]), to: [], at: 1) }
            let raw = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(ids[0]) }).raw
            let revision = store.revision
            let found = StoredAttachment.Place(start: 40, length: 30, encoding: "quoted-printable")
            try store.recordPlaces(ofRaw: raw, [0: found, 1: found])
            #expect(store.revision == revision)
            let details = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(ids[0]) })
            #expect(details.attachments.map(\.place) == [found, kept])
        }
    }

    /// `schema-9.sqlite` is `schema-8.sqlite` upgraded by the schema-9 build (the commit that
    /// added this test), which then took "Schema nine scan" (message 17, raw mail 7) over SMTP:
    /// `nine.pdf` in base64 and `prices.csv` in quoted-printable, each kept with its place. The
    /// schema-8 scan (raw mail 1) has none: nothing downloaded it.
    @Test func aSchemaNineFileOpensWithItsAttachmentsPlaces() throws {
        try withCopy(of: "schema-9.sqlite") { path in
            #expect(try Database(path: path).userVersion == 9)
            let store = try Store(path: path)
            defer { store.close() }
            // Schema 10 adds search tables and a count of listed attachments, not places.
            #expect(store.migratedFrom == 9)
            let details = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(MessageID(17)) })
            #expect(details.raw == 7)
            #expect(details.attachments.map(\.name) == ["nine.pdf", "prices.csv"])
            #expect(details.attachments.map(\.place) == [
                StoredAttachment.Place(start: 561, length: 30, encoding: "base64"),
                StoredAttachment.Place(start: 796, length: 26, encoding: "quoted-printable"),
            ])
            let pdf = try store.read { reader throws(StoreError) in try reader.rawMail(7, at: 561, count: 30) }
            #expect(pdf == Array("JVBERi0xLjQgc2NoZW1hIG5pbmU=\r\n".utf8))
            let csv = try store.read { reader throws(StoreError) in try reader.rawMail(7, at: 796, count: 26) }
            #expect(csv == Array("Caf=C3=A9;cr=C3=A8me;=3D\r\n".utf8))
            let older = try store.read { reader throws(StoreError) in try reader.integers("SELECT count(*) FROM attachments WHERE content_start IS NULL", []) }
            #expect(older == [1])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// The schema-8 fixture's scanned PDF (raw mail 1, part 0) was stored before places were
    /// kept: after the upgrade it has none, until one is recorded.
    @Test func anAttachmentFromASchemaEightFileHasNoPlaceUntilOneIsRecorded() throws {
        try withCopy(of: "schema-8.sqlite") { path in
            let store = try Store(path: path)
            defer { store.close() }
            let rows = try store.read { reader throws(StoreError) in
                try reader.integers("SELECT count(*) FROM attachments WHERE raw = 1 AND part = 0 AND content_start IS NULL", [])
            }
            #expect(rows == [1])
            try store.recordPlaces(ofRaw: 1, [0: StoredAttachment.Place(start: 500, length: 24, encoding: "base64")])
            let starts = try store.read { reader throws(StoreError) in
                try reader.integers("SELECT content_start FROM attachments WHERE raw = 1 AND part = 0", [])
            }
            #expect(starts == [500])
            #expect(try store.integrityCheck() == "ok")
        }
    }
}
