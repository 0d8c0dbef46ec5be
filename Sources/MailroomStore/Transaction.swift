import MailroomCore

/// One write transaction: every change Mailroom makes goes through one of these, in SQL, each
/// writing the rows it touches and no more. Counts and the search index follow by trigger.
public final class Transaction: Reader {
    /// The revision this commit makes: messages entering a mailbox are stamped with it.
    public let stamp: Int64
    /// The tag of the last move into Trash in this transaction: Undo of that one delete finds
    /// its messages by it, however many there are.
    public private(set) var lastDeletion: Int64?

    init(database: Database, stamp: Int64) {
        self.stamp = stamp
        super.init(database: database)
    }

    /// Runs `body` so that, when it throws, nothing it did is kept, while the rest of the
    /// transaction goes on (a savepoint).
    public func attempt<Result>(_ body: () throws -> Result) throws -> Result {
        try database.run("SAVEPOINT command")
        do {
            let result = try body()
            try database.run("RELEASE command")
            return result
        } catch {
            try database.run("ROLLBACK TO command")
            try database.run("RELEASE command")
            throw error
        }
    }

    // MARK: Messages

    /// Checks `draft` and puts the new, unread message on top of `box`.
    @discardableResult
    public func add(_ draft: Draft, to box: MailboxID, at time: Int64) throws(StoreError) -> Message {
        let valid: Draft
        do { valid = try draft.validated() } catch { throw .refused(.mailbox(.draft(error))) }
        try requireMailbox(box)
        let id = try takeCounter(Counter.nextMessageID)
        let rank = try topRank(of: box).map { $0 + Rank.gap } ?? Rank.gap
        let message = Message(id: MessageID(id), subject: valid.subject, body: valid.body, author: valid.author, createdAt: time)
        try insert(message, into: box, rank: rank, origin: nil)
        return message
    }

    /// Puts a new, unread message on top of `box` as it is, unchecked (mail that arrived).
    /// `beforeBody` runs once the message's id exists, before its body is indexed; `bodyInRaw`
    /// is where the body is found in the mail's raw bytes, when it is kept there alone.
    func add(
        subject: String, body: String, author: String, to box: MailboxID, at time: Int64, bodyInRaw: Range<Int>?,
        beforeBody: (MessageID) throws(StoreError) -> Void
    ) throws(StoreError) -> Message {
        try requireMailbox(box)
        let id = try takeCounter(Counter.nextMessageID)
        let rank = try topRank(of: box).map { $0 + Rank.gap } ?? Rank.gap
        let message = Message(id: MessageID(id), subject: subject, body: body, author: author, createdAt: time)
        try insert(message, into: box, rank: rank, origin: nil, bodyInRaw: bodyInRaw, beforeBody: beforeBody)
        return message
    }

    /// Replaces a message's subject and body with a checked draft.
    public func edit(_ id: MessageID, with draft: Draft) throws(StoreError) {
        let valid: Draft
        do { valid = try draft.validated() } catch { throw .refused(.mailbox(.draft(error))) }
        try run("UPDATE headers SET subject = ?, preview = ? WHERE id = ?",
                [.text(valid.subject), .text(Rank.preview(of: valid.body)), .integer(id.rawValue)])
        guard database.changes == 1 else { throw .refused(.mailbox(.unknownMessage(id))) }
        try run("UPDATE bodies SET body = ?, raw_start = NULL, raw_length = NULL WHERE id = ?", [.text(valid.body), .integer(id.rawValue)])
    }

    @discardableResult
    public func setUnread(_ isUnread: Bool, for ids: some Sequence<MessageID>, in box: MailboxID) throws(StoreError) -> BulkOutcome {
        let outcome = try locate(ids, in: box)
        for id in outcome.applied {
            try run("UPDATE messages SET unread = ? WHERE id = ?", [.boolean(isUnread), .integer(id.rawValue)])
        }
        return outcome
    }

