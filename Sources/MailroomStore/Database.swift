import Compression
import MailroomCore
private import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// One SQLite connection, which owns a `sqlite3*`.
///
/// Opened with NOMUTEX: SQLite does no locking of its own, so callers serialize access.
final class Database {
    private let handle: OpaquePointer
    let path: String
    /// Whether this connection's log goes through `LogBuffering` (the writer's).
    let buffersLog: Bool
    /// Statements compiled once per connection and reused, by their SQL.
    private var compiled: [String: Statement] = [:]
    /// This connection's zstd contexts and the raw-mail dictionaries it has loaded, by id (a
    /// dictionary never changes once stored); see RawPacking.swift.
    private(set) lazy var codec: ZstdCodec? = ZstdCodec()
    var dictionaries: [Int64: ZstdDictionary] = [:]
    /// On the writer: the routing table (mailbox names, addresses) as last committed, kept
    /// between messages, since every message is routed and the table seldom changes.
    var keptRouting: Routing?
    /// Whether this connection keeps `keptRouting` (only the writer does: readers' snapshots
    /// age while they sit in the pool).
    private(set) var keepsRouting = false
    /// Set once the open transaction changes a mailbox's id or name or the addresses (by
    /// `keepRouting`'s triggers): until it ends, routing reads the tables, and when it ends
    /// `routingEpoch` grows.
    var routingChanged = false
    /// How many transactions on this connection changed the routing table (see `Store.packAhead`).
    private(set) var routingEpoch = 0

    /// The search-index rows of mail stored one message after another (`Transaction.addMail`),
    /// each with the text its body is indexed by: written before any other statement runs on
    /// this connection (`writeHeldIndexRows`), so nothing ever sees the index without them.
    var heldIndexRows: [(id: Int64, body: String)] = []
    /// While true (`keepingIndexRowsHeld`), the statements that run touch neither search index,
    /// and held rows stay held.
    private var keepsIndexRowsHeld = false
    /// A ROLLBACK failed and may have left its transaction open.
    private var rollbackFailed = false
    /// Whether held rows have turned off the trigger that indexes a new body (`indexed_in_bulk`).
    var indexTriggerHeld = false
    /// Counters taken by mail stored one message after another (`Transaction.takeHeldCounter`),
    /// by name, with their next values: written, like held index rows, before any other
    /// statement runs, so each run of mail updates a counter once instead of once a message.
    var heldCounters: [String: Int64] = [:]
    /// The top rank of each mailbox that mail went to in the same run (`Transaction.newHeldMessagePlace`):
    /// forgotten, not written, when the run ends, as the rows themselves hold it.
    var heldTops: [MailboxID: Int64] = [:]
    /// Why held rows could not be written: every later statement fails with it until the
    /// transaction is rolled back, so a commit never keeps mail its index lacks.
    private var heldRowsFailure: StoreError?

    /// Opens (or creates) the file at `path`; reading it may still fail later, as with a file
    /// that is not a database. `buffersLog` (the writer's connection, which syncs every commit)
    /// holds each commit's log frames and writes them together (`LogBuffering`).
    init(path: String, buffersLog: Bool = false) throws(StoreError) {
        _ = Self.isConfigured
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let vfs = buffersLog && LogBuffering.isRegistered ? LogBuffering.name : nil
        let code = sqlite3_open_v2(path, &opened, flags, vfs)
        guard let opened else {
            throw .cannotOpen(path: path, reason: "SQLite could not allocate a connection")
        }
        guard code == SQLITE_OK else {
            let reason = Self.reason(opened)
            sqlite3_close_v2(opened)
            throw .cannotOpen(path: path, reason: reason)
        }
        handle = opened
        self.path = path
        self.buffersLog = vfs != nil
        // Extended codes tell a foreign key failure (787) from other constraint failures.
        try check(sqlite3_extended_result_codes(handle, 1), sql: nil)
        // The search index's triggers call it (schema 7), so every connection that writes needs it.
        try check(SearchText.register(on: handle), sql: nil)
        // And the text of a body kept in its raw mail, which may be compressed (schema 13).
        try check(Self.registerRawText(on: handle, for: self), sql: nil)
        // And the text of a mail's HTML, which may be compressed (schema 14).
        try check(Self.registerHTMLText(on: handle, for: self), sql: nil)
    }

