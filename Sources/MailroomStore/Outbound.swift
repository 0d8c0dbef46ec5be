import MailroomCore

/// One recipient of mail going out, as the queue and the message page see it.
public struct OutboundRow: Equatable, Sendable {
    public enum State: String, Sendable {
        case queued, sending, sent, failed
    }

    public var id: Int64
    /// The `outbound_mail` row: what is sent to this recipient, with the others of the release.
    public var mail: Int64
    public var message: MessageID?
    public var recipient: String
    public var state: State
    public var attempts: Int
    public var nextAttempt: Int64
    /// The relay's last reply, or why it could not be reached.
    public var reply: String
    public var cause: String
    public var createdAt: Int64
    public var updatedAt: Int64

    /// Waiting again after a try that did not go through.
    public var isDeferred: Bool { state == .queued && attempts > 0 }
}

/// Mail due to go out: its bytes, envelope and the rows of its recipients that are due.
public struct DueMail: Sendable {
    public var mail: Int64
    public var sender: String
    public var bytes: [UInt8]
    public var rows: [(id: Int64, recipient: String, attempts: Int)]
}

extension Transaction {
    /// Queues `bytes` from `sender` to each of `recipients` (one row each), due now; the
    /// `outbound_mail` row's id.
    @discardableResult
    public func queueOutbound(
        _ bytes: [UInt8], from sender: String, to recipients: [String], message: MessageID?, cause: String, at time: Int64
    ) throws(StoreError) -> Int64 {
        try run("INSERT INTO outbound_mail (message, sender, bytes, cause, created_at) VALUES (?, ?, ?, ?, ?)",
                [message.map { .integer($0.rawValue) } ?? .null, .text(sender), .blob(bytes), .text(cause), .integer(time)])
        let mail = database.lastInsertedRow
        for recipient in recipients {
            try run("""
                INSERT INTO outbound (mail, recipient, state, next_attempt, updated_at) VALUES (?, ?, 'queued', ?, ?)
                """, [.integer(mail), .text(recipient), .integer(time), .integer(time)])
        }
        return mail
    }

    /// Marks `rows` as being sent: committed before the end of the data goes out.
    public func markSending(_ rows: [Int64], at time: Int64) throws(StoreError) {
        for row in rows {
            try run("UPDATE outbound SET state = 'sending', attempts = attempts + 1, updated_at = ? WHERE id = ? AND state = 'queued'",
                    [.integer(time), .integer(row)])
        }
    }

    /// Records how a try went for `row`: sent, failed for good, or queued again for `retryAt`.
    public func settle(_ row: Int64, _ state: OutboundRow.State, reply: String, retryAt: Int64? = nil, countAttempt: Bool = false,
                       at time: Int64) throws(StoreError) {
        try run("""
            UPDATE outbound SET state = ?, reply = ?, next_attempt = coalesce(?, next_attempt),
                attempts = attempts + ?, updated_at = ? WHERE id = ?
            """, [.text(state.rawValue), .text(reply), retryAt.map { .integer($0) } ?? .null, .integer(countAttempt ? 1 : 0),
                  .integer(time), .integer(row)])
    }

    /// Drops the bytes of mail `mail` once no recipient waits for them; after its rows are
    /// settled, in the same transaction.
    public func dropSentBytes(of mail: Int64) throws(StoreError) {
        try run("""
            UPDATE outbound_mail SET bytes = x'' WHERE id = ? AND length(bytes) > 0
              AND NOT EXISTS (SELECT 1 FROM outbound o WHERE o.mail = outbound_mail.id AND o.state IN ('queued', 'sending'))
            """, [.integer(mail)])
    }

    /// Seconds since row `row`'s mail was queued.
    public func outboundAge(_ row: Int64, at time: Int64) throws(StoreError) -> Int64 {
        time - (try integers("SELECT m.created_at FROM outbound o JOIN outbound_mail m ON m.id = o.mail WHERE o.id = ?",
                             [.integer(row)]).first ?? time)
    }

    /// After a restart: rows left `sending` are in doubt (the relay may have taken the mail
    /// before Mailroom stopped), so they fail with `reason` rather than risk a second copy;
    /// deferred rows are due at once. How many were in doubt.
    public func recoverOutbound(reason: String, at time: Int64) throws(StoreError) -> Int {
        let doubtful = try integers("SELECT id FROM outbound WHERE state = 'sending'", [])
        for row in doubtful { try settle(row, .failed, reply: reason, at: time) }
        for mail in try integers("SELECT DISTINCT mail FROM outbound WHERE id IN (SELECT value FROM json_each(?))",
                                 [.text("[" + doubtful.map(String.init).joined(separator: ",") + "]")]) {
            try dropSentBytes(of: mail)
        }
        try run("UPDATE outbound SET next_attempt = ? WHERE state = 'queued' AND next_attempt > ?", [.integer(time), .integer(time)])
        return doubtful.count
    }
}

