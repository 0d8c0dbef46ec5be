import Glibc
import MailroomCore

/// Mail in: stored once per raw message, a row per mailbox it is routed to, and imports in batches.
extension Transaction {
    /// Where `mail`'s text is in its raw bytes, when it is all of the body after the header, byte
    /// for byte but for line ends (CRLF or a lone CR in the bytes, LF in the text; those at the
    /// end left out): plain text sent as it is, nearly all small machine-made mail. The body is
    /// then kept once, in the compressed raw mail, not again beside it, and read back with its
    /// line ends made LF (`LineEnds`). A text that was decoded, converted or made from HTML
    /// differs from the bytes and is kept as it is.
    static func bodyInRaw(_ mail: IncomingMail) -> Range<Int>? {
        var text = mail.text
        guard text.utf8.count >= minimumSharedBody else { return nil }
        return mail.raw.withUnsafeBufferPointer { raw -> Range<Int>? in
            // The body starts after the first empty line (LF LF or LF CR LF).
            var start: Int?
            var index = 0
            while index + 1 < raw.count {
                if raw[index] == 10 && raw[index + 1] == 10 { start = index + 2; break }
                if raw[index] == 10 && raw[index + 1] == 13 && index + 2 < raw.count && raw[index + 2] == 10 { start = index + 3; break }
                index += 1
            }
            guard let start else { return nil }
            // A text with a CR of its own is not what `LineEnds.text(of:)` makes of any bytes.
            let length = text.withUTF8 { text -> Int? in
                guard let base = text.baseAddress, memchr(base, 13, text.count) == nil else { return nil }
                return LineEnds.span(of: text, in: raw, from: start)
            }
            guard let length, raw[(start + length)...].allSatisfy({ $0 == 10 || $0 == 13 }) else { return nil }
            return start..<(start + length)
        }
    }

    /// A shorter text is kept in its row: it costs about what its place in the raw mail would,
    /// and reads back without decompressing anything.
    static let minimumSharedBody = 64

    /// Up to this size a message's bytes are bound like any value (SQLite copies them once);
    /// larger ones are written into a blob of their size, which costs a blob handle.
    static let copiedRawBytes = 256 * 1_024

    /// Stores `mail` once, with one copy on top of each of `boxes` (at least the Inbox); the ids
    /// of the copies, in the order of `boxes`.
    public func addMail(_ mail: IncomingMail, to boxes: [MailboxID], at time: Int64) throws(StoreError) -> [MessageID] {
        try addMail(mail, to: boxes, at: time, importKey: nil)
    }

    /// Stores imported `messages` on top of `box`, in order, each unless a message with the same
    /// import key (or one of its former keys) is already kept, in this batch or before: how many
    /// were added. The counters and the mailbox's top are read once and written once for the
    /// whole batch, so a message costs only its own rows.
    public func importMail(_ messages: [ImportedMail], to box: MailboxID) throws(StoreError) -> Int {
        try requireMailbox(box)
        var nextRaw = try counter("next_raw_id")
        var nextID = try counter(Counter.nextMessageID)
        var rank = try rankOnTop(of: box)
        var added = 0
        let firstID = nextID
        // What the index is given of bodies kept in their raw mail, by message id.
        var prepared: [(id: Int64, body: String)] = []
        // The batch is indexed at the end, in one statement (see schema 7).
        try holdIndexTriggers(true)
        for imported in messages {
            let mail = imported.mail
            guard try !isKept(underAnyOf: imported.formerKeys), try storeRaw(mail, as: nextRaw, in: box, importKey: imported.key) else { continue }
            if let kept = imported.keptOnce { prepared.append((nextID, kept.indexedBody)) }
            let raw = nextRaw
            nextRaw += 1
            let subject = mail.subject.isEmpty ? "(no subject)" : mail.subject
            let message = Message(id: MessageID(nextID), subject: subject, body: mail.text, author: mail.sender, createdAt: imported.time)
            nextID += 1
            try insertRows(message, into: box, rank: rank, origin: nil, isUnread: imported.isUnread, isFlagged: imported.isFlagged,
                           bodyInRaw: imported.keptOnce?.bodyInRaw, preview: imported.keptOnce?.preview) {
                id throws(StoreError) in try insertDetails(of: mail, raw: raw, as: id)
            }
            try addTags(mail.tags, toMessages: [message.id])
            rank += Rank.gap
            added += 1
        }
        let batch = Schema.indexing(
            id: "h.id", subject: "h.subject", author: "h.author", body: Schema.body(of: "b"),
            from: "FROM headers h JOIN bodies b ON b.id = h.id WHERE h.id >= ? AND h.id < ? AND b.raw_start IS NULL")
        for statement in batch { try run(statement, [.integer(firstID), .integer(nextID)]) }
        // A body kept in its raw mail is not read back from it: the reading thread prepared what
        // the index gets.
        for (id, body) in prepared { try database.indexMail(id, body: body) }
        try holdIndexTriggers(false)
        try run("UPDATE counters SET value = ? WHERE name = ?", [.integer(nextRaw), .text("next_raw_id")])
        try run("UPDATE counters SET value = ? WHERE name = ?", [.integer(nextID), .text(Counter.nextMessageID)])
        return added
    }

