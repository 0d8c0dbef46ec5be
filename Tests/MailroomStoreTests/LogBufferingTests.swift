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
            try expectIntact(path, holds: expected, buffersLog: true)
        }
    }

    /// A transaction larger than the writer's page cache: its pages go to the log (held) before
    /// the commit, and reading one of them back writes what is held first.
    private func spillingWriter(_ path: String) throws -> Database {
        let writer = try Database(path: path, buffersLog: true)
        try writer.execute("PRAGMA journal_mode = WAL")
        try writer.execute("CREATE TABLE pieces (id INTEGER PRIMARY KEY, seed INTEGER NOT NULL, bytes BLOB NOT NULL)")
        try writer.execute("PRAGMA cache_size = 10")
        return writer
    }

    private func insert(_ writer: Database, seeds: Range<Int>, expected: inout [Int64]) throws(StoreError) {
        for seed in seeds {
            let bytes = (0..<3_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }
            try writer.prepare("INSERT INTO pieces (seed, bytes) VALUES (?, ?)").run([.integer(Int64(seed)), .blob(bytes)])
            expected = [expected[0] + 1, expected[1] + 3_000, expected[2] + Int64(seed)]
        }
    }

    /// After a reopen: the rows expected, an intact file, and each piece with the bytes it was
    /// written with.
    private func expectIntact(_ path: String, holds expected: [Int64], buffersLog: Bool = false) throws {
        let reopened = try Database(path: path, buffersLog: buffersLog)
        #expect(try total(reopened) == expected)
        let check = try reopened.prepare("PRAGMA integrity_check")
        #expect(try check.step())
        #expect(try check.text(at: 0) == "ok")
        let pieces = try reopened.prepare("SELECT seed, bytes FROM pieces")
        while try pieces.step() {
            let seed = Int(try pieces.integer(at: 0))
            #expect(try pieces.blob(at: 1).enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset &* 31 &+ seed) })
        }
    }

    @Test func bytesAFailedWriteDidNotTakeAreWrittenBeforeTheCommitSucceeds() throws {
        try withTemporaryPath { path in
            var expected: [Int64] = [0, 0, 0]
            do {
                let writer = try spillingWriter(path)
                try writer.transaction { () throws(StoreError) in
                    try insert(writer, seeds: 0..<60, expected: &expected)
                    #expect(writer.heldLogBytes > 0, "the transaction's pages went to the log before its commit")
                    // The disk is full for one write. An update that reads the pages back fails
                    // with SQLITE_FULL, and SQLite undoes that statement alone (it has a statement
                    // journal, for its NOT NULL check): the transaction goes on.
                    writer.failHeldLogWrites(1)
                    #expect(throws: StoreError.self) { try writer.execute("UPDATE pieces SET seed = seed + 0") }
                    #expect(writer.heldLogBytes > 0, "what the failed write did not take is still held")
                    try insert(writer, seeds: 60..<70, expected: &expected)
                }
                #expect(writer.heldLogBytes == 0)
            }
            try expectIntact(path, holds: expected)
        }
    }

    @Test func aRollbackDropsWhatItsTransactionLeftHeld() throws {
        try withTemporaryPath { path in
            var expected: [Int64] = [0, 0, 0]
            do {
                let writer = try spillingWriter(path)
                try writer.transaction { () throws(StoreError) in try insert(writer, seeds: 0..<5, expected: &expected) }
                // An empty log: the rollback reads nothing back from it (which would write what
                // is held), and what the transaction held starts with the log's new header.
                try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                var held = 0
                var ignored = expected
                #expect(throws: StoreError.self) {
                    try writer.transaction { () throws(StoreError) in
                        try insert(writer, seeds: 100..<160, expected: &ignored)
                        held = writer.heldLogBytes
                        throw StoreError.failed("refused")
                    }
                }
                #expect(held > 0)
                #expect(writer.heldLogBytes == 0)
                try writer.transaction { () throws(StoreError) in try insert(writer, seeds: 5..<8, expected: &expected) }
                #expect(try total(writer) == expected)
            }
            try expectIntact(path, holds: expected)
        }
    }
}