    /// Whether SQLite took Mailroom's process-wide settings, made once before anything in the
    /// process initializes it (a connection's opening, the log VFS's registration): without
    /// memory counting, connections on different threads share no lock to allocate.
    static let isConfigured = mailroom_sqlite_count_no_memory() == SQLITE_OK

    /// Keeps the routing table on this connection from now on. Triggers of the connection's own
    /// (TEMP) report every change to a mailbox's id or name and to the addresses, whichever
    /// statement makes it: no write site has to remember to.
    func keepRouting() throws(StoreError) {
        let code = sqlite3_create_function_v2(
            handle, "routing_changed", 0, SQLITE_UTF8, Unmanaged.passUnretained(self).toOpaque(),
            { context, _, _ in
                if let database = sqlite3_user_data(context) {
                    Unmanaged<Database>.fromOpaque(database).takeUnretainedValue().routingChanged = true
                }
                sqlite3_result_null(context)
            },
            nil, nil, nil)
        try check(code, sql: nil)
        for (name, event) in [
            ("mailbox_added", "INSERT ON mailboxes"), ("mailbox_renamed", "UPDATE OF id, name ON mailboxes"),
            ("mailbox_removed", "DELETE ON mailboxes"), ("address_added", "INSERT ON addresses"),
            ("address_changed", "UPDATE ON addresses"), ("address_removed", "DELETE ON addresses"),
        ] {
            try execute("CREATE TEMP TRIGGER routing_\(name) AFTER \(event) BEGIN SELECT routing_changed(); END")
        }
        keepsRouting = true
    }

    deinit {
        // close_v2 never fails: with statements still alive it closes once they are finalized.
        sqlite3_close_v2(handle)
    }

