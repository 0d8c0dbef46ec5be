/// Addresses read back out of an address header as Mailroom keeps it (decoded, for reading):
/// `Ann Lee <ann@example.test>, bob@example.test`. A display name may hold a comma without
/// quotes once decoded, so a piece with no `@` belongs to the next one.
struct MailAddress: Equatable {
    var name: String
    var address: String

    static func list(_ header: String) -> [MailAddress] {
        var found: [MailAddress] = []
        var pending = ""
        for piece in pieces(of: header) {
            let whole = pending.isEmpty ? piece : pending + "," + piece
            guard whole.contains("@") else {
                pending = whole
                continue
            }
            pending = ""
            if let address = parse(whole) { found.append(address) }
        }
        return found
    }

    /// The first address in `header`, or an empty one.
    static func first(_ header: String) -> MailAddress {
        list(header).first ?? MailAddress(name: Substring(header).trimmingCharacters(in: " \t"), address: "")
    }

    private static func parse(_ text: String) -> MailAddress? {
        let trimmed = Substring(text).trimmingCharacters(in: " \t\r\n")
        if let open = trimmed.lastIndex(of: "<"), let close = trimmed.lastIndex(of: ">"), open < close {
            var name = trimmed[..<open].trimmingCharacters(in: " \t")
            if name.count >= 2, name.first == "\"", name.last == "\"" { name = String(name.dropFirst().dropLast()) }
            let address = trimmed[trimmed.index(after: open)..<close].trimmingCharacters(in: " \t")
            return MailAddress(name: name, address: address)
        }
        return trimmed.isEmpty ? nil : MailAddress(name: "", address: trimmed)
    }

    /// Comma-separated pieces, keeping commas inside quotes and angle brackets.
    private static func pieces(of header: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var inQuotes = false
        var inAngle = false
        for character in header {
            switch character {
            case "\"": inQuotes.toggle()
            case "<" where !inQuotes: inAngle = true
            case ">" where !inQuotes: inAngle = false
            case "," where !inQuotes && !inAngle:
                pieces.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        pieces.append(current)
        return pieces.filter { !Substring($0).trimmingCharacters(in: " \t\r\n").isEmpty }
    }
}
