import MailroomStore

/// A database that cannot be used at start, said so that the person knows which file and what
/// to do next.
enum DatabaseProblem {
    static func explain(_ error: any Error, path: String) -> String {
        guard let error = error as? StoreError else { return "cannot use the database \(path): \(error)" }
        switch error {
        case .sqlite(let code, let message, _) where [11, 26].contains(code & 0xFF):
            // SQLITE_CORRUPT and SQLITE_NOTADB, extended codes included.
            return "the database \(path) is damaged (SQLite error \(code): \(message)). "
                + "Run 'mailroom check --db \(path)' to see what is wrong, then restore your latest backup: "
                + "move \(path) and any \(path)-wal and \(path)-shm aside and copy the backup in its place "
                + "(see 'mailroom backup --help')."
        case .sqlite, .invalidData, .failed:
            return "cannot use the database \(path): \(error). 'mailroom check --db \(path)' tells whether the file is sound."
        default:
            return error.description
        }
    }
}
