import MailroomCore

/// What a list row adds for a message that arrived over SMTP: who it was for, how large it is,
/// and whether it carries real attachments.
public struct RowDetails: Equatable, Sendable {
    /// The envelope recipient that routed the message to its mailbox, or else the first To
    /// address (the first envelope recipient when there is no To); nil when there is none.
    public var recipient: String?
    /// The raw message's size in bytes.
    public var size: Int
    public var hasAttachments: Bool
    /// Passed on to the relay as it arrived (`--relay-all`, `--relay-matching`).
    public var isRelayed: Bool

    public init(recipient: String?, size: Int, hasAttachments: Bool, isRelayed: Bool = false) {
        self.recipient = recipient
        self.size = size
        self.hasAttachments = hasAttachments
        self.isRelayed = isRelayed
    }
}

extension Reader {
    /// Whether attachment `a` of mail `m` is shown inline rather than attached: the opposite of
    /// `Schema.listedAttachment`, the one rule that intake, search and the pages share.
    static let isInlinePart = "NOT " + Schema.listedAttachment("a", html: "html_text(m.html, m.size)")

    /// The details of every mailed message among `ids`; posted messages (no mail row) have none.
    /// The recipient that routed each one to its mailbox is chosen as routing chose it, from
    /// that mailbox's name and addresses, read once for the page rather than for each row.
    ///
    /// A page's ids are usually close together: then the mail rows between the lowest and the
    /// highest are read in one range (mail of other mailboxes in between is skipped here), which
    /// costs nothing for the ids that have no mail row. Scattered ids are looked up one by one
    /// from a list.
    public func rowDetails(of ids: [MessageID]) throws(StoreError) -> [MessageID: RowDetails] {
        guard let lowest = ids.min(by: { $0.rawValue < $1.rawValue }),
              let highest = ids.max(by: { $0.rawValue < $1.rawValue }) else { return [:] }
        let columns = """
            SELECT m.id, m.envelope_to, m.to_header, m.size, m.listed_attachments > 0, g.mailbox,
                   EXISTS (SELECT 1 FROM outbound_mail o WHERE o.message = m.id AND o.cause = 'relay')
            FROM mail m CROSS JOIN messages g ON g.id = m.id
            """
        let statement: Statement
        let span = highest.rawValue.subtractingReportingOverflow(lowest.rawValue)
        if !span.overflow, span.partialValue <= Int64(Self.rangeSpan(for: ids.count)) {
            statement = try database.cached(columns + " WHERE m.id BETWEEN ? AND ?")
            try statement.bind([.integer(lowest.rawValue), .integer(highest.rawValue)])
        } else {
            statement = try database.cached(columns + " WHERE m.id IN (SELECT value FROM json_each(?))")
            try statement.bind([.text(Self.jsonArray(of: ids))])
        }
        defer { statement.reset() }
        let wanted = Set(ids)
        var mail: [(id: MessageID, envelope: String, toHeader: String, size: Int, hasAttachments: Bool, box: MailboxID, isRelayed: Bool)] = []
        while try statement.step() {
            let id = MessageID(try statement.integer(at: 0))
            guard wanted.contains(id) else { continue }
            mail.append((id, try statement.text(at: 1), try statement.text(at: 2), Int(try statement.integer(at: 3)),
                         try statement.integer(at: 4) != 0, MailboxID(rawValue: try statement.integer(at: 5)),
                         try statement.integer(at: 6) != 0))
        }
        guard !mail.isEmpty else { return [:] }
        let names = Dictionary(try mailboxes().map { ($0.id, $0.name) }) { first, _ in first }
        let patterns = try addresses()
        // Mail from one sender to one address (cron, a monitor) repeats its envelope and To on
        // every row: each pair is worked out once per mailbox.
        struct Addressing: Hashable {
            let box: MailboxID
            let envelope: String
            let toHeader: String
        }
        var recipients: [Addressing: String?] = [:]
        var found: [MessageID: RowDetails] = [:]
        found.reserveCapacity(mail.count)
        for row in mail {
            let addressing = Addressing(box: row.box, envelope: row.envelope, toHeader: row.toHeader)
            let recipient: String?
            if let known = recipients[addressing] {
                recipient = known
            } else {
                let envelope = row.envelope.isEmpty ? [] : row.envelope.split(separator: "\n").map(String.init)
                let routed = Self.routingRecipient(envelope, to: row.box, named: names[row.box] ?? "", patterns: patterns[row.box] ?? [])
                recipient = routed ?? Self.firstAddress(in: row.toHeader) ?? envelope.first
                recipients[addressing] = recipient
            }
            found[row.id] = RowDetails(recipient: recipient, size: row.size, hasAttachments: row.hasAttachments, isRelayed: row.isRelayed)
        }
        return found
    }

    /// How far apart a page's lowest and highest ids may be for their mail rows to be read as
    /// one range: a few times the page, so mail of other mailboxes in between stays a small part.
    static func rangeSpan(for count: Int) -> Int { 4 * count + 64 }

    /// `[1,2,3]`: the ids as the JSON array that `json_each` reads.
    static func jsonArray(of ids: [MessageID]) -> String {
        "[" + ids.map { String($0.rawValue) }.joined(separator: ",") + "]"
    }

    /// The parts of mailed message `id` that its HTML shows inline (see `isInlinePart`).
    public func inlineParts(of id: MessageID) throws(StoreError) -> Set<Int> {
        let statement = try database.cached("""
            SELECT a.part FROM mail m JOIN attachments a ON a.raw = m.raw WHERE m.id = ? AND \(Self.isInlinePart)
            """)
        try statement.bind([.integer(id.rawValue)])
        defer { statement.reset() }
        var parts: Set<Int> = []
        while try statement.step() { parts.insert(Int(try statement.integer(at: 0))) }
        return parts
    }

    /// The first of `recipients` that routes to `box` by its own addresses or name, not by the
    /// Inbox taking what no mailbox names. Trash takes no mail, so none routed anything there.
    static func routingRecipient(_ recipients: [String], to box: MailboxID, named name: String, patterns: [String]) -> String? {
        guard box != .trash else { return nil }
        // A stand-in id that no mailbox has: the Inbox's fallback can then never look like a match.
        let probe = MailboxID(rawValue: -1)
        let routing = Routing(mailboxes: [(probe, name)], addresses: patterns.map { ($0, probe) })
        return recipients.first { routing.mailboxes(for: [$0]).contains(probe) }
    }

    /// The first address in an address header: `Ops, Team <ops@x.test>, b@y.test` gives
    /// `ops@x.test`. The header is kept as decoded for reading, whose display names may hold
    /// commas without quotes, so the first word with an `@` is taken, not the first entry.
    static func firstAddress(in header: String) -> String? {
        // Every stop is ASCII, so the bytes are scanned: a byte of a longer character is never one.
        func isStop(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: "<"),
                 UInt8(ascii: ">"), UInt8(ascii: ","), UInt8(ascii: "\""), UInt8(ascii: "("), UInt8(ascii: ")"),
                 UInt8(ascii: ";"):
                return true
            default:
                return false
            }
        }
        let bytes = Array(header.utf8)
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")) else { return nil }
        var start = at
        while start > 0, !isStop(bytes[start - 1]) { start -= 1 }
        var end = at + 1
        while end < bytes.count, !isStop(bytes[end]) { end += 1 }
        // Cut at ASCII bytes only, so the slice is whole UTF-8; at least one byte besides the @.
        return end - start > 1 ? String(decoding: bytes[start..<end], as: UTF8.self) : nil
    }
}
