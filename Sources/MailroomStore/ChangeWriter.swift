import MailroomCore

/// Writes one `Changes` in one transaction, with statements compiled once and reused.
final class ChangeWriter {
    private let database: Database
    private let upsertMailbox: Statement
    private let upsertMessage: Statement
    private let deleteMessage: Statement
    private let deleteMailbox: Statement
    private let raiseCounter: Statement

    init(database: Database) throws(StoreError) {
        self.database = database
        upsertMailbox = try database.prepare("""
            INSERT INTO mailboxes (id, name) VALUES (?, ?)
            ON CONFLICT (id) DO UPDATE SET name = excluded.name
            """, persistent: true)
        upsertMessage = try database.prepare("""
            INSERT INTO messages (id, mailbox, position, subject, body, author, created_at, unread, flagged,
                                  origin_mailbox, origin_offset, origin_anchor)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET
                mailbox = excluded.mailbox, position = excluded.position, subject = excluded.subject,
                body = excluded.body, author = excluded.author, created_at = excluded.created_at,
                unread = excluded.unread, flagged = excluded.flagged,
                origin_mailbox = excluded.origin_mailbox, origin_offset = excluded.origin_offset,
                origin_anchor = excluded.origin_anchor
            """, persistent: true)
        deleteMessage = try database.prepare("DELETE FROM messages WHERE id = ?", persistent: true)
        deleteMailbox = try database.prepare("DELETE FROM mailboxes WHERE id = ?", persistent: true)
        // Counters only ever go up, so an id handed out once is never handed out again.
        raiseCounter = try database.prepare("""
            INSERT INTO counters (name, value) VALUES (?, ?)
            ON CONFLICT (name) DO UPDATE SET value = excluded.value WHERE excluded.value > counters.value
            """, persistent: true)
    }

    /// Writes all of `changes` or, when anything fails, nothing.
    func write(_ changes: Changes) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            // New mailboxes before the messages moving in, messages gone before the mailboxes
            // that held them: the foreign keys hold after every statement, not only at COMMIT.
            for header in changes.savedMailboxes {
                try upsertMailbox.run([.integer(header.id.rawValue), .text(header.name)])
            }
            for row in changes.savedMessages {
                try upsertMessage.run(Self.values(of: row))
            }
            for id in changes.deletedMessages {
                try deleteMessage.run([.integer(id.rawValue)])
            }
            for id in changes.deletedMailboxes {
                try deleteMailbox.run([.integer(id.rawValue)])
            }
            try raiseCounter.run([.text(Counter.nextMessageID), .integer(changes.nextMessageID)])
            try raiseCounter.run([.text(Counter.nextMailboxID), .integer(changes.nextMailboxID)])
        }
    }

    private static func values(of row: StoredMessage) -> [SQLValue] {
        let message = row.message
        return [
            .integer(message.id.rawValue), .integer(row.mailbox.rawValue), .integer(row.position),
            .text(message.subject), .text(message.body), .text(message.author), .integer(message.createdAt),
            .boolean(message.isUnread), .boolean(message.isFlagged),
            .optional(message.origin?.mailbox.rawValue), .optional(message.origin.map { Int64($0.offset) }),
            .optional(message.origin?.anchor?.rawValue),
        ]
    }
}
