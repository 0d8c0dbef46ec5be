import MailroomCore

/// One webhook call waiting to be made.
public struct DueWebhook: Sendable, Equatable {
    public var id: Int64
    public var target: String
    public var body: [UInt8]
    public var attempts: Int
    public var createdAt: Int64
}

extension Transaction {
    /// Queues `body` for each of `targets`, due now.
    public func queueWebhook(_ body: [UInt8], to targets: [String], message: MessageID?, at time: Int64) throws(StoreError) {
        // A row that touches neither search index: the index rows held for this commit's mail
        // stay held (see `Database.writeHeldIndexRows`), so the mail is still indexed together.
        try database.keepingIndexRowsHeld { () throws(StoreError) in
            try insertWebhooks(body, to: targets, message: message, at: time)
        }
    }

    private func insertWebhooks(_ body: [UInt8], to targets: [String], message: MessageID?, at time: Int64) throws(StoreError) {
        for target in targets {
            try run("""
                INSERT INTO webhooks (target, message, body, state, next_attempt, created_at, updated_at)
                VALUES (?, ?, ?, 'queued', ?, ?, ?)
                """, [.text(target), message.map { .integer($0.rawValue) } ?? .null, .blob(body), .integer(time), .integer(time), .integer(time)])
        }
    }

    /// Records how a call went: `sent` or `failed` drop the body; `queued` waits for `retryAt`.
    public func settleWebhook(_ id: Int64, _ state: String, reply: String, retryAt: Int64?, at time: Int64) throws(StoreError) {
        let done = state != "queued"
        try run("""
            UPDATE webhooks SET state = ?, reply = ?, attempts = attempts + 1, next_attempt = coalesce(?, next_attempt),
                updated_at = ?, body = CASE WHEN ? THEN x'' ELSE body END WHERE id = ?
            """, [.text(state), .text(reply), retryAt.map { .integer($0) } ?? .null, .integer(time), .boolean(done), .integer(id)])
    }
}

extension Reader {
    /// The oldest queued calls to `target`, up to `limit`, those due at `time` first in line:
    /// a target's calls go in the order they were queued, so a later one waits behind an
    /// earlier one that is not yet due.
    public func dueWebhooks(to target: String, at time: Int64, limit: Int, excluding busy: Set<Int64>) throws(StoreError) -> [DueWebhook] {
        let statement = try database.cached("""
            SELECT id, body, attempts, next_attempt, created_at FROM webhooks
            WHERE target = ? AND state = 'queued' ORDER BY id LIMIT ?
            """)
        try statement.bind([.text(target), .integer(Int64(limit + busy.count))])
        defer { statement.reset() }
        var due: [DueWebhook] = []
        while try statement.step() {
            let id = try statement.integer(at: 0)
            if busy.contains(id) { continue }
            // In order: the first not yet due holds back those after it.
            guard try statement.integer(at: 3) <= time, due.count < limit else { break }
            due.append(DueWebhook(id: id, target: target, body: try statement.blob(at: 1), attempts: Int(try statement.integer(at: 2)),
                                  createdAt: try statement.integer(at: 4)))
        }
        return due
    }

    /// Calls by state, for `/metrics`.
    public func webhookCounts() throws(StoreError) -> [String: Int] {
        let statement = try database.cached("SELECT state, count(*) FROM webhooks GROUP BY state")
        try statement.bind([])
        defer { statement.reset() }
        var counts: [String: Int] = [:]
        while try statement.step() { counts[try statement.text(at: 0)] = Int(try statement.integer(at: 1)) }
        return counts
    }
}
