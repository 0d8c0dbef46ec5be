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

    /// The details of every mailed message among `ids`, in one statement; posted messages (no
    /// mail row) have none. Each row carries its mailbox's name and addresses, so the recipient
    /// that routed it there is chosen as routing chose it.
    public func rowDetails(of ids: [MessageID]) throws(StoreError) -> [MessageID: RowDetails] {
        guard !ids.isEmpty else { return [:] }
        let statement = try database.cached("""
            SELECT m.id, m.envelope_to, m.to_header, m.size,
                   m.listed_attachments > 0,
                   b.id, b.name, (SELECT group_concat(pattern, char(10)) FROM addresses WHERE mailbox = b.id),
                   EXISTS (SELECT 1 FROM outbound_mail o WHERE o.message = m.id AND o.cause = 'relay')
            FROM mail m JOIN messages g ON g.id = m.id JOIN mailboxes b ON b.id = g.mailbox
            WHERE m.id IN (SELECT value FROM json_each(?))
            """)
        try statement.bind([.text(Self.jsonArray(of: ids))])
        defer { statement.reset() }
        var found: [MessageID: RowDetails] = [:]
        while try statement.step() {
            let envelope = try statement.text(at: 1)
            let recipients = envelope.isEmpty ? [] : envelope.split(separator: "\n").map(String.init)
            let box = MailboxID(rawValue: try statement.integer(at: 5))
            let patterns = try statement.optionalText(at: 7).map { $0.split(separator: "\n").map(String.init) } ?? []
            let routed = Self.routingRecipient(recipients, to: box, named: try statement.text(at: 6), patterns: patterns)
            let toHeader = try statement.text(at: 2)
            found[MessageID(try statement.integer(at: 0))] = RowDetails(
                recipient: routed ?? Self.firstAddress(in: toHeader) ?? recipients.first,
                size: Int(try statement.integer(at: 3)), hasAttachments: try statement.integer(at: 4) != 0,
                isRelayed: try statement.integer(at: 8) != 0)
        }
        return found
    }

    /// `[1,2,3]`, written digit by digit: a page of 500 rows asks for 500 ids, and a string
    /// made for each number cost more than the statement that reads them.
    static func jsonArray(of ids: [MessageID]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(ids.count * 8 + 2)
        var digits: [UInt8] = []
        digits.reserveCapacity(20)
        for (index, id) in ids.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if id.rawValue < 0 { bytes.append(UInt8(ascii: "-")) }
            var rest = id.rawValue.magnitude
            digits.removeAll(keepingCapacity: true)
            repeat {
                digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: digits.reversed())
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
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
        let stops: Set<Character> = [" ", "\t", "\r", "\n", "<", ">", ",", "\"", "(", ")", ";"]
        guard let at = header.firstIndex(of: "@") else { return nil }
        var start = at
        while start > header.startIndex, !stops.contains(header[header.index(before: start)]) { start = header.index(before: start) }
        var end = header.index(after: at)
        while end < header.endIndex, !stops.contains(header[end]) { end = header.index(after: end) }
        let address = header[start..<end]
        return address.count > 1 ? String(address) : nil
    }
}
