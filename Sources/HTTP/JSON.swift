/// A JSON value: what the API and the JSON log write, and what the API reads from a request
/// body (RFC 8259).
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Int64)
    /// Written with three decimals (durations in a log line); never read.
    case fraction(Double)
    case string(String)
    case array([JSON])
    /// Keys in the order written, so answers read the same every time.
    case object([(String, JSON)])
    /// A value already written as JSON text (a kept row of a list), put in as it is; never read.
    case written([UInt8])

    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.fraction(let a), .fraction(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.written(let a), .written(let b)): a == b
        default: false
        }
    }

    public subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.0 == key }?.1
    }

    public static func int(_ value: Int) -> JSON { .number(Int64(value)) }

    public static func optional(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }

    // MARK: Writing

    public var text: String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// The JSON text as UTF-8, as an answer's body takes it.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .number(let value): out += String(value).utf8
        case .fraction(let value):
            let thousandths = Int64((abs(value) * 1000).rounded())
            let part = thousandths % 1000
            out += ((value < 0 ? "-" : "") + "\(thousandths / 1000)." + (part < 10 ? "00" : part < 100 ? "0" : "") + "\(part)").utf8
        case .string(let value): Self.quote(value, into: &out)
        case .written(let bytes): out += bytes
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.quote(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A string in quotes, with what JSON requires escaped, and `<` too (so an answer shown
    /// as HTML by mistake cannot open a tag). DEL, the C1 controls and the two Unicode line
    /// separators need no escape in JSON, but a log read on a terminal or a script does. Works
    /// on the UTF-8 bytes, copying runs that need nothing.
    private static func quote(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var index = 0
            var runStart = 0
            while index < bytes.count {
                let byte = bytes[index]
                // Most bytes need nothing: one comparison each skips them.
                if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
                    && byte != UInt8(ascii: "<") || byte >= 0x80 && byte != 0xC2 && byte != 0xE2 {
                    index += 1
                    continue
                }
                var escape: StaticString?
                var code: UInt32?
                var length = 1
                switch byte {
                case UInt8(ascii: "\""): escape = "\\\""
                case UInt8(ascii: "\\"): escape = "\\\\"
                case UInt8(ascii: "\n"): escape = "\\n"
                case UInt8(ascii: "\r"): escape = "\\r"
                case UInt8(ascii: "\t"): escape = "\\t"
                case UInt8(ascii: "<"): escape = "\\u003c"
                case 0..<0x20, 0x7F: code = UInt32(byte)
                case 0xC2 where index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1]):
                    code = UInt32(bytes[index + 1])
                    length = 2
                case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                    code = bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029
                    length = 3
                default:
                    index += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                if let escape {
                    escape.withUTF8Buffer { out.append(contentsOf: $0) }
                } else if let code {
                    let hex = Array(String(code, radix: 16).utf8)
                    out += "\\u".utf8
                    out += repeatElement(UInt8(ascii: "0"), count: 4 - hex.count)
                    out += hex
                }
                index += length
                runStart = index
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: Reading

    public struct ParseError: Error, Equatable {
        public let message: String
    }

    /// Reads one JSON text; numbers must be whole (the API has no others). Nesting deeper than
    /// 64 levels is refused, so no body can exhaust the stack.
    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> JSON {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the value") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        func error(_ what: String) -> ParseError {
            ParseError(message: "JSON: \(what) at byte \(index)")
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws(ParseError) -> JSON {
            guard depth < 64 else { throw error("nesting too deep") }
            guard index < bytes.count else { throw error("a value is missing") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, JSON)] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("a key is missing") }
                    let key = try string()
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("“:” is missing") }
                    index += 1
                    skipSpace()
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard index < bytes.count else { throw error("“}” is missing") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    guard bytes[index] == UInt8(ascii: "}") else { throw error("“,” or “}” is missing") }
                    index += 1
                    return .object(members)
                }
            case UInt8(ascii: "["):
                index += 1
                var values: [JSON] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(values)
                }
                while true {
                    skipSpace()
                    values.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.count else { throw error("“]” is missing") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    guard bytes[index] == UInt8(ascii: "]") else { throw error("“,” or “]” is missing") }
                    index += 1
                    return .array(values)
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"): return try word("true", .bool(true))
            case UInt8(ascii: "f"): return try word("false", .bool(false))
            case UInt8(ascii: "n"): return try word("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try number())
            default:
                throw error("unexpected character")
            }
        }

        mutating func word(_ text: StaticString, _ value: JSON) throws(ParseError) -> JSON {
            let expected = text.withUTF8Buffer { Array($0) }
            guard index + expected.count <= bytes.count, Array(bytes[index..<(index + expected.count)]) == expected else {
                throw error("unexpected word")
            }
            index += expected.count
            return value
        }

        mutating func number() throws(ParseError) -> Int64 {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw error("a number has no digits") }
            guard !(bytes[digits] == UInt8(ascii: "0") && index - digits > 1) else { throw error("a number starts with 0") }
            if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
                throw error("only whole numbers are taken")
            }
            guard let value = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                throw error("a number is too large")
            }
            return value
        }

        mutating func string() throws(ParseError) -> String {
            index += 1  // the opening quote
            var scalars = String.UnicodeScalarView()
            var run = index
            func flush(_ end: Int) {
                scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars)
            }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    flush(index)
                    index += 1
                    return String(scalars)
                }
                guard byte >= 0x20 else { throw error("a control character in a string") }
                guard byte == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                flush(index)
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        // A surrogate pair: the low half must follow.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("a lone surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("a lone surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("a lone surrogate") }
                    scalars.append(scalar)
                default:
                    throw error("an unknown escape")
                }
                run = index
            }
            throw error("a string is not closed")
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("a \\u escape is cut short") }
            var value: UInt32 = 0
            for byte in bytes[index..<(index + 4)] {
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a")) + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A")) + 10
                default: throw error("a \\u escape is not hexadecimal")
                }
                value = value * 16 + digit
            }
            index += 4
            return value
        }
    }
}
