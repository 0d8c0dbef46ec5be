import Compression
import Glibc
import MailroomCore
@testable import MailroomStore
import TestSupport
import Testing

/// Raw mail kept zstd-compressed: every mail comes back byte for byte, whole or in pieces; old
/// files are packed in the background without losing anything; `check` finds a damaged row.
@Suite struct RawPackingTests {
    static let corpus = String(#filePath).split(separator: "/").dropLast(2).joined(separator: "/")
        .prepending("/") + "/Fixtures/mime/"

    private func mail(_ raw: [UInt8], text: String = "text") -> IncomingMail {
        IncomingMail(
            subject: "Packed", sender: "Scanner", text: text, html: nil,
            envelopeFrom: "scanner@office.test", envelopeTo: ["inbox@example.test"],
            fromHeader: "Scanner <scanner@office.test>", toHeader: "inbox@example.test", ccHeader: "",
            sentAt: 1_700_000_000, messageID: nil, attachments: [], peer: "127.0.0.1", raw: raw)
    }

    private func corpusFiles() throws -> [(name: String, bytes: [UInt8])] {
        let directory = try #require(opendir(Self.corpus), "no corpus at \(Self.corpus)")
        defer { closedir(directory) }
        var files: [(String, [UInt8])] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasSuffix(".eml") else { continue }
            files.append((name, try #require(contents(of: Self.corpus + name))))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// A mail of about `size` bytes of base64 lines, as a scanner's PDF arrives.
    private func largeMail(size: Int, random: inout SeededGenerator) -> [UInt8] {
        var raw = Array("From: scanner@office.test\r\nSubject: Scan\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n".utf8)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        raw.reserveCapacity(size + 80)
        while raw.count < size {
            // Half the lines repeat (a PDF's streams are not all noise).
            if raw.count % 3 == 0 {
                raw += Array("JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSL0ZpbHRlci9GbGF0ZUR".utf8)
            } else {
                for _ in 0..<76 { raw.append(alphabet[Int(random.next() % 64)]) }
            }
            raw += [13, 10]
        }
        return raw
    }

    /// A monitoring alert, as machine-made mail that a dictionary packs well.
    private func alert(_ index: Int) -> [UInt8] {
        Array("""
            Received: from monitor.office.test (monitor.office.test [10.0.0.9])\r
            From: Monitor <monitor@office.test>\r
            To: ops@office.test\r
            Subject: [ALERT] disk usage on host\(index % 40) is \(60 + index % 40)%\r
            Message-ID: <alert-\(index)@monitor.office.test>\r
            Content-Type: text/plain; charset=utf-8\r
            \r
            Host host\(index % 40) reports /var at \(60 + index % 40)% of its capacity.\r
            Threshold: 60%. Check at \(index % 60) minutes past the hour.\r
            -- \r
            Sent by the monitoring service; do not reply.\r

            """.utf8)
    }

    /// `Fixtures/schema-8.sqlite` (six raw messages kept as they came) written to `path`.
    private func copySchema8Fixture(to path: String) throws {
        let fixture = String(#filePath).split(separator: "/").dropLast(2).joined(separator: "/").prepending("/") + "/Fixtures/schema-8.sqlite"
        let bytes = try #require(contents(of: fixture))
        let file = try #require(fopen(path, "wb"))
        _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }

    private func storedBytes(_ store: Store) throws -> Int64 {
        try store.read { reader throws(StoreError) in try reader.integers("SELECT sum(length(bytes)) FROM raw_mail", []) }.first ?? 0
    }

    @Test func everyKindOfMailComesBackByteForByteWholeAndInPieces() throws {
        var random = SeededGenerator(seed: 27)
        var mails = try corpusFiles().map(\.bytes)
        #expect(mails.count >= 10)
        mails.append([])
        mails.append(largeMail(size: 25 << 20, random: &random))
        // Bytes that do not compress at all.
        mails.append((0..<(600 * 1_024)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            for raw in mails {
                let id = try store.write { try $0.addMail(mail(raw), to: [.inbox], at: 1_000) }[0]
                let details = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(id) })
                let back = try store.read { reader throws(StoreError) in try reader.rawMail(details.raw) }
                #expect(back == raw)
                #expect(try store.read { reader throws(StoreError) in try reader.rawMailLength(details.raw) } == raw.count)
                // Pieces: the start, the end, across a frame's edge, one byte, nothing, too far.
                let edge = RawPacking.frameBytes
                var pieces = [(0, min(raw.count, 100)), (max(0, raw.count - 70), min(raw.count, 70)), (raw.count, 0)]
                if raw.count > edge + 10 { pieces += [(edge - 10, 20), (edge, 1), (edge - 1, edge + 2)] }
                for (offset, count) in pieces where offset + count <= raw.count {
                    let piece = try store.read { reader throws(StoreError) in try reader.rawMail(details.raw, at: offset, count: count) }
                    #expect(piece.map { $0 } == Array(raw[offset..<offset + count]), "\(count) bytes at \(offset) of \(raw.count)")
                }
                #expect(try store.read { reader throws(StoreError) in try reader.rawMail(details.raw, at: raw.count, count: 1) } == nil)
                #expect(try store.read { reader throws(StoreError) in try reader.rawMail(details.raw, at: -1, count: 1) } == nil)
            }
            let packed = try store.read { reader throws(StoreError) in
                try reader.integers("SELECT count(*) FROM raw_packing WHERE frames IS NOT NULL", [])
            }
            // The 25 MiB mail and the incompressible one are several frames each.
            #expect(packed == [2])
            #expect(try store.integrityCheck() == "ok")
            // Compressed, all of it takes less room than its bytes (the noise costs a few bytes).
            #expect(try storedBytes(store) < Int64(mails.reduce(0) { $0 + $1.count }) * 9 / 10)
        }
    }

    @Test func aBodyKeptInItsCompressedRawMailIsReadFoundAndTakenOut() throws {
        let text = (1...120).map { "Line \($0) of the nightly report: disk sda healthy, backups rotated." }.joined(separator: "\n")
        let raw = Array("From: cron@host.test\nSubject: Nightly\n\n\(text)\n".utf8)
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            var incoming = mail(raw, text: text)
            #expect(Transaction.bodyInRaw(incoming) != nil)
            incoming.subject = "Nightly"
            let id = try store.write { try $0.addMail(incoming, to: [.inbox], at: 1_000) }[0]
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT count(*) FROM bodies WHERE id = ? AND raw_start IS NOT NULL", [.integer(id.rawValue)])
            } == [1])
            #expect(try store.library().message(id)?.body == text)
            let found = try store.read { reader throws(StoreError) in
                try reader.integers("SELECT rowid FROM search WHERE search MATCH ?", [.text("\"backups rotated\"")])
            }
            #expect(found == [id.rawValue])
            try store.write { transaction in
                _ = try transaction.move([id], from: .inbox, to: .trash)
                _ = try transaction.deletePermanently([id])
            }
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT rowid FROM search WHERE search MATCH ?", [.text("\"backups rotated\"")])
            } == [])
            #expect(try store.read { reader throws(StoreError) in try reader.integers("SELECT count(*) FROM raw_packing", []) } == [0])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func aMailboxGetsADictionaryAndItsMailIsPackedAgainWithIt() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let count = RawDictionaries.trainingThreshold + 100
            let raws = (0..<count).map(alert)
            try store.write { transaction in
                for (index, raw) in raws.enumerated() { _ = try transaction.addMail(mail(raw), to: [.inbox], at: Int64(index)) }
            }
            let before = try storedBytes(store)
            #expect(try store.read { reader throws(StoreError) in try reader.mailboxesDueADictionary() } == [MailboxID.inbox.rawValue])
            // Mail packed ahead of its commit before the dictionary is made goes without one...
            var early = mail(alert(count))
            store.packAhead(&early, routedBy: ["ops@office.test"])
            #expect(early.packed != nil && early.packed?.packing.dictionary == nil)
            #expect(try store.trainRawDictionaries(at: 5_000) == 1)
            #expect(try store.trainRawDictionaries(at: 5_001) == 0, "one dictionary per mailbox")
            // ...and from then on with it.
            var late = mail(alert(count))
            store.packAhead(&late, routedBy: ["ops@office.test"])
            #expect(late.packed?.packing.dictionary != nil)
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT count(*) FROM raw_dictionaries WHERE mailbox = ? AND length(bytes) > 0", [.integer(MailboxID.inbox.rawValue)])
            } == [1])
            var rounds = 0
            while try store.packRaws(limit: 64) > 0 { rounds += 1; #expect(rounds < 100) }
            #expect(rounds == (count + 63) / 64)
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT count(*) FROM raw_packing WHERE dictionary IS NULL", [])
            } == [0])
            let after = try storedBytes(store)
            #expect(after * 2 < before, "\(before) bytes without the dictionary, \(after) with it")
            // New mail for the mailbox is packed with it at once.
            let id = try store.write { try $0.addMail(mail(alert(count)), to: [.inbox], at: 9_000) }[0]
            let details = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(id) })
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT count(*) FROM raw_packing WHERE id = ? AND dictionary IS NOT NULL", [.integer(details.raw)])
            } == [1])
            for (index, raw) in (raws + [alert(count)]).enumerated() {
                #expect(try store.read { reader throws(StoreError) in try reader.rawMail(Int64(index + 1)) } == raw)
            }
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// `schema-8.sqlite` (six raw messages kept as they came, one body kept in its raw mail)
    /// upgraded, packed two at a time, stopped part way (and a batch cut off before its
    /// commit), opened again and packed to the end: every byte is still there.
    @Test func anOldFileIsPackedInBatchesThatSurviveAStopPartWay() throws {
        try withTemporaryPath { path in
            try copySchema8Fixture(to: path)
            var originals: [Int64: [UInt8]] = [:]
            do {
                let database = try Database(path: path)
                let rows = try database.prepare("SELECT id, bytes FROM raw_mail ORDER BY id")
                while try rows.step() { originals[try rows.integer(at: 0)] = try rows.blob(at: 1) }
            }
            #expect(originals.count == 6)
            func packed(_ store: Store) throws -> Int64 {
                try store.read { reader throws(StoreError) in try reader.integers("SELECT count(*) FROM raw_packing", []) }.first ?? -1
            }
            do {
                let store = try Store(path: path)
                defer { store.close() }
                #expect(try packed(store) == 0)
                for (raw, original) in originals {
                    #expect(try store.read { reader throws(StoreError) in try reader.rawMail(raw) } == original)
                }
                #expect(try store.packRaws(limit: 2) == 2)
                #expect(try packed(store) == 2)
                // A batch that never commits (the process killed in its midst) leaves nothing behind.
                struct Killed: Error {}
                #expect(throws: (any Error).self) {
                    try store.write { transaction in
                        let original = try #require(originals[3])
                        let (blob, packing) = try transaction.database.pack(original, dictionary: nil)
                        _ = try transaction.replaceRaw(3, with: blob, packing: packing, unless: "0")
                        throw Killed()
                    }
                }
                #expect(try packed(store) == 2)
                #expect(try store.read { reader throws(StoreError) in try reader.rawMail(3) } == originals[3])
            }
            let store = try Store(path: path)
            defer { store.close() }
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT value FROM counters WHERE name = 'raw_packed_from'", [])
            } == [3])
            var rounds = 0
            while try store.packRaws(limit: 2) > 0 { rounds += 1; #expect(rounds < 10) }
            #expect(try packed(store) == 6)
            for (raw, original) in originals {
                #expect(try store.read { reader throws(StoreError) in try reader.rawMail(raw) } == original)
            }
            let body = try #require(try store.library().message(MessageID(16))?.body)
            #expect(body.utf8.count == 5_551)
            #expect(body.hasSuffix("\n\nSigned off by the night shift."))
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT rowid FROM search WHERE search MATCH ?", [.text("\"night shift\"")])
            } == [16])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func theCheckFindsACompressedRowThatWasDamaged() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let raw = Array(String(repeating: "A line of a report that compresses well.\r\n", count: 200).utf8)
            _ = try store.write { try $0.addMail(mail(raw), to: [.inbox], at: 1_000) }
            _ = try store.write { try $0.addMail(mail(raw + raw), to: [.inbox], at: 1_001) }
            #expect(try store.integrityCheck() == "ok")
            // One byte changed inside the first frame.
            try store.write { transaction in
                var bytes = try #require(try transaction.database.readBlob(table: "raw_mail", column: "bytes", row: 1))
                bytes[bytes.count / 2] ^= 0x5A
                try transaction.run("UPDATE raw_mail SET bytes = ? WHERE id = 1", [.blob(bytes)])
                // The second one's record no longer matches what it holds.
                try transaction.run("UPDATE raw_packing SET sha256 = zeroblob(32) WHERE id = 2", [])
                // And the third one's record says it is longer than any mail, in more frames.
                _ = try transaction.addMail(mail(raw), to: [.inbox], at: 1_002)
                try transaction.run("UPDATE raw_packing SET length = 1 << 40 WHERE id = 3", [])
            }
            let report = try store.integrityCheck()
            #expect(report.contains("raw mail 1 "))
            #expect(report.contains("raw mail 2 decompresses to other bytes than were stored"))
            #expect(report.contains("raw mail 3 does not decompress"))
            let damaged = try? store.read { reader throws(StoreError) in try reader.rawMail(1) }
            #expect(damaged == nil, "a damaged frame is an error, not other bytes")
        }
    }

    @Test func thePackerGoesOnPastRowsItCannotPackAgainAndLeavesThemForTheCheck() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let count = RawDictionaries.trainingThreshold + 20
            try store.write { transaction in
                for index in 0..<count { _ = try transaction.addMail(mail(alert(index)), to: [.inbox], at: Int64(index)) }
            }
            #expect(try store.trainRawDictionaries(at: 5_000) == 1)
            try store.write { transaction in
                // Raw mail 5 no longer decompresses; raw mail 7 decompresses to other bytes than its record says.
                var bytes = try #require(try transaction.database.readBlob(table: "raw_mail", column: "bytes", row: 5))
                bytes[bytes.count / 2] ^= 0x5A
                try transaction.run("UPDATE raw_mail SET bytes = ? WHERE id = 5", [.blob(bytes)])
                try transaction.run("UPDATE raw_packing SET sha256 = zeroblob(32) WHERE id = 7", [])
            }
            var rounds = 0
            while try store.packRaws(limit: 64) > 0 { rounds += 1; #expect(rounds < 100) }
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT id FROM raw_packing WHERE dictionary IS NULL ORDER BY id", [])
            } == [5, 7], "every other row was packed again with the dictionary")
            let report = try store.integrityCheck()
            #expect(report.contains("raw mail 5 does not decompress"))
            #expect(report.contains("raw mail 7 decompresses to other bytes than were stored"))
        }
    }

    /// A mailbox whose dictionary no longer loads still takes mail, packed without one, and the
    /// packer packs nothing again with it; `check` names the dictionary.
    @Test func aDamagedDictionaryCostsRatioNotMail() throws {
        try withTemporaryPath { path in
            let count = RawDictionaries.trainingThreshold + 20
            do {
                let store = try Store(path: path)
                defer { store.close() }
                try store.write { transaction in
                    for index in 0..<count { _ = try transaction.addMail(mail(alert(index)), to: [.inbox], at: Int64(index)) }
                }
                #expect(try store.trainRawDictionaries(at: 5_000) == 1)
                // Its magic number and id are kept; its entropy tables are cut short.
                try store.write { transaction in
                    try transaction.run("UPDATE raw_dictionaries SET bytes = substr(bytes, 1, 12)", [])
                }
            }
            // Opened again, so that no connection holds the dictionary as it was.
            let store = try Store(path: path)
            defer { store.close() }
            var ahead = mail(alert(count))
            store.packAhead(&ahead, routedBy: ["ops@office.test"])
            #expect(ahead.packed != nil && ahead.packed?.packing.dictionary == nil)
            let packedAhead = try store.write { try $0.addMail(ahead, to: [.inbox], at: 9_000) }[0]
            let packedHere = try store.write { try $0.addMail(mail(alert(count + 1)), to: [.inbox], at: 9_001) }[0]
            for id in [packedAhead, packedHere] {
                let details = try #require(try store.read { reader throws(StoreError) in try reader.mailDetails(id) })
                #expect(try store.read { reader throws(StoreError) in
                    try reader.integers("SELECT count(*) FROM raw_packing WHERE id = ? AND dictionary IS NULL", [.integer(details.raw)])
                } == [1])
            }
            var rounds = 0
            while try store.packRaws(limit: 64) > 0 { rounds += 1; #expect(rounds < 100) }
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT count(*) FROM raw_packing WHERE dictionary IS NOT NULL", [])
            } == [0])
            for index in 0..<(count + 2) {
                #expect(try store.read { reader throws(StoreError) in try reader.rawMail(Int64(index + 1)) } == alert(index))
            }
            #expect(try store.integrityCheck() == "raw mail dictionary 1 is damaged")
        }
    }

    @Test func theCheckFindsMailWhoseRecordOfPackingIsGone() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            _ = try store.write { try $0.addMail(mail(alert(1)), to: [.inbox], at: 1_000) }
            #expect(try store.integrityCheck() == "ok")
            try store.write { try $0.run("DELETE FROM raw_packing WHERE id = 1", []) }
            #expect(try store.integrityCheck().contains("raw mail 1 has no record of how it is packed"))
        }
    }

    /// A legacy charset can make several characters of one byte: HTML larger than a frame of
    /// its mail may hold is kept as text, which is read back whatever its size.
    @Test func htmlLargerThanItsMailCouldMakeIsKeptAsText() throws {
        let codec = try #require(ZstdCodec())
        let html = String(repeating: "<p>ௐ</p>", count: 120_000)
        #expect(html.utf8.count > PackedHTML.limit(forMailOf: 100_000))
        #expect(PackedHTML.frame(of: html, mailSize: 100_000, codec: codec) == nil)
        #expect(PackedHTML.stored(html, mailSize: 100_000, codec: codec) == .text(html))
        let frame = try #require(PackedHTML.frame(of: html, mailSize: 400_000, codec: codec))
        #expect(PackedHTML.html(of: frame, codec: codec, limit: PackedHTML.limit(forMailOf: 400_000)) == html)
    }

    /// A raw message from before compression that is larger than a batch stays as it came,
    /// and the rest are packed around it.
    @Test func thePackerLeavesOldMailLargerThanABatchAsItCame() throws {
        try withTemporaryPath { path in
            try copySchema8Fixture(to: path)
            var random = SeededGenerator(seed: 8)
            let large = largeMail(size: PackingBatch.bytes + 4_096, random: &random)
            do {
                let database = try Database(path: path)
                try database.prepare("UPDATE raw_mail SET bytes = ? WHERE id = 4").run([.blob(large)])
            }
            let store = try Store(path: path)
            defer { store.close() }
            var rounds = 0
            while try store.packRaws(limit: 2) > 0 { rounds += 1; #expect(rounds < 10) }
            #expect(try store.read { reader throws(StoreError) in
                try reader.integers("SELECT id FROM raw_mail WHERE id NOT IN (SELECT id FROM raw_packing) ORDER BY id", [])
            } == [4])
            #expect(try store.read { reader throws(StoreError) in try reader.rawMail(4) } == large)
        }
    }
}

private extension String {
    func prepending(_ prefix: String) -> String { prefix + self }
}
