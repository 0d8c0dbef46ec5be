import MailroomCore

/// Mailroom's SQLite file: the whole `Library` is read once at start, and each command's
/// `Changes` is committed durably before the command's response is sent.
///
/// `@unchecked Sendable` because callers serialize access: the web app calls it under its own
/// single lock, and the connection itself is opened without SQLite's mutex.
public final class Store: @unchecked Sendable {
    public let path: String
    /// True when this open created the file's tables: a brand-new database.
    public let isNew: Bool
    private var connection: (database: Database, writer: ChangeWriter)?

    /// Opens or creates the file, takes its lock for as long as this store is open, and brings
    /// its schema up to date.
    ///
    /// Fails at once, with `.locked`, when another Mailroom has the file open.
    public init(path: String) throws(StoreError) {
        self.path = path
        let database = try Database(path: path)
        try database.lockExclusively()
        // Checked before anything is written, so a newer Mailroom's file is left exactly as it was.
        let pending = try Schema.pendingMigrations(in: database)
        isNew = pending.first?.version == 1
        try database.execute("PRAGMA journal_mode = WAL")
        // FULL syncs the log at every commit: a committed change survives power loss.
        try database.execute("PRAGMA synchronous = FULL")
        try database.execute("PRAGMA foreign_keys = ON")
        try Schema.apply(pending, to: database)
        connection = (database, try ChangeWriter(database: database))
    }

    /// Every mailbox and message in the file.
    public func load() throws(StoreError) -> Library {
        try LibraryReader.read(from: try connected().database)
    }

    /// The setting `name`, made by `make` and stored the first time it is asked for.
    public func setting(_ name: String, orMake make: () -> String) throws(StoreError) -> String {
        let database = try connected().database
        let read = try database.prepare("SELECT value FROM settings WHERE name = ?")
        try read.bind([.text(name)])
        if try read.step() { return try read.text(at: 0) }
        let value = make()
        try database.transaction { () throws(StoreError) in
            try database.prepare("INSERT INTO settings (name, value) VALUES (?, ?)").run([.text(name), .text(value)])
        }
        return value
    }

    /// Writes `changes` in one transaction: all of them are committed, or none.
    public func save(_ changes: Changes) throws(StoreError) {
        try connected().writer.write(changes)
    }

    /// SQLite's own check of the file and of its foreign keys: "ok", or one line per problem.
    public func integrityCheck() throws(StoreError) -> String {
        let database = try connected().database
        var problems: [String] = []
        let integrity = try database.prepare("PRAGMA integrity_check")
        while try integrity.step() {
            let line = try integrity.text(at: 0)
            if line != "ok" { problems.append(line) }
        }
        let foreignKeys = try database.prepare("PRAGMA foreign_key_check")
        while try foreignKeys.step() {
            let row = try foreignKeys.optionalInteger(at: 1).map(String.init) ?? "?"
            problems.append("row \(row) of \(try foreignKeys.text(at: 0)) refers to a missing \(try foreignKeys.text(at: 2))")
        }
        return problems.isEmpty ? "ok" : problems.joined(separator: "\n")
    }

    /// Closes the file and gives up its lock; later calls throw `.closed`.
    public func close() {
        // The writer's statements and the database go together, so nothing keeps the file open.
        connection = nil
    }

    /// The open connection, for tests that look at SQLite's settings.
    var openDatabase: Database? { connection?.database }

    private func connected() throws(StoreError) -> (database: Database, writer: ChangeWriter) {
        guard let connection else { throw .closed }
        return connection
    }
}
