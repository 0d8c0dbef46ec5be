/// Readable text from an HTML-only mail, for the list's preview, search and the text shown
/// first: tags go, blocks become lines, script and style vanish with their contents, and the
/// common entities are decoded. It is never rendered as HTML, so it needs no sanitizing.
enum HTMLText {
    static func text(of html: String) -> String {
        var output = ""
        var rest = html[...]
        while let open = rest.firstIndex(of: "<") {
            output += decodeEntities(rest[..<open])
            guard let close = rest[open...].firstIndex(of: ">") else {
                rest = rest[rest.endIndex...]
                break
            }
            let tag = rest[rest.index(after: open)..<close]
            let name = tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }.lowercased()
            rest = rest[rest.index(after: close)...]
            if (name == "script" || name == "style"), !tag.hasPrefix("/") {
                // Skip to the matching end tag, contents and all.
                rest = afterEndTag(name, in: rest)
                continue
            }
            if Self.lineBreaking.contains(name) { output += "\n" }
        }
        output += decodeEntities(rest)
        return tidy(output)
    }

    /// What follows `</name ...>` in `text` (any case), or nothing when it is never closed.
    private static func afterEndTag(_ name: String, in text: Substring) -> Substring {
        var rest = text
        while let open = rest.firstIndex(of: "<") {
            let candidate = rest[rest.index(after: open)...]
            if candidate.hasPrefix("/"), candidate.dropFirst().prefix(name.count).lowercased() == name {
                guard let close = candidate.firstIndex(of: ">") else { break }
                return candidate[candidate.index(after: close)...]
            }
            rest = candidate
        }
        return text[text.endIndex...]
    }

    private static let lineBreaking: Set<String> = [
        "br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol", "blockquote", "hr",
    ]

    private static let entities: [Substring: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "copy": "©", "reg": "®",
        "mdash": "—", "ndash": "–", "hellip": "…", "euro": "€", "laquo": "«", "raquo": "»",
    ]

    private static func decodeEntities(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var output = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            output += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semicolon = after.prefix(10).firstIndex(of: ";") {
                let name = after[..<semicolon]
                if let known = entities[name] ?? numeric(name) {
                    output += known
                    rest = after[after.index(after: semicolon)...]
                    continue
                }
            }
            output += "&"
            rest = after
        }
        return output + rest
    }

    private static func numeric(_ name: Substring) -> String? {
        guard name.first == "#" else { return nil }
        let digits = name.dropFirst()
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
    }

    /// Runs of spaces become one; lines are trimmed; no more than one empty line in a row.
    private static func tidy(_ text: String) -> String {
        var lines: [String] = []
        // "\r\n" is one Character: lines end at any newline, words at any space (nbsp too).
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: \.isWhitespace)
            let joined = words.joined(separator: " ")
            if joined.isEmpty, lines.last?.isEmpty ?? true { continue }
            lines.append(joined)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
