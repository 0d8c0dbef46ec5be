import MailroomCore

/// What a list in another tool's API shows of a mailed message besides its row: its address
/// headers as decoded, the envelope, the Message-ID, the size and the attachments listed.
public struct MailSummary: Equatable, Sendable {
    public var fromHeader: String
    public var toHeader: String
    public var ccHeader: String
    public var envelopeFrom: String
    public var envelopeTo: [String]
    public var messageID: String?
    public var size: Int
    /// Attachments as the pages list them (inline pictures are not).
    public var attachments: Int
}

extension Reader {
    /// The summaries of every mailed message among `ids`, in one statement; posted messages
    /// (no mail row) have none.
    public func mailSummaries(of ids: [MessageID]) throws(StoreError) -> [MessageID: MailSummary] {
        guard !ids.isEmpty else { return [:] }
        let statement = try database.cached("""
            SELECT id, from_header, to_header, cc_header, envelope_from, envelope_to, message_id, size, listed_attachments
            FROM mail WHERE id IN (SELECT value FROM json_each(?))
            """)
        try statement.bind([.text(Self.jsonArray(of: ids))])
        defer { statement.reset() }
        var found: [MessageID: MailSummary] = [:]
        while try statement.step() {
            let envelope = try statement.text(at: 5)
            found[MessageID(try statement.integer(at: 0))] = MailSummary(
                fromHeader: try statement.text(at: 1), toHeader: try statement.text(at: 2), ccHeader: try statement.text(at: 3),
                envelopeFrom: try statement.text(at: 4),
                envelopeTo: envelope.isEmpty ? [] : envelope.split(separator: "\n").map(String.init),
                messageID: try statement.optionalText(at: 6), size: Int(try statement.integer(at: 7)),
                attachments: Int(try statement.integer(at: 8)))
        }
        return found
    }

    /// The rank key of the row `offset` rows below the top of `box` (0: the top row), or nil
    /// past the end: a walk of the mailbox's rank index alone, for a client that jumps to a
    /// position instead of paging on from a key.
    public func key(at offset: Int, in box: MailboxID) throws(StoreError) -> Int64? {
        let statement = try database.cached("SELECT rank FROM messages WHERE mailbox = ? ORDER BY rank DESC LIMIT 1 OFFSET ?")
        try statement.bind([.integer(box.rawValue), .integer(Int64(max(offset, 0)))])
        defer { statement.reset() }
        return try statement.step() ? try statement.integer(at: 0) : nil
    }
}
