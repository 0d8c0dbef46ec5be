/// The two escapers: one for text between tags, one for quoted attribute values.
public enum Escaping {
    /// Escapes `&`, `<` and `>`, which is all that text content needs.
    public static func appendText(_ text: String, to buffer: inout [UInt8]) {
        append(text, to: &buffer, escapingQuotes: false)
    }

    /// Escapes `&`, both quotes, `<` and `>`, so a value can never leave its double quotes.
    public static func appendAttributeValue(_ value: String, to buffer: inout [UInt8]) {
        append(value, to: &buffer, escapingQuotes: true)
    }

    /// Copies runs of safe bytes in one go and replaces only the bytes that need it.
    ///
    /// Controls are not markup, but HTML forbids them in a document all the same, and mail is
    /// full of them (cron's colour escapes, a NUL, a binary file read as text); raw, they make the
    /// page invalid and are invisible or worse on screen. One rule, here where every string
    /// becomes text or an attribute: a C0 control other than tab, LF and CR shows as its picture
    /// in U+2400... (ESC as ␛, NUL as ␀), DEL as ␡, and what has no picture (the C1 controls
    /// U+0080...U+009F, and the noncharacters such as U+FFFE that HTML also forbids) as U+FFFD.
    private static func append(_ string: String, to buffer: inout [UInt8], escapingQuotes: Bool) {
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            var index = 0
            func replace(_ count: Int, with replacement: some Sequence<UInt8>) {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                buffer.append(contentsOf: replacement)
                index += count
                runStart = index
            }
            while index < bytes.count {
                let byte = bytes[index]
                let markup: StaticString
                switch byte {
                case UInt8(ascii: "&"): markup = "&amp;"
                case UInt8(ascii: "<"): markup = "&lt;"
                case UInt8(ascii: ">"): markup = "&gt;"
                case UInt8(ascii: "\"") where escapingQuotes: markup = "&quot;"
                case UInt8(ascii: "'") where escapingQuotes: markup = "&#39;"
                case 0x09, 0x0A, 0x0D:
                    index += 1
                    continue
                case 0x00..<0x20:
                    // U+2400 + byte: E2 90 80+byte in UTF-8.
                    replace(1, with: [0xE2, 0x90, 0x80 + byte])
                    continue
                case 0x7F:
                    replace(1, with: [0xE2, 0x90, 0xA1])
                    continue
                case 0xC2, 0xEF, 0xF0...0xF4:
                    let length = forbiddenScalarLength(bytes, at: index)
                    if length > 0 { replace(length, with: replacementCharacter) } else { index += 1 }
                    continue
                default:
                    index += 1
                    continue
                }
                markup.withUTF8Buffer { replace(1, with: $0) }
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
    }

    /// U+FFFD in UTF-8.
    private static let replacementCharacter: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// The length of the UTF-8 sequence at `index` when it is a C1 control or a noncharacter
    /// (U+FDD0...U+FDEF, and the last two code points of every plane); 0 otherwise. The bytes are
    /// a Swift string's, so they are valid UTF-8.
    private static func forbiddenScalarLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let left = bytes.count - index
        switch bytes[index] {
        case 0xC2 where left >= 2 && (0x80...0x9F).contains(bytes[index + 1]):
            return 2
        case 0xEF where left >= 3 && bytes[index + 1] == 0xB7 && (0x90...0xAF).contains(bytes[index + 2]),
             0xEF where left >= 3 && bytes[index + 1] == 0xBF && bytes[index + 2] >= 0xBE:
            return 3
        case 0xF0...0xF4 where left >= 4 && bytes[index + 1] & 0x0F == 0x0F && bytes[index + 2] == 0xBF
            && bytes[index + 3] >= 0xBE:
            return 4
        default:
            return 0
        }
    }

    public static func text(_ text: String) -> String {
        var buffer: [UInt8] = []
        appendText(text, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    public static func attributeValue(_ value: String) -> String {
        var buffer: [UInt8] = []
        appendAttributeValue(value, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
