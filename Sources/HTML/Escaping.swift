/// The two escapers: one for text between tags, one for quoted attribute values.
public enum Escaping {
    /// Escapes `&`, `<` and `>`, which is all that text content needs.
    public static func appendText(_ text: String, to buffer: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "&"): buffer.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): buffer.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): buffer.append(contentsOf: "&gt;".utf8)
                default: buffer.append(byte)
                }
            }
        }
    }

    /// Escapes `&`, both quotes, `<` and `>`, so a value can never leave its double quotes.
    public static func appendAttributeValue(_ value: String, to buffer: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "&"): buffer.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "\""): buffer.append(contentsOf: "&quot;".utf8)
                case UInt8(ascii: "'"): buffer.append(contentsOf: "&#39;".utf8)
                case UInt8(ascii: "<"): buffer.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): buffer.append(contentsOf: "&gt;".utf8)
                default: buffer.append(byte)
                }
            }
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
