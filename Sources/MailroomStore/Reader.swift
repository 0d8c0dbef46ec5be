import MailroomCore

/// Questions asked of the file: pages, counts, messages. Each page is read inside one read
/// transaction, so its rows, counts and revision agree with each other.
public class Reader {
    let database: Database

    init(database: Database) {
        self.database = database
    }

    /// The number that grows with every commit.
    public func revision() throws(StoreError) -> Int64 {
        let statement = try database.cached("SELECT value FROM counters WHERE name = 'revision'")
        try statement.bind([])
        defer { statement.reset() }
        guard try statement.step() else { throw .invalidData("the counter revision is missing") }
        return try statement.integer(at: 0)
    }

    /// Every mailbox with its counts: Inbox, Archive and Trash first, then people's own.
    public func mailboxes() throws(StoreError) -> [MailboxSummary] {
        let statement = try database.cached("SELECT id, name, total, unread FROM mailboxes ORDER BY id")
        try statement.bind([])
        defer { statement.reset() }
        var all: [MailboxSummary] = []
        while try statement.step() {
            all.append(MailboxSummary(
                id: MailboxID(rawValue: try statement.integer(at: 0)), name: try statement.text(at: 1),
                count: Int(try statement.integer(at: 2)), unreadCount: Int(try statement.integer(at: 3))))
        }
        return all
    }

    /// The mailbox that holds message `id`, if any does.
    public func mailbox(of id: MessageID) throws(StoreError) -> MailboxID? {
        try place(of: id)?.mailbox
    }

