import Foundation
import HTTP
import MailroomCore
@testable import MailroomStore
import MailroomWeb
import Synchronization
import Testing

/// Attachments and raw mail as downloads: read from where the parse at intake found them, large
/// ones streamed a piece at a time, and no more than 16 large ones at once.
@Suite struct DownloadTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// 2 MiB that do not repeat, and a mail that carries them in base64.
    static let content: [UInt8] = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
    static let mail: [UInt8] = Array("""
        From: Scanner <scanner@office.test>\r
        Subject: Big scan\r
        MIME-Version: 1.0\r
        Content-Type: multipart/mixed; boundary="b1"\r
        \r
        --b1\r
        Content-Type: text/plain\r
        \r
        Attached.\r
        --b1\r
        Content-Type: application/pdf\r
        Content-Transfer-Encoding: base64\r
        \r
        \(Data(content).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed]))\r
        --b1--\r

        """.utf8)

    /// The whole body of `response`, made piece by piece as a connection would ask for it.
    private func collected(_ response: Response) -> [UInt8]? {
        guard let stream = response.stream else { return response.body }
        var bytes: [UInt8] = []
        while bytes.count < stream.length {
            guard let piece = stream.next(atMost: 256 * 1_024), !piece.isEmpty else { return nil }
            bytes += piece
        }
        return bytes
    }

    @Test func aLargePartIsStreamedFromItsPlaceWithItsLengthKnownAhead() throws {
        let inbox = try TestApp("Posted")
        let id = try #require(try inbox.app.receiveMail(Self.mail, from: "s@example.test", to: ["inbox@mailroom.test"], peer: "127.0.0.1").first)
        let part = try inbox.get("/messages/\(id)/parts/0")
        #expect(part.code == 200)
        #expect(part.stream?.length == Self.content.count)
        #expect(part.body.isEmpty)
        #expect(part.headers["Content-Disposition"]?.hasPrefix("attachment") == true)
        #expect(collected(part) == Self.content)

        let raw = try inbox.get("/messages/\(id)/raw")
        #expect(raw.stream?.length == Self.mail.count)
        #expect(collected(raw) == Self.mail)
    }

    /// Damage found part way through a large download ends it short (its head is long gone)
    /// and is reported to the server's error output, with the raw message and the byte.
    @Test func aDownloadCutShortByDamagedMailIsReported() throws {
        let inbox = try TestApp("Posted")
        let reports = Mutex<[String]>([])
        inbox.app.reportProblems { line in reports.withLock { $0.append(line) } }
        let id = try #require(try inbox.app.receiveMail(Self.mail, from: "s@example.test", to: ["inbox@mailroom.test"], peer: "127.0.0.1").first)
        let raw = try #require(try inbox.app.store.read { reader throws(StoreError) in try reader.mailDetails(id) }).raw
        // One byte changed in the last of its compressed frames.
        var bytes = try #require(try inbox.app.store.read { reader throws(StoreError) in
            try reader.database.readBlob(table: "raw_mail", column: "bytes", row: raw)
        })
        bytes[bytes.count - 100] ^= 0x5A
        try inbox.app.store.write { transaction in
            try transaction.run("UPDATE raw_mail SET bytes = ? WHERE id = ?", [.blob(bytes), .integer(raw)])
        }
        let download = try inbox.get("/messages/\(id)/raw")
        let stream = try #require(download.stream)
        #expect(stream.length == Self.mail.count)
        var received: [UInt8] = []
        while let piece = stream.next(atMost: 256 * 1_024), !piece.isEmpty { received += piece }
        #expect(received.count < Self.mail.count)
        #expect(received == Array(Self.mail.prefix(received.count)), "what was sent is the mail's own bytes")
        let said = reports.withLock { $0 }
        #expect(said.count == 1)
        #expect(said.first?.hasPrefix("a download of raw mail \(raw) stopped at byte \(received.count) of \(Self.mail.count): ") == true,
                "\(said)")
        #expect(said.first?.contains("does not decompress") == true, "\(said)")
    }

    @Test func moreThanSixteenLargeDownloadsAtOnceAreToldToComeBackAndASlotFreesWithItsDownload() throws {
        let inbox = try TestApp("Posted")
        let id = try #require(try inbox.app.receiveMail(Self.mail, from: "s@example.test", to: ["inbox@mailroom.test"], peer: "127.0.0.1").first)
        var held = try (0..<16).map { _ in try inbox.get("/messages/\(id)/parts/0") }
        #expect(held.allSatisfy { $0.code == 200 && $0.stream != nil })
        let refused = try inbox.get("/messages/\(id)/raw")
        #expect(refused.code == 503)
        #expect(refused.headers["Retry-After"] == "1")
        #expect(refused.html.contains("Too many large downloads"))
        // A HEAD sends no body, so it needs no slot.
        #expect(try inbox.head("/messages/\(id)/raw").code == 200)
        held.removeLast()
        let next = try inbox.get("/messages/\(id)/raw")
        #expect(next.code == 200)
        #expect(collected(next) == Self.mail)
        held.removeAll()
    }

    /// The schema-8 fixture's message 11 carries `scan.pdf` ("%PDF-1.4 fixture" in base64),
    /// stored before places were kept: it downloads through one parse, which records its place.
    @Test func aPartStoredBeforePlacesWereKeptDownloadsAndItsPlaceIsRecorded() throws {
        let path = "/tmp/mailroom-downloads-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
        try Data(contentsOf: Self.fixtures.appendingPathComponent("schema-8.sqlite")).write(to: URL(fileURLWithPath: path))
        let store = try Store(path: path)
        defer { store.close() }
        let app = MailroomApp(store: store, publicFolder: "/nonexistent", now: { 1_800_000_000 }, security: .off)
        func get(_ target: String) throws -> Response { app.respond(to: try Request(method: .get, target: target)) }
        func place() throws -> StoredAttachment.Place? {
            try store.read { reader throws(StoreError) in try reader.mailDetails(MessageID(11)) }?.attachments.first?.place
        }
        #expect(try place() == nil)
        let first = try get("/messages/11/parts/0")
        #expect(first.code == 200)
        #expect(first.body == Array("%PDF-1.4 fixture".utf8))

        let deadline = Date().addingTimeInterval(10)
        while try place() == nil && Date() < deadline { usleep(10_000) }
        let recorded = try #require(try place())
        #expect(recorded.encoding == "base64")
        let again = try get("/messages/11/parts/0")
        #expect(again.body == Array("%PDF-1.4 fixture".utf8))
        #expect(try get("/messages/11/raw").body.count == 627)
    }
}
