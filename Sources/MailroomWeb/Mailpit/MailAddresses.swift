import MailroomMail

/// Addresses read back out of an address header as Mailroom keeps it (decoded, for reading):
/// `Ann Lee <ann@example.test>, bob@example.test`. GMime reads headers as sent; once decoded, a
/// display name may hold a comma without quotes, so a piece with no `@` belongs to the next one.
extension Address {
    static func list(_ header: String) -> [Address] {
        var found: [Address] = []
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
    static func first(_ header: String) -> Address {
        list(header).first ?? Address(name: Substring(header).trimmingCharacters(in: " \t"), address: "")
    }

    private static func parse(_ text: String) -> Address? {
        let trimmed = Substring(text).trimmingCharacters(in: " \t\r\n")
        if let open = trimmed.lastIndex(of: "<"), let close = trimmed.lastIndex(of: ">"), open < close {
            var name = trimmed[..<open].trimmingCharacters(in: " \t")
            if name.count >= 2, name.first == "\"", name.last == "\"" { name = String(name.dropFirst().dropLast()) }
            let address = trimmed[trimmed.index(after: open)..<close].trimmingCharacters(in: " \t")
            return Address(name: name, address: address)
        }
        return trimmed.isEmpty ? nil : Address(name: "", address: trimmed)
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
