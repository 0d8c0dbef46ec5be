import Compression
import Dispatch
import Glibc
import MailroomCore
import Synchronization

/// Mailroom's SQLite file. Changes go through one writer connection, in transactions
/// (`write`); pages are read on other connections (`read`), which never wait for a write:
/// in WAL mode each read sees the last commit.
///
/// `@unchecked Sendable`: the writer is used under its own lock, and each reader connection by
/// one thread at a time (taken from the pool and given back).
public final class Store: @unchecked Sendable {
    public let path: String
    /// True when this open created the file's tables: a brand-new database.
    public let isNew: Bool
    /// The schema version the file had before this open brought it up to date, when it did.
    public let migratedFrom: Int32?
    /// Where the file was copied before that migration, when it was.
    public let migrationBackup: String?
    private var lock: FileLock?
    // The connections live outside the locks (they are not Sendable, so a Mutex could not hand
    // them out); each lock guards the property named after it.
    private var writer: Database?
    private let writerLock = Mutex(())
    private var readers: [Database] = []
    private let readersLock = Mutex(())
    /// Background checkpoints (see `checkpointInBackground`): their timer and connection, used
    /// only on `checkpointQueue`.
    private var checkpointTimer: DispatchSourceTimer?
    /// The packer's place among raw mail to compress again with its mailbox's dictionary
    /// (Store+Packing.swift); from the start after each new dictionary, and at each launch.
    let repackedThrough = Atomic<Int64>(0)
    /// The full-text indexes were told to merge any level of two segments (`mergeSearchIndexes`).
    let indexesMergeInPairs = Atomic<Bool>(false)
    private var checkpointer: Database?
    private let checkpointQueue = DispatchQueue(label: "mailroom.checkpoint")
    private let isOpen = Atomic<Bool>(true)
    /// The revision of the last commit, raised only once it is durable: a read that starts after
    /// loading it sees at least that commit.
    private let committed: Atomic<Int64>
    /// Told each new revision once it is durable, in order, under the writer's lock.
    private let commitObservers = Mutex<[@Sendable (Int64) -> Void]>([])
    /// The writer's `routingEpoch`, published once each transaction has ended: a routing table
    /// read on a reader after loading it is at least as new as that transaction.
    let routingEpoch = Atomic<Int>(0)
    /// The routing table `packAhead` chooses dictionaries by, read on a reader, with the epoch
    /// loaded before it was read.
    let packingRouting = Mutex<(epoch: Int, routing: Routing)?>(nil)
    /// Grows once each new dictionary is committed (`trainRawDictionaries`).
    let dictionaryEpoch = Atomic<Int>(0)
    /// The dictionary `packAhead` packs each mailbox's mail with (nil: none yet), read on a
    /// reader, with the epoch loaded before it was read.
    let packingDictionaries = Mutex<(epoch: Int, ids: [Int64: Int64?])>((0, [:]))

    /// Opens or creates the file, takes its lock for as long as this store is open, and brings
    /// its schema up to date.
    ///
    /// Fails at once, with `.locked`, when another Mailroom has the file open. With
    /// `backingUpBeforeMigrating`, a file that needs a migration is first copied, as it is, to
    /// `PATH.schema-N.backup` (see `migrationBackup`).
    public init(path: String, backingUpBeforeMigrating: Bool = false) throws(StoreError) {
        self.path = path
        lock = try FileLock(path: path)
        let database = try Database(path: path, buffersLog: true)
        try database.setBusyTimeout(milliseconds: 5_000)
        try database.checkWritable()
        // Checked before anything is written, so a newer Mailroom's file is left exactly as it was.
        let pending = try Schema.pendingMigrations(in: database)
        isNew = pending.first?.version == 1
        migratedFrom = pending.isEmpty || isNew ? nil : (pending.first?.version).map { $0 - 1 }
        if backingUpBeforeMigrating, let old = migratedFrom {
            var backup = "\(path).schema-\(old).backup"
            var number = 1
            while access(backup, F_OK) == 0 {
                number += 1
                backup = "\(path).schema-\(old).backup-\(number)"
            }
            try database.backup(to: backup)
            migrationBackup = backup
        } else {
            migrationBackup = nil
        }
        try database.execute("PRAGMA journal_mode = WAL")
        // FULL syncs the log at every commit: a committed change survives power loss. It is
        // also what makes the writer's held log (`LogBuffering`) safe: at a lower level SQLite
        // shows a commit to other connections before it syncs, and so writes, its frames.
        try database.execute("PRAGMA synchronous = FULL")
        try database.execute("PRAGMA foreign_keys = ON")
        try Schema.apply(pending, to: database)
        committed = Atomic(try Reader(database: database).revision())
        try database.keepRouting()
        writer = database
    }