extension Reader {
    /// Up to `limit` mails with recipients due at `time`, oldest first, leaving out `busy` mails.
    public func dueOutbound(at time: Int64, limit: Int, excluding busy: Set<Int64>) throws(StoreError) -> [DueMail] {
        let statement = try database.cached("""
            SELECT DISTINCT mail FROM outbound WHERE state = 'queued' AND next_attempt <= ? ORDER BY next_attempt, id LIMIT ?
            """)
        try statement.bind([.integer(time), .integer(Int64(limit + busy.count))])
        var mails: [Int64] = []
        while try statement.step() {
            let mail = try statement.integer(at: 0)
            if !busy.contains(mail) && mails.count < limit { mails.append(mail) }
        }
        statement.reset()
        var due: [DueMail] = []
        for mail in mails {
            let header = try database.cached("SELECT sender FROM outbound_mail WHERE id = ?")
            try header.bind([.integer(mail)])
            guard try header.step() else {
                header.reset()
                continue
            }
            let sender = try header.text(at: 0)
            header.reset()
            let bytes = try database.readBlob(table: "outbound_mail", column: "bytes", row: mail) ?? []
            let rows = try database.cached("""
                SELECT id, recipient, attempts FROM outbound WHERE mail = ? AND state = 'queued' AND next_attempt <= ? ORDER BY id
                """)
            try rows.bind([.integer(mail), .integer(time)])
            var found: [(id: Int64, recipient: String, attempts: Int)] = []
            while try rows.step() {
                found.append((try rows.integer(at: 0), try rows.text(at: 1), Int(try rows.integer(at: 2))))
            }
            rows.reset()
            due.append(DueMail(mail: mail, sender: sender, bytes: bytes, rows: found))
        }
        return due
    }

    /// When the next queued row is due, if any.
    public func nextOutboundAttempt() throws(StoreError) -> Int64? {
        try integers("SELECT min(next_attempt) FROM outbound WHERE state = 'queued'", []).first
    }

    /// Every recipient of mail sent on from message `id`, oldest first.
    public func outbound(of id: MessageID) throws(StoreError) -> [OutboundRow] {
        try outboundRows("WHERE m.message = ? ORDER BY o.id", [.integer(id.rawValue)])
    }

    /// Rows by state, for `/metrics`: queued (and of those deferred), sending, sent, failed.
    public func outboundCounts() throws(StoreError) -> [String: Int] {
        let statement = try database.cached("""
            SELECT state, attempts > 0, count(*) FROM outbound GROUP BY state, attempts > 0
            """)
        try statement.bind([])
        defer { statement.reset() }
        var counts: [String: Int] = [:]
        while try statement.step() {
            let state = try statement.text(at: 0)
            let count = Int(try statement.integer(at: 2))
            counts[state, default: 0] += count
            let retried = try statement.integer(at: 1) == 1
            if state == "queued" && retried { counts["deferred", default: 0] += count }
        }
        return counts
    }

    func outboundRows(_ tail: String, _ values: [SQLValue]) throws(StoreError) -> [OutboundRow] {
        let statement = try database.cached("""
            SELECT o.id, o.mail, m.message, o.recipient, o.state, o.attempts, o.next_attempt, o.reply, m.cause, m.created_at, o.updated_at
            FROM outbound o JOIN outbound_mail m ON m.id = o.mail \(tail)
            """)
        try statement.bind(values)
        defer { statement.reset() }
        var rows: [OutboundRow] = []
        while try statement.step() {
            guard let state = OutboundRow.State(rawValue: try statement.text(at: 4)) else {
                throw .invalidData("outbound row \(try statement.integer(at: 0)) has an unknown state")
            }
            rows.append(OutboundRow(
                id: try statement.integer(at: 0), mail: try statement.integer(at: 1),
                message: try statement.optionalInteger(at: 2).map { MessageID($0) }, recipient: try statement.text(at: 3),
                state: state, attempts: Int(try statement.integer(at: 5)), nextAttempt: try statement.integer(at: 6),
                reply: try statement.text(at: 7), cause: try statement.text(at: 8), createdAt: try statement.integer(at: 9),
                updatedAt: try statement.integer(at: 10)))
        }
        return rows
    }
}
