/// One start tag found in a page, with its attributes already entity-decoded.
struct HTMLTag {
    let name: String
    let attributes: [(name: String, value: String)]
    /// Byte offsets in the page: where `<` is, and just past `>`.
    let start: Int
    let end: Int

    subscript(attribute: String) -> String? {
        attributes.first { $0.name == attribute }?.value
    }

    /// Whether the attribute is present at all, as boolean attributes (`checked`, `disabled`) are.
    func has(_ attribute: String) -> Bool {
        attributes.contains { $0.name == attribute }
    }

    var classes: Set<String> {
        Set((self["class"] ?? "").split(separator: " ").map(String.init))
    }
}

/// Just enough HTML reading for tests: start tags, element contents and text.
enum HTMLScanner {
    private static let voidElements: Set<String> = ["input", "meta", "link", "br", "img", "hr", "source", "wbr"]

    /// Every start tag in document order (comments and `<!DOCTYPE>` skipped).
    static func startTags(in html: [UInt8]) -> [HTMLTag] {
        var tags: [HTMLTag] = []
        var index = 0
        while index < html.count {
            guard html[index] == UInt8(ascii: "<"), index + 1 < html.count, isLetter(html[index + 1]) else {
                index += 1
                continue
            }
            let (tag, next) = parseTag(html, from: index)
            tags.append(tag)
            index = next
        }
        return tags
    }

    /// The byte range between `tag` and its matching end tag, counting nested tags of the same name.
    static func contentRange(of tag: HTMLTag, in html: [UInt8]) -> Range<Int> {
        guard !voidElements.contains(tag.name) else { return tag.end..<tag.end }
        let open = Array("<\(tag.name)".utf8)
        let close = Array("</\(tag.name)".utf8)
        var depth = 1
        var index = tag.end
        while index < html.count {
            if html[index...].starts(with: close), isNameEnd(html, at: index + close.count) {
                depth -= 1
                if depth == 0 { return tag.end..<index }
                index += close.count
            } else if html[index...].starts(with: open), isNameEnd(html, at: index + open.count) {
                depth += 1
                index += open.count
            } else {
                index += 1
            }
        }
        return tag.end..<html.count
    }

    /// Visible text: tags removed, entities decoded, white space collapsed.
    static func text(_ html: ArraySlice<UInt8>) -> String {
        var kept: [UInt8] = []
        var inTag = false
        for byte in html {
            if byte == UInt8(ascii: "<") { inTag = true; continue }
            if byte == UInt8(ascii: ">") && inTag { inTag = false; continue }
            if !inTag { kept.append(byte) }
        }
        let decoded = decodeEntities(String(decoding: kept, as: UTF8.self))
        return decoded.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Decodes the entities the pages use: the five named ones, `&nbsp;` and numeric references.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            output += rest[..<amp]
            rest = rest[amp...]
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else {
                output.append("&")
                rest = rest.dropFirst()
                continue
            }
            let name = rest[rest.index(after: rest.startIndex)..<semicolon]
            if let character = character(forEntity: name) {
                output.append(character)
                rest = rest[rest.index(after: semicolon)...]
            } else {
                output.append("&")
                rest = rest.dropFirst()
            }
        }
        return output + rest
    }

    // MARK: Private

    private static func character(forEntity name: Substring) -> Character? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return "\u{A0}"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") || digits.hasPrefix("X")
                ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return value.flatMap(Unicode.Scalar.init).map(Character.init)
        }
    }

    private static func parseTag(_ html: [UInt8], from start: Int) -> (HTMLTag, Int) {
        var index = start + 1
        let nameStart = index
        while index < html.count, !isSpace(html[index]), html[index] != UInt8(ascii: ">"), html[index] != UInt8(ascii: "/") {
            index += 1
        }
        let name = String(decoding: html[nameStart..<index], as: UTF8.self).lowercased()
        var attributes: [(name: String, value: String)] = []
        while index < html.count {
            while index < html.count, isSpace(html[index]) || html[index] == UInt8(ascii: "/") { index += 1 }
            guard index < html.count, html[index] != UInt8(ascii: ">") else { break }
            let attributeStart = index
            while index < html.count, !isSpace(html[index]), html[index] != UInt8(ascii: "="),
                  html[index] != UInt8(ascii: ">") {
                index += 1
            }
            let attributeName = String(decoding: html[attributeStart..<index], as: UTF8.self).lowercased()
            var value = ""
            if index < html.count, html[index] == UInt8(ascii: "=") {
                index += 1
                if index < html.count, html[index] == UInt8(ascii: "\"") || html[index] == UInt8(ascii: "'") {
                    let quote = html[index]
                    let valueStart = index + 1
                    index = valueStart
                    while index < html.count, html[index] != quote { index += 1 }
                    value = String(decoding: html[valueStart..<min(index, html.count)], as: UTF8.self)
                    index += 1
                } else {
                    let valueStart = index
                    while index < html.count, !isSpace(html[index]), html[index] != UInt8(ascii: ">") { index += 1 }
                    value = String(decoding: html[valueStart..<index], as: UTF8.self)
                }
            }
            attributes.append((attributeName, decodeEntities(value)))
        }
        let end = min(index + 1, html.count)
        return (HTMLTag(name: name, attributes: attributes, start: start, end: end), end)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    private static func isNameEnd(_ html: [UInt8], at index: Int) -> Bool {
        index >= html.count || isSpace(html[index]) || html[index] == UInt8(ascii: ">") || html[index] == UInt8(ascii: "/")
    }
}
