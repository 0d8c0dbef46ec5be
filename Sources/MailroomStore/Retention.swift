import MailroomCore

extension Transaction {
    /// Deletes for good up to `limit` of the oldest unflagged messages, in any mailbox, oldest
    /// first (by arrival, which is id order); with `cutoff`, only those that arrived before it.
    /// How many went.
    public func expireOldest(_ limit: Int, arrivedBefore cutoff: Int64? = nil) throws(StoreError) -> Int {
        guard limit > 0 else { return 0 }
        let ids: [Int64]
        if let cutoff {
            ids = try integers(
                "SELECT id FROM messages WHERE flagged = 0 AND created_at < ? ORDER BY id LIMIT ?",
                [.integer(cutoff), .integer(limit)])
        } else {
            ids = try integers("SELECT id FROM messages WHERE flagged = 0 ORDER BY id LIMIT ?", [.integer(limit)])
        }
        for id in ids {
            try run("DELETE FROM messages WHERE id = ?", [.integer(id)])
        }
        return ids.count
    }
}

extension Reader {
    /// Messages in every mailbox, Trash included.
    public func totalMessages() throws(StoreError) -> Int {
        Int(try integers("SELECT coalesce(sum(total), 0) FROM mailboxes", []).first ?? 0)
    }

    func integers(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> [Int64] {
        let statement = try database.cached(sql)
        try statement.bind(values)
        defer { statement.reset() }
        var all: [Int64] = []
        while try statement.step() { all.append(try statement.integer(at: 0)) }
        return all
    }
}