    /// Lets the writer keep up to `megabytes` of the file's pages in memory: for loading a big
    /// file at once (a benchmark's seed), where the indexes' pages would otherwise be read and
    /// written again for every few rows.
    public func setWriterCache(megabytes: Int) throws(StoreError) {
        try writerLock.withLock { () throws(StoreError) in
            guard let writer else { throw .closed }
            try writer.execute("PRAGMA cache_size = -\(megabytes * 1_024)")
        }
    }

    /// From now on, copies what commits wrote to the log back into the file on a thread of its
    /// own, every `interval` seconds, instead of in whichever commit crosses SQLite's threshold:
    /// a commit then never waits for a checkpoint (after a 100,000-message delete, one takes a
    /// second). A PASSIVE checkpoint never blocks readers or the writer.
    public func checkpointInBackground(every interval: Double = 1) throws(StoreError) {
        let connection = try Database(path: path)
        try connection.setBusyTimeout(milliseconds: 5_000)
        try writerLock.withLock { () throws(StoreError) in
            guard let writer else { throw .closed }
            try writer.execute("PRAGMA wal_autocheckpoint = 0")
            // Once the log has been copied back, it is cut down to this size when reused.
            try writer.execute("PRAGMA journal_size_limit = \(64 << 20)")
        }
        let timer = DispatchSource.makeTimerSource(queue: checkpointQueue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in
            // A failed checkpoint leaves the log as it was; the next one tries again.
            try? self?.checkpointer?.execute("PRAGMA wal_checkpoint(PASSIVE)")
        }
        checkpointQueue.sync { checkpointer = connection }
        checkpointTimer = timer
        timer.resume()
    }

    /// Writes with a rollback journal instead of the log until `finishLoading` (or the next
    /// open): for loading a lot at once into a file nobody else has open (`mailroom import`).
    /// Each commit is still durable, but what it adds is written once, straight into the file,
    /// where the log would take it twice (into the log, then back into the file).
    public func startLoading() throws(StoreError) {
        try writerLock.withLock { () throws(StoreError) in
            guard let writer else { throw .closed }
            try writer.execute("PRAGMA journal_mode = TRUNCATE")
        }
    }

    /// Back to the log (WAL), as every other writer of the file expects.
    public func finishLoading() throws(StoreError) {
        try writerLock.withLock { () throws(StoreError) in
            guard let writer else { throw .closed }
            try writer.execute("PRAGMA journal_mode = WAL")
        }
    }

    /// Calls `observer` with every revision committed from now on, as soon as it is durable, on
    /// the committing thread (while the next commit waits: it must be quick).
    public func observeCommits(_ observer: @escaping @Sendable (Int64) -> Void) {
        commitObservers.withLock { $0.append(observer) }
    }

    /// The revision of the last durable commit (see `Transaction.stamp`).
    public var revision: Int64 { committed.load(ordering: .acquiring) }

    /// The schema version this build writes.
    public static var schemaVersion: Int32 { Schema.currentVersion }

    /// Runs `body` in one durable write transaction, which makes a new revision: all of it is
    /// committed, or (when it throws) none.
    @discardableResult
    public func write<Result>(_ body: (Transaction) throws -> Result) throws -> Result {
        try writerLock.withLock { () throws -> Result in
            guard let database = writer else { throw StoreError.closed }
            var made: Int64?
            defer { routingEpoch.store(database.routingEpoch, ordering: .releasing) }
            let result = try database.transaction { () throws(StoreError) -> Result in
                let transaction = Transaction(database: database, stamp: try Reader(database: database).revision() + 1)
                let before = database.totalChanges
                let result: Result
                do {
                    result = try body(transaction)
                } catch let error as StoreError {
                    throw error
                } catch {
                    throw .failed(String(describing: error))
                }
                // A transaction that changed nothing makes no new revision, so pages stay cached.
                if database.totalChanges != before {
                    try transaction.run("UPDATE counters SET value = ? WHERE name = 'revision'", [.integer(transaction.stamp)])
                    made = transaction.stamp
                }
                return result
            }
            if let made {
                committed.store(made, ordering: .releasing)
                // Still under the writer's lock, so observers hear the revisions in order.
                for observer in commitObservers.withLock({ $0 }) { observer(made) }
            }
            return result
        }
    }

