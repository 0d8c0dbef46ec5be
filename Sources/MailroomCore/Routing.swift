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
        var chosen: [MailboxID] = []
        for recipient in recipients {
            let address = Self.bare(recipient)
            let (local, domain) = Self.split(address)
            for (pattern, mailbox) in addresses
            where pattern == address || (domain != nil && pattern.hasPrefix("*@") && pattern.dropFirst(2) == domain![...]) {
                chosen.append(mailbox)
            }
            let plus = local.firstIndex(of: "+")
            let name = Self.key(plus.map { String(local[..<$0]) } ?? local)
            let tag = plus.map { Self.key(String(local[local.index(after: $0)...])) }
            for box in keys where box.key == name || box.key == tag {
                chosen.append(box.id)
            }
        }
        let ordered = chosen.isEmpty ? [] : mailboxes.map(\.id).filter { chosen.contains($0) }
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
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return bareASCII(text) }
        var address = Substring(text).drop { $0.isWhitespace }
        while address.last?.isWhitespace == true { address = address.dropLast() }
        if address.first == "<" && address.last == ">" { address = address.dropFirst().dropLast() }
        return address.lowercased()
    }

    /// `bare` for ASCII text, byte by byte: its whitespace is tab to carriage return, and space.
    private static func bareASCII(_ text: String) -> String {
        var bytes = Array(text.utf8)[...]
        let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        while let first = bytes.first, isSpace(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, isSpace(last) { bytes = bytes.dropLast() }
        if bytes.count >= 2 && bytes.first == UInt8(ascii: "<") && bytes.last == UInt8(ascii: ">") {
            bytes = bytes.dropFirst().dropLast()
        }
        return String(decoding: bytes.lazy.map { (0x41...0x5A).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    static func split(_ address: String) -> (local: String, domain: String?) {
        if address.utf8.allSatisfy({ $0 < 0x80 }) {
            guard let at = address.utf8.lastIndex(of: UInt8(ascii: "@")) else { return (address, nil) }
            return (String(address[..<at]), String(address[address.utf8.index(after: at)...]))
        }
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
