/// Which mailboxes a mail goes to, from its envelope recipients (DESIGN §7).
///
/// A recipient routes to a mailbox that lists its address (exactly, or as `*@domain`), or whose
/// name equals the recipient's `+tag` or local part. Names compare without case and without
/// anything but letters and digits, so `build-alerts@` finds “Build Alerts”. Trash takes no mail.
/// Each mailbox gets one copy however many recipients name it; with none named, the Inbox does.
public struct Routing: Sendable {
    public let mailboxes: [(id: MailboxID, name: String)]
    public let addresses: [(pattern: String, mailbox: MailboxID)]
    /// Each mailbox's name as recipients are compared with it (`key`), where it has one: worked
    /// out once, as every message is routed twice (to choose its dictionary, then to store it).
    private let keys: [(id: MailboxID, key: String)]

    public init(mailboxes: [(id: MailboxID, name: String)], addresses: [(pattern: String, mailbox: MailboxID)]) {
        self.mailboxes = mailboxes.filter { $0.id != .trash }
        self.addresses = addresses
        self.keys = self.mailboxes.map { ($0.id, Self.key($0.name)) }.filter { !$0.key.isEmpty }
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
            for box in keys where names.contains(box.key) {
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
        let utf8 = name.utf8
        // ASCII, as nearly every address is: its letters and digits are A-Z, a-z and 0-9.
        guard utf8.allSatisfy({ $0 < 0x80 }) else {
            return String(name.lowercased().filter { $0.isLetter || $0.isNumber })
        }
        return String(unsafeUninitializedCapacity: utf8.count) { out in
            var count = 0
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    out[count] = byte
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    out[count] = byte + 32
                default:
                    continue
                }
                count += 1
            }
            return count
        }
    }
}