    /// Runs `body` in one durable write transaction that makes no new revision: for what was
    /// worked out from kept bytes and shows on no page (where attachments lie in their raw
    /// mail), so no cached page goes stale and no live list is told.
    func writeDerived(_ body: (Transaction) throws(StoreError) -> Void) throws(StoreError) {
        try writerLock.withLock { () throws(StoreError) in
            guard let database = writer else { throw .closed }
            defer { routingEpoch.store(database.routingEpoch, ordering: .releasing) }
            try database.transaction { () throws(StoreError) in
                try body(Transaction(database: database, stamp: try Reader(database: database).revision()))
            }
        }
    }

    /// Runs `body` on a reader connection inside one read transaction: what it reads is one
    /// commit's state, whatever the writer does meanwhile.
    public func read<Result>(_ body: (Reader) throws(StoreError) -> Result) throws(StoreError) -> Result {
        guard isOpen.load(ordering: .acquiring) else { throw .closed }
        let database = try takeReader()
        defer { readersLock.withLock { readers.append(database) } }
        try database.run("BEGIN")
        defer { try? database.run("COMMIT") }
        return try body(Reader(database: database))
    }

    private func takeReader() throws(StoreError) -> Database {
        if let pooled = readersLock.withLock({ readers.popLast() }) { return pooled }
        let database = try Database(path: path)
        try database.setBusyTimeout(milliseconds: 5_000)
        return database
    }

    /// The whole file as the in-memory model (reads every row: for tests and small files).
    public func library() throws(StoreError) -> Library {
        try read { reader throws(StoreError) in
            let summaries = try reader.mailboxes()
            var mailboxes: [Mailbox] = []
            for summary in summaries {
                mailboxes.append(Mailbox(id: summary.id, name: summary.name, messages: try reader.allMessages(of: summary.id)))
            }
            let next = try reader.count("SELECT value FROM counters WHERE name = ?", [.text(Counter.nextMessageID)])
            let nextMailbox = try reader.count("SELECT value FROM counters WHERE name = ?", [.text(Counter.nextMailboxID)])
            return Library(mailboxes: mailboxes, nextMessageID: Int64(next), nextMailboxID: Int64(nextMailbox))
        }
    }

