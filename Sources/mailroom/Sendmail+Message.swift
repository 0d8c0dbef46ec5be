import Glibc

extension Sendmail {
    /// The message read from standard input, as lines without their endings.
    struct Message {
        var header: [String] = []
        var body: [[UInt8]] = []

        init(_ input: [UInt8], endsAtDot: Bool) {
            var lines = input.split(separator: 10, omittingEmptySubsequences: false).map { line -> [UInt8] in
                line.last == 13 ? Array(line.dropLast()) : Array(line)
            }
            if lines.last?.isEmpty == true { lines.removeLast() }
            if endsAtDot, let dot = lines.firstIndex(of: [UInt8(ascii: ".")]) { lines.removeSubrange(dot...) }
            var inHeader = true
            for line in lines {
                if inHeader {
                    if line.isEmpty {
                        inHeader = false
                        continue
                    }
                    // A first line that is not a header field starts the body.
                    let isField = line.first == 32 || line.first == 9 || Message.isFieldStart(line)
                    if isField {
                        header.append(String(decoding: line, as: UTF8.self))
                        continue
                    }
                    inHeader = false
                }
                body.append(line)
            }
        }

        static func isFieldStart(_ line: [UInt8]) -> Bool {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return false }
            return line[..<colon].allSatisfy { $0 > 32 && $0 < 127 }
        }

        /// Whole fields, folded lines joined.
        var fields: [(name: String, value: String)] {
            var all: [(name: String, value: String)] = []
            for line in header {
                if line.first == " " || line.first == "\t", !all.isEmpty {
                    all[all.count - 1].value += " " + line.drop { $0 == " " || $0 == "\t" }
                } else if let colon = line.firstIndex(of: ":") {
                    all.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces))
                }
            }
            return all
        }

        func has(_ name: String) -> Bool {
            fields.contains { $0.name.lowercased() == name }
        }

        /// The addresses in To, Cc and Bcc (for `-t`).
        func headerRecipients() -> [String] {
            fields.filter { ["to", "cc", "bcc"].contains($0.name.lowercased()) }.flatMap { Self.addresses(in: $0.value) }
        }

        /// `Name <a@b>, c@d` → the addresses, roughly as sendmail reads them.
        static func addresses(in value: String) -> [String] {
            var found: [String] = []
            var current = ""
            var quoted = false
            var depth = 0
            for character in value + "," {
                switch character {
                case "\"": quoted.toggle(); current.append(character)
                case "(" where !quoted: depth += 1
                case ")" where !quoted: depth = max(depth - 1, 0)
                case "," where !quoted && depth == 0:
                    let item = current.trimmingSpaces
                    if let open = item.lastIndex(of: "<"), let close = item.lastIndex(of: ">"), open < close {
                        found.append(String(item[item.index(after: open)..<close]))
                    } else if item.contains("@") {
                        found.append(item)
                    }
                    current = ""
                default:
                    if depth == 0 { current.append(character) }
                }
            }
            return found.filter { !$0.isEmpty }
        }

        /// The message as it goes over SMTP: From and Date added when missing, Bcc removed for
        /// `-t`, every line ending in CRLF, and lines starting with a dot doubled.
        func prepared(sender: String, fullName: String?, dropBcc: Bool) -> [UInt8] {
            var lines: [[UInt8]] = []
            var skipping = false
            for line in header {
                if line.first == " " || line.first == "\t" {
                    if !skipping { lines.append(Array(line.utf8)) }
                    continue
                }
                skipping = dropBcc && line.lowercased().hasPrefix("bcc:")
                if !skipping { lines.append(Array(line.utf8)) }
            }
            if !has("from") {
                lines.append(Array("From: \(fullName.map { "\"\($0)\" " } ?? "")<\(sender)>".utf8))
            }
            if !has("date") { lines.append(Array("Date: \(Self.date())".utf8)) }
            lines.append([])
            lines += body
            var out: [UInt8] = []
            for line in lines {
                if line.first == UInt8(ascii: ".") { out.append(UInt8(ascii: ".")) }
                out += line
                out += [13, 10]
            }
            return out
        }
    }
}


extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
