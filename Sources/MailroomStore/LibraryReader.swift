import MailroomCore

/// Reads the whole library out of the file, checking each row on the way in.
enum LibraryReader {
    static func read(from database: Database) throws(StoreError) -> Library {
        let headers = try readMailboxes(database)
        let known = Set(headers.map(\.id))
        for id in MailboxID.system where !known.contains(id) {
            throw .invalidData("the built-in mailbox \(id) is missing")
        }
        let contents = try readMessages(database, known: known)
        let counters = try readCounters(database)
        let mailboxes = headers.map { Mailbox(id: $0.id, name: $0.name, messages: contents[$0.id] ?? []) }
        return Library(mailboxes: mailboxes, nextMessageID: counters.message, nextMailboxID: counters.mailbox)
    }

    private static func readMailboxes(_ database: Database) throws(StoreError) -> [(id: MailboxID, name: String)] {
        let statement = try database.prepare("SELECT id, name FROM mailboxes ORDER BY id")
        var headers: [(id: MailboxID, name: String)] = []
        while try statement.step() {
            headers.append((MailboxID(rawValue: try statement.integer(at: 0)), try statement.text(at: 1)))
        }
        return headers
    }

    /// Each mailbox's messages, top first: positions count from the bottom.
    private static func readMessages(
        _ database: Database, known: Set<MailboxID>
    ) throws(StoreError) -> [MailboxID: [Message]] {
        let statement = try database.prepare("""
            SELECT id, mailbox, subject, body, author, created_at, unread, flagged,
                   origin_mailbox, origin_offset, origin_anchor
            FROM messages ORDER BY mailbox, position DESC, id
            """)
        var contents: [MailboxID: [Message]] = [:]
        while try statement.step() {
            let id = try statement.integer(at: 0)
            guard id > 0 else { throw .invalidData("a message has the id \(id); ids start at 1") }
            let mailbox = MailboxID(rawValue: try statement.integer(at: 1))
            guard known.contains(mailbox) else {
                throw .invalidData("message \(id) is in mailbox \(mailbox.rawValue), which does not exist")
            }
            let message = Message(
                id: MessageID(id),
                subject: try statement.text(at: 2),
                body: try statement.text(at: 3),
                author: try statement.text(at: 4),
                createdAt: try statement.integer(at: 5),
                isUnread: try flag(statement, at: 6, of: id),
                isFlagged: try flag(statement, at: 7, of: id),
                origin: try origin(statement, at: 8, of: id))
            contents[mailbox, default: []].append(message)
        }
        return contents
    }

    private static func flag(_ statement: Statement, at column: Int, of id: Int64) throws(StoreError) -> Bool {
        switch try statement.integer(at: column) {
        case 0: return false
        case 1: return true
        case let other: throw .invalidData("message \(id) has \(other) for a yes/no field")
        }
    }

    /// The origin columns from `column` on: mailbox and offset both set, or all NULL.
    private static func origin(_ statement: Statement, at column: Int, of id: Int64) throws(StoreError) -> Origin? {
        switch (try statement.optionalInteger(at: column), try statement.optionalInteger(at: column + 1)) {
        case (nil, nil):
            return nil
        case (let mailbox?, let offset?):
            guard let offset = Int(exactly: offset), offset >= 0 else {
                throw .invalidData("message \(id) came from offset \(offset), which is not a place in a list")
            }
            let anchor = try statement.optionalInteger(at: column + 2).map { MessageID(rawValue: $0) }
            return Origin(mailbox: MailboxID(rawValue: mailbox), offset: offset, anchor: anchor)
        default:
            throw .invalidData("message \(id) has only half of its origin")
        }
    }

    private static func readCounters(_ database: Database) throws(StoreError) -> (message: Int64, mailbox: Int64) {
        let statement = try database.prepare("SELECT name, value FROM counters")
        var values: [String: Int64] = [:]
        while try statement.step() {
            values[try statement.text(at: 0)] = try statement.integer(at: 1)
        }
        guard let message = values[Counter.nextMessageID] else {
            throw .invalidData("the counter \(Counter.nextMessageID) is missing")
        }
        guard let mailbox = values[Counter.nextMailboxID] else {
            throw .invalidData("the counter \(Counter.nextMailboxID) is missing")
        }
        return (message, mailbox)
    }
}

/// The names of the rows in `counters`.
enum Counter {
    static let nextMessageID = "next_message_id"
    static let nextMailboxID = "next_mailbox_id"
}
