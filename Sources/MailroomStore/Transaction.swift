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
    /// transaction goes on (a savepoint). When the error ended the whole transaction, or its
    /// savepoint cannot be undone, it throws `TransactionEnded`: nothing more may run in it.
    public func attempt<Result>(_ body: () throws -> Result) throws -> Result {
        try database.run("SAVEPOINT command")
        do {
            let result = try body()
            try database.run("RELEASE command")
            return result
        } catch let failure {
            do throws(StoreError) {
                // SQLite rolls the whole transaction back by itself after some errors (a full
                // disk, an I/O error, no memory): then there is no savepoint to go back to.
                guard database.isInTransaction else { throw .failed("the transaction was rolled back") }
                try database.run("ROLLBACK TO command")
                try database.run("RELEASE command")
            } catch {
                throw TransactionEnded(cause: failure)
            }
            throw failure
        }
    }

    // MARK: Messages

    /// Checks `draft` and puts the new, unread message on top of `box`.
    @discardableResult
    public func add(_ draft: Draft, to box: MailboxID, at time: Int64) throws(StoreError) -> Message {
        let valid: Draft
        do { valid = try draft.validated() } catch { throw .refused(.mailbox(.draft(error))) }
        let (id, rank) = try newMessagePlace(in: box)
        let message = Message(id: MessageID(id), subject: valid.subject, body: valid.body, author: valid.author, createdAt: time)
        try insert(message, into: box, rank: rank, origin: nil)
        return message
    }

    /// The id and the rank of a new message on top of `box`, which must exist.
    func newMessagePlace(in box: MailboxID) throws(StoreError) -> (id: Int64, rank: Int64) {
        try requireMailbox(box)
        let id = try takeCounter(Counter.nextMessageID)
        return (id, try rankOnTop(of: box))
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
                place = try rankOnTop(of: .inbox)
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

    func topRank(of box: MailboxID) throws(StoreError) -> Int64? {
        let statement = try database.cached("SELECT max(rank) FROM messages WHERE mailbox = ?")
        try statement.bind([.integer(box.rawValue)])
        defer { statement.reset() }
        return try statement.step() ? try statement.optionalInteger(at: 0) : nil
    }

    /// The rank of a message put on top of `box` now.
    func rankOnTop(of box: MailboxID) throws(StoreError) -> Int64 {
        try topRank(of: box).map { $0 + Rank.gap } ?? Rank.gap
    }

    /// The counter's value, raised by one for the next caller.
    func takeCounter(_ name: String) throws(StoreError) -> Int64 {
        // Read, then raise: an UPDATE with RETURNING costs SQLite about ten times as much (it
        // runs the update into a temporary table first), and mail takes two counters a message.
        let value = try counter(name)
        try run("UPDATE counters SET value = ? WHERE name = ?", [.integer(value + 1), .text(name)])
        return value
    }
}

/// A command's error that ended the transaction it ran in (see `Transaction.attempt`): the
/// batch must stop and fail as a whole. Statements run after it would run outside any
/// transaction, each kept on its own, and a failed command's changes left in its savepoint
/// would be committed with the rest.
public struct TransactionEnded: Error, CustomStringConvertible {
    public let cause: any Error

    public var description: String { "\(cause) (the transaction ended with it)" }
}
