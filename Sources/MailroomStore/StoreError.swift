import MailroomCore

/// What can go wrong with Mailroom's database file.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A statement failed. `code` is SQLite's (extended) result code and `sql` the statement's
    /// text; bound values are never included, so messages people typed stay out of logs.
    case sqlite(code: Int32, message: String, sql: String?)
    /// Another Mailroom holds the file's lock.
    case locked(path: String)
    /// The file's schema is newer than this build knows; it was left untouched.
    case newerSchema(path: String, found: Int32, known: Int32)
    case cannotOpen(path: String, reason: String)
    /// The file is a readable database but holds something Mailroom never writes.
    case invalidData(String)
    /// The store was used after `close()`.
    case closed
    /// The change was refused as the model refuses it (an unknown message, a bad name...):
    /// nothing was written.
    case refused(LibraryError)
    /// A command inside a write failed with an error of its own, described here.
    case failed(String)

    public var description: String {
        switch self {
        case .sqlite(let code, let message, let sql?):
            "SQLite error \(code) (\(message)) while running: \(sql)"
        case .sqlite(let code, let message, nil):
            "SQLite error \(code): \(message)"
        case .locked(let path):
            "The database \(path) is in use by another Mailroom. Stop that one first, or give this one another file."
        case .newerSchema(let path, let found, let known):
            "The database \(path) was made by a newer Mailroom (schema version \(found), this build knows \(known)). "
                + "Run the newer Mailroom; the file was left untouched."
        case .cannotOpen(let path, let reason):
            "Cannot open \(path): \(reason)"
        case .invalidData(let reason):
            "The data in the database file is invalid: \(reason)"
        case .closed:
            "The database is already closed."
        case .refused(let error):
            error.message
        case .failed(let reason):
            reason
        }
    }
}
