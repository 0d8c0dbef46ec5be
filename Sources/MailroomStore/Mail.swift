import MailroomCore

/// A message that arrived over SMTP, parsed, ready to be stored in one or more mailboxes.
public struct IncomingMail: Sendable {
    public var subject: String
    /// The sender's name as the list shows it.
    public var sender: String
    /// The text to show: text/plain, or text made from the HTML.
    public var text: String
    public var html: String?
    public var envelopeFrom: String
    public var envelopeTo: [String]
    public var fromHeader: String
    public var toHeader: String
    public var ccHeader: String
    public var sentAt: Int64?
    public var messageID: String?
    public var attachments: [StoredAttachment]
    /// The client's numeric address.
    public var peer: String
    /// The message exactly as received.
    public var raw: [UInt8]

    public init(subject: String, sender: String, text: String, html: String?, envelopeFrom: String, envelopeTo: [String],
                fromHeader: String, toHeader: String, ccHeader: String, sentAt: Int64?, messageID: String?,
                attachments: [StoredAttachment], peer: String, raw: [UInt8]) {
        self.subject = subject
        self.sender = sender
        self.text = text
        self.html = html
        self.envelopeFrom = envelopeFrom
        self.envelopeTo = envelopeTo
        self.fromHeader = fromHeader
        self.toHeader = toHeader
        self.ccHeader = ccHeader
        self.sentAt = sentAt
        self.messageID = messageID
        self.attachments = attachments
        self.peer = peer
        self.raw = raw
    }
}

/// One attachment as listed: its place among the message's attachments, counted from 0.
public struct StoredAttachment: Equatable, Sendable {
    public var part: Int
    public var name: String?
    public var type: String
    public var size: Int
    public var contentID: String?

    public init(part: Int, name: String?, type: String, size: Int, contentID: String?) {
        self.part = part
        self.name = name
        self.type = type
        self.size = size
        self.contentID = contentID
    }
}

/// What the message page shows of a mailed message besides its text.
public struct MailDetails: Equatable, Sendable {
    /// Names the raw bytes, shared by every copy of the message.
    public var raw: Int64
    public var envelopeFrom: String
    public var envelopeTo: [String]
    public var fromHeader: String
    public var toHeader: String
    public var ccHeader: String
    public var sentAt: Int64?
    public var messageID: String?
    public var html: String?
    public var size: Int
    public var peer: String
    public var attachments: [StoredAttachment]
}

extension Transaction {
    /// Up to this size a message's bytes are bound like any value (SQLite copies them once);
    /// larger ones are written into a blob of their size, which costs a blob handle.
    static let copiedRawBytes = 256 * 1_024

    /// Stores `mail` once, with one copy on top of each of `boxes` (at least the Inbox); the ids
    /// of the copies, in the order of `boxes`.
    public func addMail(_ mail: IncomingMail, to boxes: [MailboxID], at time: Int64) throws(StoreError) -> [MessageID] {
        let targets = boxes.isEmpty ? [MailboxID.inbox] : boxes
        let raw = try takeCounter("next_raw_id")
        if mail.raw.count <= Self.copiedRawBytes {
            try run("INSERT INTO raw_mail (id, bytes) VALUES (?, ?)", [.integer(raw), .blob(mail.raw)])
        } else {
            // Written in place, piece by piece: SQLite makes no copy of a large message.
            try run("INSERT INTO raw_mail (id, bytes) VALUES (?, zeroblob(?))", [.integer(raw), .integer(mail.raw.count)])
            try database.writeBlob(table: "raw_mail", column: "bytes", row: raw, mail.raw)
        }
        for attachment in mail.attachments {
            try run("INSERT INTO attachments (raw, part, name, type, size, content_id) VALUES (?, ?, ?, ?, ?, ?)", [
                .integer(raw), .integer(attachment.part), attachment.name.map { .text($0) } ?? .null,
                .text(attachment.type), .integer(attachment.size), attachment.contentID.map { .text($0) } ?? .null,
            ])
        }
        let subject = mail.subject.isEmpty ? "(no subject)" : mail.subject
        var ids: [MessageID] = []
        for box in targets {
            let message = try add(subject: subject, body: mail.text, author: mail.sender, to: box, at: time) { id throws(StoreError) in
                try run("""
                    INSERT INTO mail (id, raw, envelope_from, envelope_to, from_header, to_header, cc_header, sent_at,
                                      message_id, html, size, peer)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [
                        .integer(id.rawValue), .integer(raw), .text(mail.envelopeFrom),
                        .text(mail.envelopeTo.joined(separator: "\n")), .text(mail.fromHeader), .text(mail.toHeader),
                        .text(mail.ccHeader), .optional(mail.sentAt), mail.messageID.map { .text($0) } ?? .null,
                        mail.html.map { .text($0) } ?? .null, .integer(mail.raw.count), .text(mail.peer),
                    ])
            }
            ids.append(message.id)
        }
        return ids
    }

    /// The mailboxes that `recipients` name (see `Routing`); the Inbox when none does.
    public func route(_ recipients: [String]) throws(StoreError) -> [MailboxID] {
        let boxes = try mailboxes().map { (id: $0.id, name: $0.name) }
        var addresses: [(pattern: String, mailbox: MailboxID)] = []
        let statement = try database.cached("SELECT pattern, mailbox FROM addresses")
        try statement.bind([])
        defer { statement.reset() }
        while try statement.step() {
            addresses.append((try statement.text(at: 0), MailboxID(rawValue: try statement.integer(at: 1))))
        }
        return Routing(mailboxes: boxes, addresses: addresses).mailboxes(for: recipients)
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
        var details = MailDetails(
            raw: raw, envelopeFrom: try statement.text(at: 1),
            envelopeTo: envelopeTo.isEmpty ? [] : envelopeTo.split(separator: "\n").map(String.init),
            fromHeader: try statement.text(at: 3), toHeader: try statement.text(at: 4), ccHeader: try statement.text(at: 5),
            sentAt: try statement.optionalInteger(at: 6), messageID: try statement.optionalText(at: 7),
            html: try statement.optionalText(at: 8), size: Int(try statement.integer(at: 9)), peer: try statement.text(at: 10),
            attachments: [])
        details.attachments = try attachments(ofRaw: raw)
        return details
    }

    private func attachments(ofRaw raw: Int64) throws(StoreError) -> [StoredAttachment] {
        let statement = try database.cached(
            "SELECT part, name, type, size, content_id FROM attachments WHERE raw = ? ORDER BY part")
        try statement.bind([.integer(raw)])
        defer { statement.reset() }
        var all: [StoredAttachment] = []
        while try statement.step() {
            all.append(StoredAttachment(
                part: Int(try statement.integer(at: 0)), name: try statement.optionalText(at: 1),
                type: try statement.text(at: 2), size: Int(try statement.integer(at: 3)),
                contentID: try statement.optionalText(at: 4)))
        }
        return all
    }

    /// The bytes of a mailed message exactly as received, by the raw id in its details.
    public func rawMail(_ raw: Int64) throws(StoreError) -> [UInt8]? {
        try database.readBlob(table: "raw_mail", column: "bytes", row: raw)
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
