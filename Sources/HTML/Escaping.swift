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
    private static func append(_ string: String, to buffer: inout [UInt8], escapingQuotes: Bool) {
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let replacement: StaticString
                switch bytes[index] {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "\"") where escapingQuotes: replacement = "&quot;"
                case UInt8(ascii: "'") where escapingQuotes: replacement = "&#39;"
                default: continue
                }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                replacement.withUTF8Buffer { buffer.append(contentsOf: $0) }
                runStart = index + 1
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
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
