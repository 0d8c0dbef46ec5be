import MailroomCore

/// Whole libraries and single messages loaded as they are, with their ids and ranks.
extension Transaction {
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
        try insertRows(message, into: box, rank: rank, origin: origin, isUnread: true, isFlagged: false) { _ throws(StoreError) in }
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
}