    /// The one funnel for SQLite result codes: success passes through, anything else throws.
    @discardableResult
    func check(_ code: Int32, sql: String?) throws(StoreError) -> Int32 {
        switch code {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
            return code
        default:
            throw .sqlite(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
    }

    /// Copies the whole database into a new file at `destination` with SQLite's online backup,
    /// in one read transaction, so the copy is the database as of one commit, while other
    /// connections (and processes) go on writing. The copy is synced before this returns.
    ///
    /// With `afterStep`, the copy is made `stepPages` pages at a time and `afterStep` runs
    /// between steps (to flush and pace the copy); the read transaction is this connection's
    /// own, held from the first step to the last, so no commit elsewhere restarts the copy.
    func backup(to destination: String, stepPages: Int32 = Store.backupStepPages, afterStep: (() -> Void)? = nil) throws(StoreError) {
        var target: OpaquePointer?
        let opened = sqlite3_open_v2(destination, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard let target else { throw .cannotOpen(path: destination, reason: "SQLite could not allocate a connection") }
        defer { sqlite3_close_v2(target) }
        guard opened == SQLITE_OK else { throw .cannotOpen(path: destination, reason: Self.reason(target)) }
        sqlite3_busy_timeout(target, 5_000)
        guard let copy = sqlite3_backup_init(target, "main", handle, "main") else {
            throw .sqlite(code: sqlite3_errcode(target), message: Self.reason(target), sql: nil)
        }
        var code: Int32
        var busy = 0
        if afterStep != nil {
            // The snapshot every step reads: begun here, ended once the copy is done.
            code = sqlite3_exec(handle, "BEGIN; SELECT count(*) FROM sqlite_schema", nil, nil, nil)
            guard code == SQLITE_OK else {
                sqlite3_backup_finish(copy)
                throw .sqlite(code: code, message: Self.reason(handle), sql: "BEGIN")
            }
        }
        defer { if afterStep != nil { sqlite3_exec(handle, "COMMIT", nil, nil, nil) } }
        repeat {
            // Busy only while another connection holds a lock the step needs; each connection's
            // busy timeout has waited 5 s for it before that is said, so a few tries are plenty.
            code = sqlite3_backup_step(copy, afterStep == nil ? -1 : stepPages)
            if code == SQLITE_BUSY || code == SQLITE_LOCKED { busy += 1 }
            if code == SQLITE_OK, let afterStep { afterStep() }
        } while (code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED) && busy < 12
        let finished = sqlite3_backup_finish(copy)
        guard code == SQLITE_DONE, finished == SQLITE_OK else {
            throw .sqlite(code: code == SQLITE_DONE ? finished : code, message: Self.reason(target), sql: nil)
        }
        // The copy is a plain rollback-journal file, synced, that any SQLite can open.
        guard sqlite3_exec(target, "PRAGMA journal_mode = DELETE", nil, nil, nil) == SQLITE_OK else {
            throw .sqlite(code: sqlite3_errcode(target), message: Self.reason(target), sql: "PRAGMA journal_mode = DELETE")
        }
    }

    /// How many bytes of this connection's log are held unwritten (`LogBuffering`), for tests.
    var heldLogBytes: Int { LogBuffering.heldBytes(of: handle) }

    /// For tests: the next `count` writes of held log bytes fail as on a full disk.
    func failHeldLogWrites(_ count: Int) { LogBuffering.failHeldWrites(of: handle, count: count) }

    /// Runs one or more statements that bind nothing and return nothing the caller needs.
    func execute(_ sql: String) throws(StoreError) {
        try writeHeldIndexRows()
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql: sql)
    }

    /// Runs one statement that binds nothing, compiled once per connection: for the statements
    /// a request runs every time (BEGIN, COMMIT, SAVEPOINT), which `execute` would parse anew.
    func run(_ sql: String) throws(StoreError) {
        try cached(sql).run([])
    }

    /// Compiles one statement. `persistent` tells SQLite the statement will be reused many times.
    func prepare(_ sql: String, persistent: Bool = false) throws(StoreError) -> Statement {
        try writeHeldIndexRows()
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        try check(sqlite3_prepare_v3(handle, sql, -1, flags, &statement, nil), sql: sql)
        guard let statement else { preconditionFailure("no SQL statement in \(sql)") }
        return Statement(handle: statement, database: self, sql: sql)
    }

    /// A statement compiled on first use and kept for the life of the connection.
    func cached(_ sql: String) throws(StoreError) -> Statement {
        try writeHeldIndexRows()
        if let statement = compiled[sql] { return statement }
        let statement = try prepare(sql, persistent: true)
        compiled[sql] = statement
        return statement
    }

    /// Rows changed since the connection opened, triggers included.
    var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// Writes `bytes` into a blob that already has their length (made with `zeroblob`), in
    /// pieces, so SQLite never holds a second copy of a large one.
    /// With `at`, from that offset of the blob.
    func writeBlob(table: String, column: String, row: Int64, _ bytes: [UInt8], at start: Int = 0) throws(StoreError) {
        var blob: OpaquePointer?
        try check(sqlite3_blob_open(handle, "main", table, column, row, 1, &blob), sql: nil)
        defer { sqlite3_blob_close(blob) }
        let piece = 1 << 20
        var offset = 0
        while offset < bytes.count {
            let count = min(piece, bytes.count - offset)
            let code = bytes.withUnsafeBytes { sqlite3_blob_write(blob, $0.baseAddress! + offset, Int32(count), Int32(start + offset)) }
            try check(code, sql: nil)
            offset += count
        }
    }

    /// Reads a whole blob, or nil when the row does not exist.
    func readBlob(table: String, column: String, row: Int64) throws(StoreError) -> [UInt8]? {
        try withBlob(table: table, column: column, row: row) { blob throws(StoreError) in try blob.read(0..<blob.count) }
    }

    /// The length of a blob, or nil when the row does not exist.
    func blobLength(table: String, column: String, row: Int64) throws(StoreError) -> Int? {
        try withBlob(table: table, column: column, row: row) { blob throws(StoreError) in blob.count }
    }

    /// Reads `count` bytes of a blob from `offset`, or nil when the row does not exist or the
    /// blob ends before them.
    func readBlob(table: String, column: String, row: Int64, at offset: Int, count: Int) throws(StoreError) -> [UInt8]? {
        try withBlob(table: table, column: column, row: row) { blob throws(StoreError) -> [UInt8]? in
            guard offset >= 0, count >= 0, offset <= blob.count - count else { return nil }
            return try blob.read(offset..<offset + count)
        } ?? nil
    }

    /// Runs `body` with the blob open for reading (as `BlobReader`); nil when the row does not exist.
    func withBlob<Result>(table: String, column: String, row: Int64,
                          _ body: (BlobReader) throws(StoreError) -> Result) throws(StoreError) -> Result? {
        var blob: OpaquePointer?
        guard sqlite3_blob_open(handle, "main", table, column, row, 0, &blob) == SQLITE_OK, let blob else {
            sqlite3_blob_close(blob)
            return nil
        }
        defer { sqlite3_blob_close(blob) }
        return try body(BlobReader(blob: blob, database: self))
    }

    /// An open blob: its length, and its bytes read in place from any offset.
    struct BlobReader {
        fileprivate let blob: OpaquePointer
        fileprivate let database: Database

        var count: Int { Int(sqlite3_blob_bytes(blob)) }

        /// The bytes in `range`; throws when the blob ends before them.
        func read(_ range: Range<Int>) throws(StoreError) -> [UInt8] {
            guard range.lowerBound >= 0, range.upperBound <= count, let start = Int32(exactly: range.lowerBound),
                  let length = Int32(exactly: range.count) else {
                throw .invalidData("a blob of \(count) bytes read from \(range.lowerBound) to \(range.upperBound)")
            }
            var bytes = [UInt8](repeating: 0, count: range.count)
            guard !bytes.isEmpty else { return bytes }
            let code = bytes.withUnsafeMutableBytes { sqlite3_blob_read(blob, $0.baseAddress, length, start) }
            try database.check(code, sql: nil)
            return bytes
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid the last INSERT gave its row.
    var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Forgets the compiled statements, so the connection can close.
    func forgetStatements() {
        compiled = [:]
    }

    /// Whether a transaction is open on this connection.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in one write transaction: all of it is committed, or none of it.
    func transaction<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        // A ROLLBACK that failed (see `rollback`) left its transaction open: ended now, or
        // every later BEGIN would fail with it.
        if rollbackFailed {
            if isInTransaction { try execute("ROLLBACK") }
            rollbackFailed = false
        }
        try run("BEGIN IMMEDIATE")
        defer { endRoutingChange() }
        do throws(StoreError) {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// Writes the held search-index rows, and turns the body trigger back on, unless
    /// `keepingIndexRowsHeld` is running. The mail of one commit is so indexed together, after
    /// all its rows: the index keeps its new words in memory until a statement that may need
    /// undoing part-way (one that fires triggers, as storing a message does) makes it write them
    /// out, so indexing each message at once would write a segment per message.
    func writeHeldIndexRows() throws(StoreError) {
        guard !keepsIndexRowsHeld else { return }
        if let heldRowsFailure { throw heldRowsFailure }
        guard indexTriggerHeld || !heldIndexRows.isEmpty || !heldCounters.isEmpty || !heldTops.isEmpty else { return }
        let rows = heldIndexRows
        heldIndexRows = []
        let triggerHeld = indexTriggerHeld
        indexTriggerHeld = false
        let counters = heldCounters
        heldCounters = [:]
        heldTops = [:]
        do throws(StoreError) {
            for (name, next) in counters {
                try cached("UPDATE counters SET value = ? WHERE name = ?").run([.integer(next), .text(name)])
            }
            for row in rows { try indexMail(row.id, body: row.body) }
            if triggerHeld { try cached(Self.indexTrigger(held: false)).run([]) }
        } catch {
            heldRowsFailure = error
            throw error
        }
    }

    /// Runs `body`, whose statements touch neither search index, without writing held rows first:
    /// storing mail (which holds its own rows) and the rows that go with it.
    func keepingIndexRowsHeld<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        let keeping = keepsIndexRowsHeld
        keepsIndexRowsHeld = true
        defer { keepsIndexRowsHeld = keeping }
        return try body()
    }

    /// Turns the trigger that indexes a new body off (held) or on.
    static func indexTrigger(held: Bool) -> String {
        "UPDATE counters SET value = \(held ? 1 : 0) WHERE name = 'indexed_in_bulk'"
    }

    /// After a transaction that changed the routing table, committed or not: the kept table is
    /// read again when next needed.
    private func endRoutingChange() {
        guard routingChanged else { return }
        routingChanged = false
        keptRouting = nil
        routingEpoch += 1
    }

    private func rollback() {
        // What was held goes with the transaction.
        heldIndexRows = []
        indexTriggerHeld = false
        heldCounters = [:]
        heldTops = [:]
        heldRowsFailure = nil
        defer { if buffersLog { LogBuffering.dropHeld(of: handle) } }
        // SQLite rolls back by itself after some errors (a full disk, an I/O error).
        guard isInTransaction else { return }
        // A failed ROLLBACK has nothing to add to the error that led here, which the caller
        // throws; the next transaction tries it again first.
        do throws(StoreError) { try execute("ROLLBACK") } catch { rollbackFailed = true }
    }

    /// `PRAGMA user_version`: the schema version Mailroom wrote into the file.
    var userVersion: Int32 {
        get throws(StoreError) {
            let statement = try prepare("PRAGMA user_version")
            guard try statement.step() else { return 0 }
            let version = try statement.integer(at: 0)
            guard let narrow = Int32(exactly: version) else {
                throw .invalidData("the schema version \(version) is out of range")
            }
            return narrow
        }
    }

    func setUserVersion(_ version: Int32) throws(StoreError) {
        try execute("PRAGMA user_version = \(version)")
    }

    /// Checks that the file is a database this connection can write, turning SQLite's codes into
    /// sentences a person can act on.
    func checkWritable() throws(StoreError) {
        do throws(StoreError) {
            try execute("BEGIN IMMEDIATE; COMMIT")
        } catch {
            guard case .sqlite(let code, _, _) = error else { throw error }
            switch code & 0xFF {
            case SQLITE_BUSY, SQLITE_LOCKED: throw .locked(path: path)
            case SQLITE_NOTADB: throw .cannotOpen(path: path, reason: "it is not a SQLite database.")
            case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH:
                // SQLite's words, not errno's: by now errno may describe a side file such as the journal.
                throw .cannotOpen(path: path, reason: String(cString: sqlite3_errmsg(handle)) + ".")
            default: throw error
            }
        }
    }

    /// How long a statement waits for another connection's lock before failing with SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int32) throws(StoreError) {
        try check(sqlite3_busy_timeout(handle, milliseconds), sql: nil)
    }

    /// Why the last call failed, in the operating system's words when it gave any.
    private static func reason(_ handle: OpaquePointer) -> String {
        let number = sqlite3_system_errno(handle)
        guard number != 0, let text = strerror(number) else { return String(cString: sqlite3_errmsg(handle)) + "." }
        return String(cString: text) + "."
    }
}