    private func addMail(_ mail: IncomingMail, to boxes: [MailboxID], at time: Int64, importKey: [UInt8]?) throws(StoreError) -> [MessageID] {
        // Mail stored one message after another is indexed together, once any other statement
        // runs (see `Database.writeHeldIndexRows`); until then only these statements run.
        try database.keepingIndexRowsHeld { () throws(StoreError) -> [MessageID] in
            let targets = boxes.isEmpty ? [MailboxID.inbox] : boxes
            let raw = try takeHeldCounter("next_raw_id")
            _ = try storeRaw(mail, as: raw, in: targets[0], importKey: nil)
            let subject = mail.subject.isEmpty ? "(no subject)" : mail.subject
            let text = mail.prepared ?? PreparedText(mail)
            var ids: [MessageID] = []
            // Indexed from the prepared text rather than by the trigger, which would read the body
            // back (out of the compressed raw mail, when it is kept there) and work out again what
            // `text` holds, on the one writer. The trigger stays off until the held rows are written.
            if !database.indexTriggerHeld {
                try holdIndexTriggers(true)
                database.indexTriggerHeld = true
            }
            for box in targets {
                let (id, rank) = try newHeldMessagePlace(in: box)
                let message = Message(id: MessageID(id), subject: subject, body: mail.text, author: mail.sender, createdAt: time)
                try insertRows(message, into: box, rank: rank, origin: nil, isUnread: true, isFlagged: false,
                               bodyInRaw: text.bodyInRaw, preview: text.preview) { id throws(StoreError) in
                    try insertDetails(of: mail, raw: raw, as: id)
                }
                database.heldIndexRows.append((id, text.indexedBody))
                ids.append(message.id)
            }
            try addTags(mail.tags, toMessages: ids)
            return ids
        }
    }

    /// `takeCounter` for mail stored one message after another: the counter is read once a run
    /// and written once, when the run ends (`Database.writeHeldIndexRows`).
    private func takeHeldCounter(_ name: String) throws(StoreError) -> Int64 {
        let value: Int64
        if let held = database.heldCounters[name] { value = held } else { value = try counter(name) }
        database.heldCounters[name] = value + 1
        return value
    }

    /// `newMessagePlace` for mail stored one message after another: a mailbox's top is asked
    /// of the table once a run, then known from the message put there last.
    private func newHeldMessagePlace(in box: MailboxID) throws(StoreError) -> (id: Int64, rank: Int64) {
        let id = try takeHeldCounter(Counter.nextMessageID)
        let rank: Int64
        if let top = database.heldTops[box] {
            rank = top + Rank.gap
        } else {
            try requireMailbox(box)
            rank = try rankOnTop(of: box)
        }
        database.heldTops[box] = rank
        return (id, rank)
    }