    @discardableResult
    public func setFlagged(_ isFlagged: Bool, for ids: some Sequence<MessageID>, in box: MailboxID) throws(StoreError) -> BulkOutcome {
        let outcome = try locate(ids, in: box)
        for id in outcome.applied {
            try run("UPDATE messages SET flagged = ? WHERE id = ?", [.boolean(isFlagged), .integer(id.rawValue)])
        }
        return outcome
    }

    /// Moves the named messages of `source` to the top of `destination`, keeping their order.
    /// Moving into Trash remembers where each was; moving out of it forgets.
    @discardableResult
    public func move(_ ids: some Sequence<MessageID>, from source: MailboxID, to destination: MailboxID) throws(StoreError) -> BulkOutcome {
        try requireMailbox(source)
        try requireMailbox(destination)
        let outcome = try locate(ids, in: source)
        guard source != destination, !outcome.applied.isEmpty else { return outcome }
        let top = try topRank(of: destination) ?? 0
        let count = Int64(outcome.applied.count)
        let deletion = destination == .trash ? try takeDeletion() : 0
        for (index, id) in outcome.applied.enumerated() {
            let rank = top + (count - Int64(index)) * Rank.gap
            if destination == .trash {
                try run("""
                    UPDATE messages SET origin_mailbox = mailbox, origin_rank = rank, trashed_in = ?,
                        mailbox = ?, rank = ?, entered = ? WHERE id = ?
                    """, [.integer(deletion), .integer(destination.rawValue), .integer(rank), .integer(stamp), .integer(id.rawValue)])
            } else {
                try run("""
                    UPDATE messages SET origin_mailbox = NULL, origin_rank = NULL, trashed_in = NULL,
                        mailbox = ?, rank = ?, entered = ? WHERE id = ?
                    """, [.integer(destination.rawValue), .integer(rank), .integer(stamp), .integer(id.rawValue)])
            }
        }
        return outcome
    }

    /// Puts trashed messages back where they were: each at its old rank in its old mailbox (or
    /// as near it as the rows there now allow), so Undo leaves every mailbox as it was. A message
    /// whose mailbox is gone goes to the top of the Inbox.
    @discardableResult
    public func restore(_ ids: some Sequence<MessageID>) throws(StoreError) -> BulkOutcome {
        let outcome = try locate(ids, in: .trash)
        let origins = try database.cached("""
            SELECT m.origin_mailbox, m.origin_rank, x.id FROM messages m LEFT JOIN mailboxes x ON x.id = m.origin_mailbox
            WHERE m.id = ?
            """)
        // Bottom first: the oldest delete goes back first, as Undo walks deletes backwards.
        for id in outcome.applied.reversed() {
            try origins.bind([.integer(id.rawValue)])
            _ = try origins.step()
            let mailbox = try origins.optionalInteger(at: 0)
            let rank = try origins.optionalInteger(at: 1)
            let exists = try origins.optionalInteger(at: 2) != nil
            origins.reset()
            let target: MailboxID
            let place: Int64
            if let mailbox, let rank, exists, mailbox != MailboxID.trash.rawValue {
                target = MailboxID(rawValue: mailbox)
                place = try freeRank(near: rank, in: target)
            } else {
                target = .inbox
                place = (try topRank(of: .inbox) ?? 0) + Rank.gap
            }
            try run("""
                UPDATE messages SET origin_mailbox = NULL, origin_rank = NULL, trashed_in = NULL,
                    mailbox = ?, rank = ?, entered = ? WHERE id = ?
                """, [.integer(target.rawValue), .integer(place), .integer(stamp), .integer(id.rawValue)])
        }
        return outcome
    }

    /// The messages in Trash that one delete put there (see `lastDeletion`), top first.
    public func ids(trashedIn deletion: Int64) throws(StoreError) -> [MessageID] {
        try rows("WHERE m.mailbox = ? AND m.trashed_in = ? ORDER BY m.rank DESC",
                 [.integer(MailboxID.trash.rawValue), .integer(deletion)]).map(\.message.id)
    }

    /// Destroys the named messages, but only those already in Trash.
    @discardableResult
    public func deletePermanently(_ ids: some Sequence<MessageID>) throws(StoreError) -> BulkOutcome {
        let outcome = try locate(ids, in: .trash)
        for id in outcome.applied {
            try run("DELETE FROM messages WHERE id = ?", [.integer(id.rawValue)])
        }
        return outcome
    }

