/// Tags carried in the mail itself, as an `X-Tags` header, across export and import.
///
/// An export writes a message's tags as its first header line, in place of a first `X-Tags`
/// line it may have had: readers take the first `X-Tags` header (Mailpit, and Mailroom's
/// intake), so the line an export writes wins over one the sender wrote further down, and an
/// export of an export does not pile lines up. The import key leaves that first line out, so
/// a message exported and imported back is known as the same one, whatever its tags.
public enum TagsHeader {
    /// `raw` as an export writes it: `X-Tags: a, b` first when it has tags, or an empty one when
    /// it has none but its header names some further down (which would come back otherwise).
    public static func exported(_ raw: [UInt8], tags: [String]) -> [UInt8] {
        let rest = Array(raw[leadingLineLength(raw)...])
        guard !tags.isEmpty || namesTags(rest) else { return rest }
        let lineEnd: [UInt8] = rest.firstIndex(of: 10).map { $0 > 0 && rest[$0 - 1] == 13 } == true ? [13, 10] : [10]
        return Array("X-Tags: \(tags.joined(separator: ", "))".utf8) + lineEnd + rest
    }

    /// How many bytes a first header line `X-Tags:` takes (with its continuation lines and line
    /// end); 0 when the first line is something else.
    static func leadingLineLength(_ raw: [UInt8]) -> Int {
        guard startsWithName(raw, at: 0) else { return 0 }
        var end = 0
        while let newline = raw[end...].firstIndex(of: 10) {
            end = newline + 1
            // A line that starts with a space or a tab goes on the field before it.
            guard end < raw.count, raw[end] == 32 || raw[end] == 9 else { return end }
        }
        return raw.count
    }

    /// Whether a line of `raw`'s header is an `X-Tags` field.
    static func namesTags(_ raw: [UInt8]) -> Bool {
        var start = 0
        while start < raw.count {
            if startsWithName(raw, at: start) { return true }
            guard let newline = raw[start...].firstIndex(of: 10) else { return false }
            let next = newline + 1
            // The empty line ends the header.
            if next < raw.count && (raw[next] == 10 || (raw[next] == 13 && next + 1 < raw.count && raw[next + 1] == 10)) { return false }
            start = next
        }
        return false
    }

    private static let name = Array("x-tags:".utf8)

    private static func startsWithName(_ raw: [UInt8], at start: Int) -> Bool {
        guard raw.count - start >= name.count else { return false }
        for (offset, byte) in name.enumerated() where raw[start + offset] | (byte >= 97 ? 0x20 : 0) != byte {
            return false
        }
        return true
    }
}