    /// While held, a new body row is not indexed by its trigger (`index_body`): the caller
    /// indexes it, in bulk or from text prepared ahead.
    private func holdIndexTriggers(_ held: Bool) throws(StoreError) {
        try run(Database.indexTrigger(held: held), [])
    }

}

extension Database {
    /// Puts message `id` in both indexes with `body` as the text of its body, and the words of
    /// its rows (subject, senders, recipients) as the triggers that take it out again read them.
    /// One row per statement, as `VALUES`, which opens no statement journal (and so makes the
    /// index flush nothing).
    func indexMail(_ id: Int64, body: String) throws(StoreError) {
        let words = try cached("""
            SELECT h.subject, \(Schema.indexedAuthor(id: "h.id", header: "h.author")), \(Schema.indexedRecipients(id: "h.id"))
            FROM headers h WHERE h.id = ?
            """)
        try words.bind([.integer(id)])
        guard try words.step() else {
            words.reset()
            throw .invalidData("message \(id) has no headers")
        }
        let (subject, author, recipients) = (try words.text(at: 0), try words.text(at: 1), try words.text(at: 2))
        words.reset()
        try cached("INSERT INTO search (rowid, subject, author, recipients, body) VALUES (?, ?, ?, ?, ?)").run(
            [.integer(id), .text(subject), .text(author), .text(recipients), .text(body)])
        // What the substring index is given, worked out here as `spaceless(...)` works it out
        // in SQL: nothing at all for mail without such a script.
        let substrings = [subject, author, recipients, body].map(SearchText.spaceless)
        if substrings.contains(where: { !$0.isEmpty }) {
            try cached("INSERT INTO search_cjk (rowid, subject, author, recipients, body) VALUES (?, ?, ?, ?, ?)").run(
                [.integer(id)] + substrings.map { .text($0) })
        }
    }
}

extension Transaction {

    /// Whether a kept message has one of `keys` as its import key.
    private func isKept(underAnyOf keys: [[UInt8]]) throws(StoreError) -> Bool {
        guard !keys.isEmpty else { return false }
        let lookup = try database.cached("SELECT 1 FROM raw_mail WHERE import_key = ?")
        for key in keys {
            try lookup.bind([.blob(key)])
            let found = try lookup.step()
            lookup.reset()
            if found { return true }
        }
        return false
    }