    /// Destroys everything in Trash and says how many messages that was.
    @discardableResult
    public func emptyTrash() throws(StoreError) -> Int {
        let count = try count("SELECT total FROM mailboxes WHERE id = ?", [.integer(MailboxID.trash.rawValue)])
        try run("DELETE FROM messages WHERE mailbox = ?", [.integer(MailboxID.trash.rawValue)])
        return count
    }

    // MARK: A mailbox's own order

    /// Moves one message up (towards the top) or down by one place: it takes a rank between
    /// the neighbour it passes and the row beyond, one row written. Only the moved message's
    /// rank changes, so someone walking the pages meanwhile sees every other row exactly once.
    public func move(_ id: MessageID, by step: MoveStep, in box: MailboxID) throws(StoreError) {
        for _ in 0..<64 {
            guard let rank = try rank(of: id, in: box) else { throw .refused(.mailbox(.unknownMessage(id))) }
            let beyond = step == .up
                ? try rows("WHERE m.mailbox = ? AND m.rank > ? ORDER BY m.rank ASC LIMIT 2", [.integer(box.rawValue), .integer(rank)])
                : try rows("WHERE m.mailbox = ? AND m.rank < ? ORDER BY m.rank DESC LIMIT 2", [.integer(box.rawValue), .integer(rank)])
            // Already at the edge: like a disabled button, nothing to do.
            guard let passed = beyond.first?.key else { return }
            let next = beyond.dropFirst().first?.key
            let free = step == .up
                ? Rank.spread(1, above: passed, below: next)?.first
                : Rank.spread(1, above: next, below: passed)?.first
            if let free {
                try run("UPDATE messages SET rank = ? WHERE id = ?", [.integer(free), .integer(id.rawValue)])
                return
            }
            try makeRoom(in: box, around: passed, for: 1)
        }
        throw .invalidData("no room could be made in mailbox \(box) for a move")
    }

    /// SwiftUI's `move(fromOffsets:toOffset:)` on `box`'s order, the sources named by id:
    /// `destination` is an offset in the order before the move (`0...count`). The moved
    /// messages get ranks between their new neighbours; nothing else is written unless those
    /// neighbours have no room between them.
    public func move(_ ids: [MessageID], toOffset destination: Int, in box: MailboxID) throws(StoreError) {
        var sources: Set<MessageID> = []
        var ordered: [(id: MessageID, rank: Int64)] = []
        for id in ids where sources.insert(id).inserted {
            guard let rank = try rank(of: id, in: box) else { throw .refused(.mailbox(.unknownMessage(id))) }
            ordered.append((id, rank))
        }
        let total = try count("SELECT total FROM mailboxes WHERE id = ?", [.integer(box.rawValue)])
        guard (0...total).contains(destination) else {
            throw .refused(.mailbox(.offset(OffsetError(offset: destination, validRange: 0..<(total + 1)))))
        }
        guard !ordered.isEmpty else { return }
        ordered.sort { $0.rank > $1.rank }
        for _ in 0..<64 {
            let (low, high) = try neighbours(of: sources, atOffset: destination, total: total, in: box)
            if let ranks = Rank.spread(ordered.count, above: low, below: high) {
                for (source, rank) in zip(ordered, ranks) {
                    try run("UPDATE messages SET rank = ? WHERE id = ?", [.integer(rank), .integer(source.id.rawValue)])
                }
                return
            }
            try makeRoom(in: box, around: low ?? high ?? 0, for: ordered.count)
        }
        throw .invalidData("no room could be made in mailbox \(box) for a move")
    }