    /// Where message `id` is and whether it is unread, without reading the rest of it.
    public func place(of id: MessageID) throws(StoreError) -> (mailbox: MailboxID, isUnread: Bool)? {
        let statement = try database.cached("SELECT mailbox, unread FROM messages WHERE id = ?")
        try statement.bind([.integer(id.rawValue)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return (MailboxID(rawValue: try statement.integer(at: 0)), try statement.integer(at: 1) != 0)
    }

    /// A whole message, body included, and the mailbox that holds it.
    public func message(_ id: MessageID) throws(StoreError) -> (message: Message, mailbox: MailboxID)? {
        let statement = try database.cached("""
            SELECT \(Self.rowColumns), \(Schema.body(of: "b")) FROM \(Self.rowTables) JOIN bodies b ON b.id = m.id WHERE m.id = ?
            """)
        try statement.bind([.integer(id.rawValue)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let row = try Self.row(statement, body: 11)
        return (row.message, row.mailbox)
    }

    /// One page of `box` in its own order, `limit` rows from `place`. A place that no longer
    /// exists (a stale address) still answers with the nearest page.
    public func page(of box: MailboxID, from place: PagePlace, limit: Int) throws(StoreError) -> ListSlice {
        let limit = max(limit, 1)
        var found: [(message: Message, key: Int64)]
        switch place {
        case .top:
            found = try rows("WHERE m.mailbox = ? ORDER BY m.rank DESC LIMIT ?", [.integer(box.rawValue), .integer(limit)])
        case .below(let key):
            found = try rows("WHERE m.mailbox = ? AND m.rank < ? ORDER BY m.rank DESC LIMIT ?",
                             [.integer(box.rawValue), .integer(key), .integer(limit)])
            if found.isEmpty {
                // Past the end: the last page.
                found = try rows("WHERE m.mailbox = ? ORDER BY m.rank ASC LIMIT ?", [.integer(box.rawValue), .integer(limit)])
                found.reverse()
            }
        case .above(let key):
            found = try rows("WHERE m.mailbox = ? AND m.rank > ? ORDER BY m.rank ASC LIMIT ?",
                             [.integer(box.rawValue), .integer(key), .integer(limit)])
            found.reverse()
            if found.count < limit {
                // Near the top: the first page.
                found = try rows("WHERE m.mailbox = ? ORDER BY m.rank DESC LIMIT ?", [.integer(box.rawValue), .integer(limit)])
            }
        }
        let hasNewer = try found.first.map { first throws(StoreError) in
            try exists("SELECT 1 FROM messages WHERE mailbox = ? AND rank > ? LIMIT 1", [.integer(box.rawValue), .integer(first.key)])
        } ?? false
        let hasOlder = try found.last.map { last throws(StoreError) in
            try exists("SELECT 1 FROM messages WHERE mailbox = ? AND rank < ? LIMIT 1", [.integer(box.rawValue), .integer(last.key)])
        } ?? false
        let total = try count("SELECT total FROM mailboxes WHERE id = ?", [.integer(box.rawValue)])
        return ListSlice(
            rows: found.map(\.message), keys: found.map(\.key), hasNewer: hasNewer, hasOlder: hasOlder,
            total: total, revision: try revision())
    }

    /// Which of `ids` are in `box`, top first (by rank), and which are not.
    public func locate(_ ids: some Sequence<MessageID>, in box: MailboxID) throws(StoreError) -> BulkOutcome {
        let statement = try database.cached("SELECT mailbox, rank FROM messages WHERE id = ?")
        var found: [(id: MessageID, rank: Int64)] = []
        var missing: Set<MessageID> = []
        var seen: Set<MessageID> = []
        for id in ids where seen.insert(id).inserted {
            try statement.bind([.integer(id.rawValue)])
            if try statement.step(), try statement.integer(at: 0) == box.rawValue {
                found.append((id, try statement.integer(at: 1)))
            } else {
                missing.insert(id)
            }
            statement.reset()
        }
        found.sort { $0.rank > $1.rank }
        return BulkOutcome(applied: found.map(\.id), missing: missing.sorted())
    }

    /// The messages of `box` that were in it at `revision` (and still are), top first: what
    /// "all N" selected on a page read at that revision means.
    public func ids(in box: MailboxID, enteredBy revision: Int64) throws(StoreError) -> [MessageID] {
        let statement = try database.cached("SELECT id FROM messages WHERE mailbox = ? AND entered <= ? ORDER BY rank DESC")
        try statement.bind([.integer(box.rawValue), .integer(revision)])
        defer { statement.reset() }
        var ids: [MessageID] = []
        while try statement.step() { ids.append(MessageID(try statement.integer(at: 0))) }
        return ids
    }

    /// How many messages of `box` were in it at `revision` and still are.
    public func count(in box: MailboxID, enteredBy revision: Int64) throws(StoreError) -> Int {
        try count("SELECT count(*) FROM messages WHERE mailbox = ? AND entered <= ?", [.integer(box.rawValue), .integer(revision)])
    }

    /// Every message of `box` from the top, as the library model holds them (for tests and exports
    /// of small mailboxes: this reads every row).
    public func allMessages(of box: MailboxID) throws(StoreError) -> [Message] {
        try rows("WHERE m.mailbox = ? ORDER BY m.rank DESC", [.integer(box.rawValue)], withBodies: true).map(\.message)
    }

    // MARK: Shared with the writer

    static let rowColumns = """
        m.id, m.mailbox, m.rank, m.created_at, m.unread, m.flagged, h.subject, h.author, h.preview, m.origin_mailbox,
        \(Schema.tagNames(of: "m.id"))
        """

    /// Where `rowColumns` come from: placement drives, and each row's headers are looked up by id.
    static let rowTables = "messages m CROSS JOIN headers h ON h.id = m.id"

    func rows(
        _ tail: String, _ values: [SQLValue], withBodies: Bool = false
    ) throws(StoreError) -> [(message: Message, key: Int64)] {
        let sql = withBodies
            ? "SELECT \(Self.rowColumns), \(Schema.body(of: "b")) FROM \(Self.rowTables) JOIN bodies b ON b.id = m.id \(tail)"
            : "SELECT \(Self.rowColumns) FROM \(Self.rowTables) \(tail)"
        let statement = try database.cached(sql)
        try statement.bind(values)
        defer { statement.reset() }
        var found: [(message: Message, key: Int64)] = []
        while try statement.step() {
            let row = try Self.row(statement, body: withBodies ? 11 : nil)
            found.append((row.message, row.rank))
        }
        return found
    }

    func exists(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> Bool {
        let statement = try database.cached(sql)
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step()
    }

    func count(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> Int {
        let statement = try database.cached(sql)
        try statement.bind(values)
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return Int(try statement.optionalInteger(at: 0) ?? 0)
    }

    /// A message from `rowColumns` (and its body at column `body`, else its preview as the body).
    static func row(_ statement: Statement, body: Int?) throws(StoreError) -> (message: Message, mailbox: MailboxID, rank: Int64) {
        let id = try statement.integer(at: 0)
        let origin = try statement.optionalInteger(at: 9).map { Origin(mailbox: MailboxID(rawValue: $0), offset: 0) }
        let message = Message(
            id: MessageID(id),
            subject: try statement.text(at: 6),
            body: try statement.text(at: body ?? 8),
            author: try statement.text(at: 7),
            createdAt: try statement.integer(at: 3),
            isUnread: try flag(statement, at: 4, of: id),
            isFlagged: try flag(statement, at: 5, of: id),
            origin: origin,
            tags: try statement.optionalText(at: 10).map(Schema.tags(inNames:)) ?? [])
        return (message, MailboxID(rawValue: try statement.integer(at: 1)), try statement.integer(at: 2))
    }

    private static func flag(_ statement: Statement, at column: Int, of id: Int64) throws(StoreError) -> Bool {
        switch try statement.integer(at: column) {
        case 0: return false
        case 1: return true
        case let other: throw .invalidData("message \(id) has \(other) for a yes/no field")
        }
    }
}

extension Reader {
    /// The counter's value as it is.
    func counter(_ name: String) throws(StoreError) -> Int64 {
        let read = try database.cached("SELECT value FROM counters WHERE name = ?")
        try read.bind([.text(name)])
        defer { read.reset() }
        guard try read.step() else { throw .invalidData("the counter \(name) is missing") }
        return try read.integer(at: 0)
    }
}
