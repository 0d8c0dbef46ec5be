import MailroomCore

/// "All N": every message that was in a mailbox (and matched a search) at a revision, and still
/// is. Bulk actions on it are a few SQL statements over the chosen rows, not one per message,
/// so 100,000 messages move in about as many index updates as they need, and no more.
public struct Everything: Sendable {
    public var mailbox: MailboxID
    public var revision: Int64
    public var query: SearchQuery?

    public init(in mailbox: MailboxID, asOf revision: Int64, matching query: SearchQuery? = nil) {
        self.mailbox = mailbox
        self.revision = revision
        self.query = query
    }
}

extension Transaction {
    /// Moves every chosen message to the top of `destination`, keeping their order; into Trash,
    /// each remembers its place, under one deletion tag (see `lastDeletion`). Returns how many.
    @discardableResult
    public func move(_ everything: Everything, to destination: MailboxID) throws(StoreError) -> Int {
        guard try exists("SELECT 1 FROM mailboxes WHERE id = ?", [.integer(destination.rawValue)]) else {
            throw .refused(.unknownMailbox(destination))
        }
        guard destination != everything.mailbox else { return try choose(everything) }
        let chosen = try choose(everything)
        guard chosen > 0 else { return 0 }
        let top = try count("SELECT coalesce(max(rank), 0) FROM messages WHERE mailbox = ?", [.integer(destination.rawValue)])
        let unread = try count("SELECT coalesce(sum(unread), 0) FROM temp.chosen", [])
        try countingInBulk { () throws(StoreError) in
            if destination == .trash {
                let deletion = try takeDeletion()
                try run("""
                    UPDATE messages SET origin_mailbox = mailbox, origin_rank = rank, trashed_in = ?,
                        mailbox = ?, rank = ? + chosen.k * ?, entered = ?
                    FROM temp.chosen AS chosen WHERE messages.id = chosen.id
                    """, [.integer(deletion), .integer(destination.rawValue), .integer(top), .integer(Rank.gap), .integer(stamp)])
            } else {
                try run("""
                    UPDATE messages SET origin_mailbox = NULL, origin_rank = NULL, trashed_in = NULL,
                        mailbox = ?, rank = ? + chosen.k * ?, entered = ?
                    FROM temp.chosen AS chosen WHERE messages.id = chosen.id
                    """, [.integer(destination.rawValue), .integer(top), .integer(Rank.gap), .integer(stamp)])
            }
        }
        try recount(everything.mailbox, total: -chosen, unread: -unread)
        try recount(destination, total: chosen, unread: unread)
        return chosen
    }

    /// Marks every chosen message read or unread; returns how many were chosen.
    @discardableResult
    public func setUnread(_ isUnread: Bool, for everything: Everything) throws(StoreError) -> Int {
        let chosen = try choose(everything)
        let changed = try countingInBulk { () throws(StoreError) in
            try run("UPDATE messages SET unread = ? WHERE id IN (SELECT id FROM temp.chosen) AND unread != ?",
                    [.boolean(isUnread), .boolean(isUnread)])
            return database.changes
        }
        try recount(everything.mailbox, total: 0, unread: isUnread ? changed : -changed)
        return chosen
    }

    /// Flags or unflags every chosen message; returns how many were chosen.
    @discardableResult
    public func setFlagged(_ isFlagged: Bool, for everything: Everything) throws(StoreError) -> Int {
        let chosen = try choose(everything)
        try run("UPDATE messages SET flagged = ? WHERE id IN (SELECT id FROM temp.chosen) AND flagged != ?",
                [.boolean(isFlagged), .boolean(isFlagged)])
        return chosen
    }

    /// Destroys every chosen message, but only in Trash; returns how many.
    @discardableResult
    public func deletePermanently(_ everything: Everything) throws(StoreError) -> Int {
        guard everything.mailbox == .trash else { return 0 }
        let chosen = try choose(everything)
        try run("DELETE FROM messages WHERE id IN (SELECT id FROM temp.chosen)", [])
        return chosen
    }