    /// The ranks the moved rows must lie between: the lowest row above the destination and the
    /// highest row at or below it, neither of them moving (nil past either end).
    private func neighbours(
        of sources: Set<MessageID>, atOffset destination: Int, total: Int, in box: MailboxID
    ) throws(StoreError) -> (low: Int64?, high: Int64?) {
        let limit = SQLValue.integer(sources.count + 1)
        let above: [(message: Message, key: Int64)]
        let below: [(message: Message, key: Int64)]
        if destination < total {
            // The row at the destination offset: an index walk to that depth, for this one call.
            let at = try rows("WHERE m.mailbox = ? ORDER BY m.rank DESC LIMIT 1 OFFSET ?",
                              [.integer(box.rawValue), .integer(destination)])
            guard let pivot = at.first?.key else { throw .invalidData("mailbox \(box) has fewer rows than its count") }
            above = try rows("WHERE m.mailbox = ? AND m.rank > ? ORDER BY m.rank ASC LIMIT ?", [.integer(box.rawValue), .integer(pivot), limit])
            below = try rows("WHERE m.mailbox = ? AND m.rank <= ? ORDER BY m.rank DESC LIMIT ?", [.integer(box.rawValue), .integer(pivot), limit])
        } else {
            above = try rows("WHERE m.mailbox = ? ORDER BY m.rank ASC LIMIT ?", [.integer(box.rawValue), limit])
            below = []
        }
        let high = above.first { !sources.contains($0.message.id) }?.key
        let low = below.first { !sources.contains($0.message.id) }?.key
        return (low, high)
    }

    /// A rank in `box` as near `wanted` as is free: `wanted` itself, or, when another row took
    /// it, one just above that row (which a spreading of rows may have moved meanwhile).
    private func freeRank(near wanted: Int64, in box: MailboxID) throws(StoreError) -> Int64 {
        let holders = try rows("WHERE m.mailbox = ? AND m.rank = ? LIMIT 1", [.integer(box.rawValue), .integer(wanted)])
        guard let holder = holders.first?.message.id else { return wanted }
        for _ in 0..<64 {
            guard let rank = try rank(of: holder, in: box) else { return wanted }
            let above = try rows("WHERE m.mailbox = ? AND m.rank > ? ORDER BY m.rank ASC LIMIT 1", [.integer(box.rawValue), .integer(rank)])
            if let free = Rank.spread(1, above: rank, below: above.first?.key)?.first { return free }
            try makeRoom(in: box, around: rank, for: 1)
        }
        throw .invalidData("no room could be made in mailbox \(box) to put a message back")
    }

    /// Spreads out the rows around `pivot` so that `needed` more fit between any two of them:
    /// a window of rows that doubles until the rows just outside it leave enough room.
    private func makeRoom(in box: MailboxID, around pivot: Int64, for needed: Int) throws(StoreError) {
        var width = 32
        while true {
            let lower = try rows("WHERE m.mailbox = ? AND m.rank <= ? ORDER BY m.rank DESC LIMIT ?",
                                 [.integer(box.rawValue), .integer(pivot), .integer(width + 1)])
            let upper = try rows("WHERE m.mailbox = ? AND m.rank > ? ORDER BY m.rank ASC LIMIT ?",
                                 [.integer(box.rawValue), .integer(pivot), .integer(width + 1)])
            let floor = lower.count > width ? lower.last?.key : nil
            let ceiling = upper.count > width ? upper.last?.key : nil
            let window = Array(upper.prefix(width).reversed()) + Array(lower.prefix(width))
            // Room for each row and `needed` more beside each of them.
            let slots = window.count * (needed + 1)
            if let spread = Rank.spread(slots, above: floor, below: ceiling) {
                for (index, row) in window.enumerated() {
                    try run("UPDATE messages SET rank = ? WHERE id = ?",
                            [.integer(spread[index * (needed + 1) + needed / 2]), .integer(row.message.id.rawValue)])
                }
                return
            }
            guard floor != nil || ceiling != nil else { throw .invalidData("mailbox \(box) has no room left") }
            width *= 2
        }
    }

    // MARK: Mailboxes

    /// Makes a new mailbox of one's own, at the end of the list.
    @discardableResult
    public func createMailbox(named name: String) throws(StoreError) -> MailboxID {
        let checked = try checkedName(name, renaming: nil)
        let id = MailboxID(rawValue: try takeCounter(Counter.nextMailboxID))
        try run("INSERT INTO mailboxes (id, name) VALUES (?, ?)", [.integer(id.rawValue), .text(checked)])
        return id
    }

