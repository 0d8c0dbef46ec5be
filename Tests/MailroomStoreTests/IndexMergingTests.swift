import MailroomCore
@testable import MailroomStore
import Testing

/// The search indexes are merged in small steps to one segment a level, finding exactly what
/// they found before, and without a new revision.
@Suite struct IndexMergingTests {
    /// How many segments each level of `index` holds, read from its structure record (FTS5's
    /// row 10: a 4-byte cookie, then varints: levels, segments, write counter, and for each level
    /// its merge state, its segment count and each segment's id and first and last page).
    static func segmentsPerLevel(_ index: String, in store: Store) throws -> [Int] {
        let record = try store.read { reader throws(StoreError) in
            let statement = try reader.database.prepare("SELECT block FROM \(index)_data WHERE id = 10")
            return try statement.step() ? try statement.blob(at: 0) : []
        }
        var place = 4
        func varint() -> Int {
            var value = 0
            for byte in 0..<9 where place < record.count {
                let next = Int(record[place])
                place += 1
                if byte == 8 { return value << 8 | next }
                value = value << 7 | next & 0x7F
                if next & 0x80 == 0 { return value }
            }
            return value
        }
        let levels = varint()
        _ = (varint(), varint())
        return (0..<levels).map { _ in
            _ = varint()
            let segments = varint()
            for _ in 0..<segments { _ = (varint(), varint(), varint()) }
            return segments
        }
    }

    @Test func manySmallCommitsAreMergedToOneSegmentALevelAndFindTheSame() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            // A commit each: FTS5 writes a segment for each and merges them four at a time.
            for index in 0..<45 {
                let words = index % 3 == 0 ? "paper jam in tray \(index)" : "toner low on floor \(index % 5)"
                _ = try SubstringSearchTests.post("Printer \(index): \(words)", body: "請求書のスキャン \(index)", to: store)
            }
            let before = try Self.segmentsPerLevel("search", in: store)
            #expect(before.contains { $0 >= 2 }, "\(before)")
            let queries = ["jam", "\"paper jam\"", "toner -floor", "スキャン", "printer"]
            let found = try queries.map { try SearchAddressTests.found($0, in: store) }
            let revision = store.revision

            var steps = 0
            while try store.mergeSearchIndexes(pages: 1) {
                steps += 1
                try #require(steps < 1_000)
            }
            #expect(steps >= 1)
            #expect(store.revision == revision)
            for index in ["search", "search_cjk"] {
                let after = try Self.segmentsPerLevel(index, in: store)
                #expect(after.allSatisfy { $0 <= 1 }, "\(index): \(after)")
                try store.write { transaction in try transaction.run("INSERT INTO \(index) (\(index)) VALUES ('integrity-check')", []) }
            }
            #expect(try queries.map { try SearchAddressTests.found($0, in: store) } == found)
            #expect(found[0].count == 15 && found[3].count == 45)
            #expect(try store.mergeSearchIndexes() == false)
        }
    }
}
