/// Which mailboxes a mail goes to, from its envelope recipients (DESIGN §7).
///
/// A recipient routes to a mailbox that lists its address (exactly, or as `*@domain`), or whose
/// name equals the recipient's `+tag` or local part. Names compare without case and without
/// anything but letters and digits, so `build-alerts@` finds “Build Alerts”. Trash takes no mail.
/// Each mailbox gets one copy however many recipients name it; with none named, the Inbox does.
public struct Routing: Sendable {
    public let mailboxes: [(id: MailboxID, name: String)]
    public let addresses: [(pattern: String, mailbox: MailboxID)]

    public init(mailboxes: [(id: MailboxID, name: String)], addresses: [(pattern: String, mailbox: MailboxID)]) {
        self.mailboxes = mailboxes.filter { $0.id != .trash }
        self.addresses = addresses
    }

    /// The mailboxes in their own order, each once; the Inbox alone when no recipient names one.
    public func mailboxes(for recipients: [String]) -> [MailboxID] {
        var chosen = Set<MailboxID>()
        for recipient in recipients {
            let address = Self.bare(recipient)
            let (local, domain) = Self.split(address)
            for (pattern, mailbox) in addresses where pattern == address || (domain != nil && pattern == "*@" + domain!) {
                chosen.insert(mailbox)
            }
            let plus = local.firstIndex(of: "+")
            let names = [Self.key(plus.map { String(local[..<$0]) } ?? local)]
                + (plus.map { [Self.key(String(local[local.index(after: $0)...]))] } ?? [])
            for box in mailboxes where names.contains(Self.key(box.name)) && !Self.key(box.name).isEmpty {
                chosen.insert(box.id)
            }
        }
        let ordered = mailboxes.map(\.id).filter { chosen.contains($0) }
        return ordered.isEmpty ? [.inbox] : ordered
    }

    /// A pattern as it is kept: lowercased, `name@domain` or `*@domain`; nil when it is neither.
    public static func pattern(_ text: String) -> String? {
        let trimmed = bare(text)
        guard trimmed.utf8.count <= 254, !trimmed.contains(where: { $0.isWhitespace || $0 == "," || $0 == "<" || $0 == ">" })
        else { return nil }
        let (local, domain) = split(trimmed)
        guard let domain, !local.isEmpty, !domain.isEmpty, !domain.contains("@"), !domain.contains("*") else { return nil }
        guard local == "*" || !local.contains("*"), !local.contains("@") else { return nil }
        return trimmed
    }

    /// The address without angle brackets or surrounding space, lowercased.
    static func bare(_ text: String) -> String {
        var address = Substring(text).drop { $0.isWhitespace }
        while address.last?.isWhitespace == true { address = address.dropLast() }
        if address.first == "<" && address.last == ">" { address = address.dropFirst().dropLast() }
        return address.lowercased()
    }

    static func split(_ address: String) -> (local: String, domain: String?) {
        guard let at = address.lastIndex(of: "@") else { return (address, nil) }
        return (String(address[..<at]), String(address[address.index(after: at)...]))
    }

    static func key(_ name: String) -> String {
        String(name.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