    /// Puts back everything one delete put in Trash (Undo of a delete too big to name): each
    /// message whose old place is free goes straight back to it, in one statement; the few
    /// whose place was taken meanwhile go one by one, just above the row that took it.
    /// Returns how many were put back.
    @discardableResult
    public func restore(trashedIn deletion: Int64) throws(StoreError) -> Int {
        try clearChosen()
        try run("""
            INSERT INTO temp.chosen (id, k, unread)
            SELECT min(t.id), 0, max(t.unread) FROM messages t
            WHERE t.mailbox = ? AND t.trashed_in = ?
            GROUP BY t.origin_mailbox, t.origin_rank
            HAVING count(*) = 1
               AND EXISTS (SELECT 1 FROM mailboxes b WHERE b.id = t.origin_mailbox AND b.id != ?)
               AND NOT EXISTS (SELECT 1 FROM messages x WHERE x.mailbox = t.origin_mailbox AND x.rank = t.origin_rank)
            """, [.integer(MailboxID.trash.rawValue), .integer(deletion), .integer(MailboxID.trash.rawValue)])
        let direct = try count("SELECT count(*) FROM temp.chosen", [])
        let unread = try count("SELECT coalesce(sum(unread), 0) FROM temp.chosen", [])
        try run("""
            UPDATE mailboxes SET total = mailboxes.total + back.moved, unread = mailboxes.unread + back.unread_moved
            FROM (SELECT m.origin_mailbox AS box, count(*) AS moved, sum(c.unread) AS unread_moved
                  FROM temp.chosen c JOIN messages m ON m.id = c.id GROUP BY m.origin_mailbox) AS back
            WHERE mailboxes.id = back.box
            """, [])
        try recount(.trash, total: -direct, unread: -unread)
        try countingInBulk { () throws(StoreError) in
            try run("""
                UPDATE messages SET mailbox = origin_mailbox, rank = origin_rank, origin_mailbox = NULL, origin_rank = NULL,
                    trashed_in = NULL, entered = ?
                WHERE id IN (SELECT id FROM temp.chosen)
                """, [.integer(stamp)])
        }
        let rest = try restore(try ids(trashedIn: deletion))
        return direct + rest.applied.count
    }

    /// Fills the temporary table `chosen` with the ids of `everything`, numbered from the bottom
    /// of its mailbox (k = 1 is the lowest), and says how many there are.
    func choose(_ everything: Everything) throws(StoreError) -> Int {
        try clearChosen()
        let revision = SQLValue.integer(everything.revision)
        let (selection, values): (String, [SQLValue])
        if let query = everything.query {
            (selection, values) = Self.matchSQL(query, in: everything.mailbox, columns: "m.id, m.rank, m.unread", extra: "m.entered <= ?", [revision])
        } else {
            (selection, values) = ("SELECT m.id, m.rank, m.unread FROM messages m WHERE m.mailbox = ? AND m.entered <= ?",
                                   [.integer(everything.mailbox.rawValue), revision])
        }
        try run("INSERT INTO temp.chosen (id, k, unread) SELECT id, row_number() OVER (ORDER BY rank), unread FROM (\(selection))", values)
        return try count("SELECT count(*) FROM temp.chosen", [])
    }

    /// Empties the temporary table of chosen ids (made on first use: it is the connection's own).
    private func clearChosen() throws(StoreError) {
        try run("CREATE TEMP TABLE IF NOT EXISTS chosen (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, unread INTEGER NOT NULL)", [])
        try run("DELETE FROM temp.chosen", [])
    }

    /// Runs `body`, a statement over thousands of rows, with the per-row count trigger off: the
    /// caller adds up the counts with `recount`, once per mailbox. On failure, the transaction
    /// or savepoint it runs in is rolled back, switch included.
    private func countingInBulk<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        try run("UPDATE counters SET value = 1 WHERE name = ?", [.text(Counter.countedInBulk)])
        let result = try body()
        try run("UPDATE counters SET value = 0 WHERE name = ?", [.text(Counter.countedInBulk)])
        return result
    }

    private func recount(_ box: MailboxID, total: Int, unread: Int) throws(StoreError) {
        try run("UPDATE mailboxes SET total = total + ?, unread = unread + ? WHERE id = ?",
                [.integer(Int64(total)), .integer(Int64(unread)), .integer(box.rawValue)])
    }
}
