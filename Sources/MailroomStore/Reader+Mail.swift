import MailroomCore

/// Mail read back: what was mailed with a message, its raw bytes, pages of it for export, and
/// the addresses that route mail to mailboxes.
extension Reader {
    /// What was mailed with message `id`; nil for a message posted through the page.
    public func mailDetails(_ id: MessageID) throws(StoreError) -> MailDetails? {
        let statement = try database.cached("""
            SELECT raw, envelope_from, envelope_to, from_header, to_header, cc_header, sent_at, message_id, html, size, peer
            FROM mail WHERE id = ?
            """)
        try statement.bind([.integer(id.rawValue)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let raw = try statement.integer(at: 0)
        let envelopeTo = try statement.text(at: 2)
        let size = Int(try statement.integer(at: 9))
        let html: String?
        if statement.isBlob(at: 8) {
            guard let text = PackedHTML.html(of: try statement.blob(at: 8), codec: database.codec, limit: PackedHTML.limit(forMailOf: size)) else {
                throw .invalidData("the HTML of message \(id.rawValue) does not decompress")
            }
            html = text
        } else {
            html = try statement.optionalText(at: 8)
        }
        var details = MailDetails(
            raw: raw, envelopeFrom: try statement.text(at: 1),
            envelopeTo: envelopeTo.isEmpty ? [] : envelopeTo.split(separator: "\n").map(String.init),
            fromHeader: try statement.text(at: 3), toHeader: try statement.text(at: 4), ccHeader: try statement.text(at: 5),
            sentAt: try statement.optionalInteger(at: 6), messageID: try statement.optionalText(at: 7),
            html: html, size: size, peer: try statement.text(at: 10),
            attachments: [])
        details.attachments = try attachments(ofRaw: raw)
        return details
    }

    private func attachments(ofRaw raw: Int64) throws(StoreError) -> [StoredAttachment] {
        let statement = try database.cached("""
            SELECT part, name, type, size, content_id, content_start, content_length, encoding
            FROM attachments WHERE raw = ? ORDER BY part
            """)
        try statement.bind([.integer(raw)])
        defer { statement.reset() }
        var all: [StoredAttachment] = []
        while try statement.step() {
            var place: StoredAttachment.Place?
            if let start = try statement.optionalInteger(at: 5), let length = try statement.optionalInteger(at: 6),
               let encoding = try statement.optionalText(at: 7) {
                place = StoredAttachment.Place(start: Int(start), length: Int(length), encoding: encoding)
            }
            all.append(StoredAttachment(
                part: Int(try statement.integer(at: 0)), name: try statement.optionalText(at: 1),
                type: try statement.text(at: 2), size: Int(try statement.integer(at: 3)),
                contentID: try statement.optionalText(at: 4), place: place))
        }
        return all
    }

    /// The bytes of a mailed message exactly as received, by the raw id in its details.
    public func rawMail(_ raw: Int64) throws(StoreError) -> [UInt8]? {
        try database.rawBytes(raw)
    }

    /// How many bytes raw message `raw` has; nil when it is gone.
    public func rawMailLength(_ raw: Int64) throws(StoreError) -> Int? {
        try database.rawLength(raw)
    }

    /// `count` bytes of raw message `raw` from `offset`, read in place (SQLite's incremental
    /// blob I/O reads only the pages of the frames that hold them); nil when the message is
    /// gone or shorter.
    public func rawMail(_ raw: Int64, at offset: Int, count: Int) throws(StoreError) -> [UInt8]? {
        try database.rawBytes(raw, at: offset, count: count)
    }

    /// Up to `limit` messages of `box` from the bottom up (the order they arrived in), after the
    /// one at `rank` when given: what `mailroom export` writes, a page at a time.
    public func exportPage(of box: MailboxID, after rank: Int64?, limit: Int) throws(StoreError) -> [ExportedMessage] {
        let statement = try database.cached("""
            SELECT m.id, m.rank, m.created_at, h.subject, h.author, \(Schema.body(of: "b")), x.raw, x.envelope_from,
                \(Schema.tagNames(of: "m.id"))
            FROM messages m CROSS JOIN headers h ON h.id = m.id JOIN bodies b ON b.id = m.id
            LEFT JOIN mail x ON x.id = m.id
            WHERE m.mailbox = ? AND m.rank > ? ORDER BY m.rank LIMIT ?
            """)
        try statement.bind([.integer(box.rawValue), .integer(rank ?? Int64.min), .integer(Int64(limit))])
        defer { statement.reset() }
        var page: [ExportedMessage] = []
        while try statement.step() {
            var raw: [UInt8]?
            if let rawID = try statement.optionalInteger(at: 6) { raw = try rawMail(rawID) }
            page.append(ExportedMessage(
                id: MessageID(try statement.integer(at: 0)), rank: try statement.integer(at: 1),
                createdAt: try statement.integer(at: 2), subject: try statement.text(at: 3),
                author: try statement.text(at: 4), body: try statement.text(at: 5), raw: raw,
                envelopeFrom: try statement.optionalText(at: 7),
                tags: try statement.optionalText(at: 8).map(Schema.tags(inNames:)) ?? []))
        }
        return page
    }

    /// Every mailbox's routing addresses, in the order they sort.
    public func addresses() throws(StoreError) -> [MailboxID: [String]] {
        let statement = try database.cached("SELECT pattern, mailbox FROM addresses ORDER BY mailbox, pattern")
        try statement.bind([])
        defer { statement.reset() }
        var all: [MailboxID: [String]] = [:]
        while try statement.step() {
            all[MailboxID(rawValue: try statement.integer(at: 1)), default: []].append(try statement.text(at: 0))
        }
        return all
    }
}