    public func renameMailbox(_ id: MailboxID, to name: String) throws(StoreError) {
        guard !id.isSystem else { throw .refused(.systemMailbox(id)) }
        try requireMailbox(id)
        try run("UPDATE mailboxes SET name = ? WHERE id = ?", [.text(try checkedName(name, renaming: id)), .integer(id.rawValue)])
    }

    /// Removes one of people's own mailboxes; its messages go to Trash, from where Restore
    /// brings them to the Inbox.
    @discardableResult
    public func deleteMailbox(_ id: MailboxID) throws(StoreError) -> Int {
        guard !id.isSystem else { throw .refused(.systemMailbox(id)) }
        try requireMailbox(id)
        let ids = try rows("WHERE m.mailbox = ? ORDER BY m.rank DESC", [.integer(id.rawValue)]).map(\.message.id)
        try move(ids, from: id, to: .trash)
        try run("DELETE FROM mailboxes WHERE id = ?", [.integer(id.rawValue)])
        return ids.count
    }

    // MARK: Whole libraries

    /// Makes the file hold exactly `library` (for a new file's samples, tests and benchmarks):
    /// every message at a rank that keeps its library order.
    public func replaceAll(with library: Library) throws(StoreError) {
        try run("DELETE FROM messages", [])
        try run("DELETE FROM mailboxes WHERE id >= ?", [.integer(MailboxID.firstCustom)])
        for mailbox in library.mailboxes {
            try run("""
                INSERT INTO mailboxes (id, name) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name
                """, [.integer(mailbox.id.rawValue), .text(mailbox.name)])
        }
        for mailbox in library.mailboxes {
            for (offset, message) in mailbox.messages.enumerated() {
                let rank = Int64(mailbox.count - offset) * Rank.gap
                var origin: (MailboxID, Int64)?
                if let from = message.origin, let source = library[from.mailbox] {
                    let anchor = from.anchor.flatMap { source.offset(of: $0) }
                    let below = anchor ?? min(max(from.offset, 0), source.count)
                    origin = (from.mailbox, Int64(source.count - below) * Rank.gap + Rank.gap / 2)
                } else if let from = message.origin {
                    origin = (from.mailbox, 0)
                }
                try insert(message, into: mailbox.id, rank: rank, origin: origin)
                if !message.isUnread || message.isFlagged {
                    try run("UPDATE messages SET unread = ?, flagged = ? WHERE id = ?",
                            [.boolean(message.isUnread), .boolean(message.isFlagged), .integer(message.id.rawValue)])
                }
            }
        }
        try run("UPDATE counters SET value = max(value, ?) WHERE name = ?", [.integer(library.nextMessageID), .text(Counter.nextMessageID)])
        try run("UPDATE counters SET value = max(value, ?) WHERE name = ?", [.integer(library.nextMailboxID), .text(Counter.nextMailboxID)])
    }

    /// Adds one message as it is, with its id, at `rank` (bulk loading).
    public func insert(_ message: Message, into box: MailboxID, rank: Int64, origin: (MailboxID, Int64)?) throws(StoreError) {
        try insert(message, into: box, rank: rank, origin: origin, bodyInRaw: nil) { _ throws(StoreError) in }
    }

    func insert(
        _ message: Message, into box: MailboxID, rank: Int64, origin: (MailboxID, Int64)?, bodyInRaw: Range<Int>?,
        beforeBody: (MessageID) throws(StoreError) -> Void
    ) throws(StoreError) {
        try insertRows(message, into: box, rank: rank, origin: origin, isUnread: true, isFlagged: false, bodyInRaw: bodyInRaw,
                       beforeBody: beforeBody)
        try run("UPDATE counters SET value = max(value, ?) WHERE name = ?", [.integer(message.id.rawValue + 1), .text(Counter.nextMessageID)])
    }

