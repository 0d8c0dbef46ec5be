@testable import MailroomStore
import Testing

/// The writer's log frames are held until SQLite syncs the log: every commit is still read at
/// once by other connections, whatever its size, and all of it is there after a reopen.
@Suite struct LogBufferingTests {
    private func total(_ database: Database) throws -> [Int64] {
        let statement = try database.prepare("SELECT count(*), coalesce(sum(length(bytes)), 0), coalesce(sum(seed), 0) FROM pieces")
        #expect(try statement.step())
        return [try statement.integer(at: 0), try statement.integer(at: 1), try statement.integer(at: 2)]
    }

    @Test func everyCommitIsReadAtOnceByAnotherConnectionAndAfterAReopen() throws {
        #expect(LogBuffering.isRegistered)
        try withTemporaryPath { path in
            var expected: [Int64] = [0, 0, 0]
            do {
                let writer = try Database(path: path, buffersLog: true)
                try writer.execute("PRAGMA journal_mode = WAL")
                try writer.execute("PRAGMA synchronous = FULL")
                try writer.execute("CREATE TABLE pieces (id INTEGER PRIMARY KEY, seed INTEGER NOT NULL, bytes BLOB NOT NULL)")
                let reader = try Database(path: path)
                // Small commits, and commits larger than what the log holds back (1 MiB).
                for (round, size) in [100, 5_000, 3 << 20, 40, 1 << 20, 70_000, 2_500_000, 1].enumerated() {
                    try writer.transaction { () throws(StoreError) in
                        for copy in 0..<3 {
                            let seed = Int64(round * 10 + copy)
                            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
                            try writer.prepare("INSERT INTO pieces (seed, bytes) VALUES (?, ?)").run([.integer(seed), .blob(bytes)])
                            expected = [expected[0] + 1, expected[1] + Int64(size), expected[2] + seed]
                        }
                    }
                    #expect(try total(reader) == expected, "after commit \(round)")
                }
                // A transaction rolled back leaves nothing behind.
                #expect(throws: StoreError.self) {
                    try writer.transaction { () throws(StoreError) in
                        try writer.prepare("INSERT INTO pieces (seed, bytes) VALUES (1, zeroblob(2000000))").run([])
                        throw StoreError.failed("refused")
                    }
                }
                #expect(try total(reader) == expected)
            }
            let reopened = try Database(path: path, buffersLog: true)
            #expect(try total(reopened) == expected)
            let check = try reopened.prepare("PRAGMA integrity_check")
            #expect(try check.step())
            #expect(try check.text(at: 0) == "ok")
            // Each piece still holds the bytes it was written with.
            let pieces = try reopened.prepare("SELECT seed, bytes FROM pieces")
            while try pieces.step() {
                let seed = Int(try pieces.integer(at: 0))
                let bytes = try pieces.blob(at: 1)
                #expect(bytes.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset &* 31 &+ seed) })
            }
        }
    }
}