    /// The setting `name`, made by `make` and stored the first time it is asked for.
    public func setting(_ name: String, orMake make: () -> String) throws(StoreError) -> String {
        if let value = try read({ reader throws(StoreError) in try reader.setting(name) }) { return value }
        let value = make()
        do {
            try write { transaction in
                try transaction.run("INSERT INTO settings (name, value) VALUES (?, ?)", [.text(name), .text(value)])
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .failed(String(describing: error))
        }
        return value
    }

    /// Copies the live database at `path` to `destination` (which must not exist yet) as of one
    /// commit, while a running Mailroom goes on serving and committing: every change committed
    /// before this began is in the copy. Opens no lock of Mailroom's and migrates nothing; a file
    /// from a newer Mailroom is copied as it is.
    ///
    /// With `afterStep`, the copy is made `stepPages` pages at a time, and `afterStep`
    /// runs between steps (a backup beside a serving Mailroom flushes and paces itself there).
    /// Pages a paced backup copies per step: 4 MiB of 4 KiB pages (see `Pacer`).
    public static let backupStepPages: Int32 = 1_024

    public static func backup(
        path: String, to destination: String, stepPages: Int32 = backupStepPages, afterStep: (() -> Void)? = nil
    ) throws(StoreError) {
        guard access(path, F_OK) == 0 else { throw .cannotOpen(path: path, reason: "there is no such file") }
        guard access(destination, F_OK) != 0 else {
            throw .cannotOpen(path: destination, reason: "it exists already; Mailroom never writes over a file")
        }
        let source = try Database(path: path)
        try source.setBusyTimeout(milliseconds: 5_000)
        try source.backup(to: destination, stepPages: stepPages, afterStep: afterStep)
    }

    /// `integrityCheck` on the file at `path` without opening it as Mailroom does: no lock, no
    /// migration, so it runs beside a Mailroom that is serving the file. A file of another
    /// schema version is refused.
    public static func check(path: String) throws(StoreError) -> String {
        guard access(path, F_OK) == 0 else { throw .cannotOpen(path: path, reason: "there is no such file") }
        let database = try Database(path: path)
        try database.setBusyTimeout(milliseconds: 5_000)
        let version = try database.userVersion
        guard version == Schema.currentVersion else {
            if version > Schema.currentVersion {
                throw .newerSchema(path: path, found: version, known: Schema.currentVersion)
            }
            throw .cannotOpen(path: path, reason: "its schema is version \(version); open it with Mailroom once to bring it to \(Schema.currentVersion)")
        }
        try database.run("BEGIN")
        defer { try? database.run("COMMIT") }
        return try Reader(database: database).problems()
    }

    /// Reads every message of the mailbox called `name` (its name in any case, or its slug) from
    /// the bottom up, as of one commit, handing each to `each`; like `check`, beside a running
    /// Mailroom, without its lock. The mailbox's name as shown and how many messages there were.
    public static func export(path: String, mailbox name: String, _ each: (ExportedMessage) throws -> Void) throws -> (name: String, count: Int) {
        guard access(path, F_OK) == 0 else { throw StoreError.cannotOpen(path: path, reason: "there is no such file") }
        let database = try Database(path: path)
        try database.setBusyTimeout(milliseconds: 5_000)
        let version = try database.userVersion
        guard version == Schema.currentVersion else {
            throw StoreError.cannotOpen(path: path, reason: "its schema is version \(version); this Mailroom reads \(Schema.currentVersion)")
        }
        try database.run("BEGIN")
        defer { try? database.run("COMMIT") }
        let reader = Reader(database: database)
        let wanted = name.lowercased()
        let all = try reader.mailboxes()
        guard let box = all.first(where: { $0.name.lowercased() == wanted })
            ?? MailboxID(slug: Substring(name)).flatMap({ id in all.first { $0.id == id } })
        else {
            throw StoreError.refused(.invalidName("There is no mailbox “\(name)”; there are: \(all.map(\.name).joined(separator: ", ")).")) 
        }
        var count = 0
        var after: Int64?
        while true {
            let page = try reader.exportPage(of: box.id, after: after, limit: 256)
            for message in page { try each(message) }
            count += page.count
            guard let last = page.last else { break }
            after = last.rank
        }
        return (box.name, count)
    }

    /// SQLite's own check of the file and of its foreign keys, then Mailroom's: each mailbox's
    /// counts agree with its messages, each message has its headers and body, each dictionary
    /// loads, and each compressed raw message decompresses to its recorded length and SHA-256.
    /// "ok", or one line per problem.
    public func integrityCheck() throws(StoreError) -> String {
        try read { reader throws(StoreError) in try reader.problems() }
    }
}

extension Reader {
    /// What `Store.integrityCheck` reports.
    func problems() throws(StoreError) -> String {
        let reader = self
        var problems: [String] = []
        let integrity = try reader.database.prepare("PRAGMA integrity_check")
        while try integrity.step() {
            let line = try integrity.text(at: 0)
            if line != "ok" { problems.append(line) }
        }
        let foreignKeys = try reader.database.prepare("PRAGMA foreign_key_check")
        while try foreignKeys.step() {
            let row = try foreignKeys.optionalInteger(at: 1).map(String.init) ?? "?"
            problems.append("row \(row) of \(try foreignKeys.text(at: 0)) refers to a missing \(try foreignKeys.text(at: 2))")
        }
        let counts = try reader.database.prepare("""
            SELECT b.name FROM mailboxes b
            WHERE b.total != (SELECT count(*) FROM messages m WHERE m.mailbox = b.id)
               OR b.unread != (SELECT count(*) FROM messages m WHERE m.mailbox = b.id AND m.unread = 1)
            """)
        while try counts.step() { problems.append("the counts of \(try counts.text(at: 0)) are wrong") }
        let parts = try reader.database.prepare("""
            SELECT 'message ' || m.id || ' has no headers' FROM messages m WHERE NOT EXISTS (SELECT 1 FROM headers h WHERE h.id = m.id)
            UNION ALL SELECT 'message ' || m.id || ' has no body' FROM messages m WHERE NOT EXISTS (SELECT 1 FROM bodies b WHERE b.id = m.id)
            UNION ALL SELECT 'headers ' || h.id || ' belong to no message' FROM headers h WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = h.id)
            UNION ALL SELECT 'body ' || b.id || ' belongs to no message' FROM bodies b WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = b.id)
            UNION ALL SELECT 'body ' || b.id || ' is not in its raw mail' FROM bodies b WHERE b.raw_start IS NOT NULL AND NOT EXISTS (
                SELECT 1 FROM mail x JOIN raw_mail r ON r.id = x.raw LEFT JOIN raw_packing p ON p.id = r.id
                WHERE x.id = b.id AND b.raw_start >= 0 AND b.raw_length >= 0
                    AND b.raw_start + b.raw_length <= coalesce(p.length, length(r.bytes)))
            UNION ALL SELECT 'mail ' || x.id || ' belongs to no message' FROM mail x WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = x.id)
            UNION ALL SELECT 'mail ' || x.id || ' has no raw bytes' FROM mail x WHERE NOT EXISTS (SELECT 1 FROM raw_mail r WHERE r.id = x.raw)
            UNION ALL SELECT 'raw mail ' || r.id || ' belongs to no mail' FROM raw_mail r WHERE NOT EXISTS (SELECT 1 FROM mail x WHERE x.raw = r.id)
            UNION ALL SELECT 'raw mail ' || r.id || ' has no record of how it is packed' FROM raw_mail r
                WHERE r.id >= (SELECT value FROM counters WHERE name = 'raw_plain_below')
                    AND NOT EXISTS (SELECT 1 FROM raw_packing p WHERE p.id = r.id)
            UNION ALL SELECT 'attachment ' || a.raw || '/' || a.part || ' belongs to no raw mail' FROM attachments a WHERE NOT EXISTS (SELECT 1 FROM raw_mail r WHERE r.id = a.raw)
            UNION ALL SELECT 'the HTML of message ' || x.id || ' does not decompress' FROM mail x WHERE typeof(x.html) = 'blob' AND html_text(x.html, x.size) IS NULL
            """)
        while try parts.step() { problems.append(try parts.text(at: 0)) }
        problems += try tagProblems()
        let dictionaries = try reader.database.prepare("SELECT id, bytes FROM raw_dictionaries WHERE length(bytes) > 0 ORDER BY id")
        while try dictionaries.step() {
            if ZstdDictionary(try dictionaries.blob(at: 1)) == nil {
                problems.append("raw mail dictionary \(try dictionaries.integer(at: 0)) is damaged")
            }
        }
        // Every compressed raw message gives back the bytes it was stored with.
        let packed = try reader.database.prepare("SELECT id FROM raw_packing ORDER BY id")
        while try packed.step() {
            if let problem = rawProblem(try packed.integer(at: 0)) { problems.append(problem) }
        }
        return problems.isEmpty ? "ok" : problems.joined(separator: "\n")
    }
}

extension Store {
    /// Closes the file and gives up its lock; later calls throw `.closed`.
    public func close() {
        isOpen.store(false, ordering: .releasing)
        checkpointTimer?.cancel()
        checkpointTimer = nil
        checkpointQueue.sync {
            checkpointer?.forgetStatements()
            checkpointer = nil
        }
        readersLock.withLock {
            for database in readers { database.forgetStatements() }
            readers = []
        }
        writerLock.withLock {
            writer?.forgetStatements()
            writer = nil
        }
        lock = nil
    }

    /// The writer connection, for tests that look at SQLite's settings.
    var openDatabase: Database? { writerLock.withLock { writer } }
}

extension Reader {
    func setting(_ name: String) throws(StoreError) -> String? {
        let statement = try database.cached("SELECT value FROM settings WHERE name = ?")
        try statement.bind([.text(name)])
        defer { statement.reset() }
        return try statement.step() ? try statement.text(at: 0) : nil
    }
}

/// The names of the rows in `counters`.
enum Counter {
    static let nextMessageID = "next_message_id"
    static let nextMailboxID = "next_mailbox_id"
    static let nextDeletion = "next_deletion"
    /// 1 while a bulk statement keeps the mailboxes' counts itself (see `Transaction.countingInBulk`).
    static let countedInBulk = "counted_in_bulk"
}