    /// A message's own rows (placement, headers, body), leaving the id counter to the caller.
    /// With `bodyInRaw`, the body is not written again: it is those bytes of the message's raw
    /// mail (which `beforeBody` must have linked to it), as `Schema.body(of:)` reads it; the
    /// list row's `preview`, when given, was made from the body beforehand.
    func insertRows(
        _ message: Message, into box: MailboxID, rank: Int64, origin: (MailboxID, Int64)?, isUnread: Bool, isFlagged: Bool,
        bodyInRaw: Range<Int>? = nil, preview: String? = nil, beforeBody: (MessageID) throws(StoreError) -> Void
    ) throws(StoreError) {
        try run("""
            INSERT INTO messages (id, mailbox, rank, entered, created_at, unread, flagged, origin_mailbox, origin_rank, trashed_in)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [
                .integer(message.id.rawValue), .integer(box.rawValue), .integer(rank), .integer(stamp),
                .integer(message.createdAt), .boolean(isUnread), .boolean(isFlagged), .optional(origin?.0.rawValue), .optional(origin?.1),
                .optional(origin.map { _ in stamp }),
            ])
        // The headers before the body: indexing the body reads the subject and sender.
        try run("INSERT INTO headers (id, subject, author, preview) VALUES (?, ?, ?, ?)", [
            .integer(message.id.rawValue), .text(message.subject), .text(message.author), .text(preview ?? Rank.preview(of: message.body)),
        ])
        try beforeBody(message.id)
        if let span = bodyInRaw {
            try run("INSERT INTO bodies (id, body, raw_start, raw_length) VALUES (?, '', ?, ?)",
                    [.integer(message.id.rawValue), .integer(Int64(span.lowerBound)), .integer(Int64(span.count))])
        } else {
            try run("INSERT INTO bodies (id, body) VALUES (?, ?)", [.integer(message.id.rawValue), .text(message.body)])
        }
    }

    // MARK: Helpers

    /// A new deletion tag, remembered as this transaction's last.
    func takeDeletion() throws(StoreError) -> Int64 {
        let deletion = try takeCounter(Counter.nextDeletion)
        lastDeletion = deletion
        return deletion
    }

    func run(_ sql: String, _ values: [SQLValue]) throws(StoreError) {
        try database.cached(sql).run(values)
    }

    func requireMailbox(_ id: MailboxID) throws(StoreError) {
        guard try exists("SELECT 1 FROM mailboxes WHERE id = ?", [.integer(id.rawValue)]) else { throw .refused(.unknownMailbox(id)) }
    }

    private func rank(of id: MessageID, in box: MailboxID) throws(StoreError) -> Int64? {
        let statement = try database.cached("SELECT rank FROM messages WHERE id = ? AND mailbox = ?")
        try statement.bind([.integer(id.rawValue), .integer(box.rawValue)])
        defer { statement.reset() }
        return try statement.step() ? try statement.integer(at: 0) : nil
    }

    func topRank(of box: MailboxID) throws(StoreError) -> Int64? {
        let statement = try database.cached("SELECT max(rank) FROM messages WHERE mailbox = ?")
        try statement.bind([.integer(box.rawValue)])
        defer { statement.reset() }
        return try statement.step() ? try statement.optionalInteger(at: 0) : nil
    }

    /// The counter's value, raised by one for the next caller.
    func takeCounter(_ name: String) throws(StoreError) -> Int64 {
        // Read, then raise: an UPDATE with RETURNING costs SQLite about ten times as much (it
        // runs the update into a temporary table first), and mail takes two counters a message.
        let value = try counter(name)
        try run("UPDATE counters SET value = ? WHERE name = ?", [.integer(value + 1), .text(name)])
        return value
    }

    /// The counter's value as it is.
    func counter(_ name: String) throws(StoreError) -> Int64 {
        let read = try database.cached("SELECT value FROM counters WHERE name = ?")
        try read.bind([.text(name)])
        defer { read.reset() }
        guard try read.step() else { throw .invalidData("the counter \(name) is missing") }
        return try read.integer(at: 0)
    }

    private func checkedName(_ name: String, renaming id: MailboxID?) throws(StoreError) -> String {
        let existing = try mailboxes().map { (id: $0.id, name: $0.name) }
        do {
            return try Library.checkedName(name, renaming: id, among: existing)
        } catch {
            throw .refused(error)
        }
    }
}