    /// Writes `mail`'s raw bytes, compressed (with `box`'s dictionary when it has one; see
    /// RawPacking.swift), and what was parsed of its parts, as raw message `raw`; with an import
    /// key, only when no kept message has that key: false then, and nothing written.
    private func storeRaw(_ mail: IncomingMail, as raw: Int64, in box: MailboxID, importKey: [UInt8]?) throws(StoreError) -> Bool {
        let key: SQLValue = importKey.map { .blob($0) } ?? .null
        let dictionary = mail.packed == nil ? try database.dictionary(forMailbox: box.rawValue) : nil
        // A key already kept leaves the row unwritten (a clash of ids still fails).
        let unlessKnown = "ON CONFLICT (import_key) WHERE import_key IS NOT NULL DO NOTHING"
        let packing: RawPacking
        if mail.raw.count <= RawPacking.frameBytes {
            var blob = mail.packed?.blob ?? []
            if let ahead = mail.packed, ahead.packing.length == mail.raw.count {
                packing = ahead.packing
            } else {
                (blob, packing) = try database.pack(mail.raw, dictionary: dictionary)
            }
            try run("INSERT INTO raw_mail (id, bytes, import_key) VALUES (?, ?, ?) \(unlessKnown)", [.integer(raw), .blob(blob), key])
            guard database.changes == 1 else { return false }
        } else {
            // A large mail is compressed twice, a frame at a time: once for its size, then into a
            // blob of that size in place. Memory holds one frame, never the whole compressed mail.
            let sized = try database.compressFrames(of: mail.raw, dictionary: dictionary) { _ throws(StoreError) in }
            let total = sized.frameSizes?.reduce(0, +) ?? 0
            try run("INSERT INTO raw_mail (id, bytes, import_key) VALUES (?, zeroblob(?), ?) \(unlessKnown)",
                    [.integer(raw), .integer(Int64(total)), key])
            guard database.changes == 1 else { return false }
            var offset = 0
            packing = try database.compressFrames(of: mail.raw, dictionary: dictionary) { frame throws(StoreError) in
                guard offset + frame.count <= total else { throw .failed("zstd made other frames the second time") }
                try database.writeBlob(table: "raw_mail", column: "bytes", row: raw, frame, at: offset)
                offset += frame.count
            }
            guard packing == sized else { throw .failed("zstd made other frames the second time") }
        }
        try storePacking(packing, of: raw)
        for attachment in mail.attachments {
            let place = attachment.place
            try run("""
                INSERT INTO attachments (raw, part, name, type, size, content_id, content_start, content_length, encoding)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [
                .integer(raw), .integer(attachment.part), attachment.name.map { .text($0) } ?? .null,
                .text(attachment.type), .integer(attachment.size), attachment.contentID.map { .text($0) } ?? .null,
                .optional(place.map { Int64($0.start) }), .optional(place.map { Int64($0.length) }),
                place.map { .text($0.encoding) } ?? .null,
            ])
        }
        return true
    }

    /// The row of message `id` that says it was mailed: its envelope and headers, its raw bytes,
    /// and how many of its parts are listed as attachments (the parts are stored by then).
    private func insertDetails(of mail: IncomingMail, raw: Int64, as id: MessageID) throws(StoreError) {
        let html = mail.packedHTML.map { .blob($0) } ?? PackedHTML.stored(mail.html, mailSize: mail.raw.count, codec: database.codec)
        try run("""
            INSERT INTO mail (id, raw, envelope_from, envelope_to, from_header, to_header, cc_header, sent_at,
                              message_id, html, size, peer, listed_attachments)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,
                    \(mail.attachments.isEmpty ? "0" : "(SELECT count(*) FROM attachments a WHERE a.raw = ?2 AND \(Schema.listedAttachment("a", html: "?13")))"))
            """, [
                .integer(id.rawValue), .integer(raw), .text(mail.envelopeFrom),
                .text(mail.envelopeTo.joined(separator: "\n")), .text(mail.fromHeader), .text(mail.toHeader),
                .text(mail.ccHeader), .optional(mail.sentAt), mail.messageID.map { .text($0) } ?? .null,
                html, .integer(mail.raw.count), .text(mail.peer),
            ] + (mail.attachments.isEmpty ? [] : [mail.html.map { .text($0) } ?? .null]))
    }

    /// Replaces the addresses that route mail to `box`.
    public func setAddresses(_ patterns: [String], for box: MailboxID) throws(StoreError) {
        try run("DELETE FROM addresses WHERE mailbox = ?", [.integer(box.rawValue)])
        for pattern in patterns {
            try run("INSERT OR IGNORE INTO addresses (pattern, mailbox) VALUES (?, ?)", [.text(pattern), .integer(box.rawValue)])
        }
    }
}

extension Reader {
    /// The mailboxes that `recipients` name (see `Routing`); the Inbox when none does.
    public func route(_ recipients: [String]) throws(StoreError) -> [MailboxID] {
        try routing().mailboxes(for: recipients)
    }

    /// The routing table as this reader sees it: on the writer, the one kept from the last
    /// commit, unless this transaction has changed it.
    func routing() throws(StoreError) -> Routing {
        if !database.routingChanged, let kept = database.keptRouting { return kept }
        let boxes = try mailboxes().map { (id: $0.id, name: $0.name) }
        var addresses: [(pattern: String, mailbox: MailboxID)] = []
        let statement = try database.cached("SELECT pattern, mailbox FROM addresses")
        try statement.bind([])
        defer { statement.reset() }
        while try statement.step() {
            addresses.append((try statement.text(at: 0), MailboxID(rawValue: try statement.integer(at: 1))))
        }
        let routing = Routing(mailboxes: boxes, addresses: addresses)
        if database.keepsRouting && !database.routingChanged { database.keptRouting = routing }
        return routing
    }
}
