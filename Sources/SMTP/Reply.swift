/// One SMTP reply (RFC 5321 4.2): a three-digit code, an enhanced status code (RFC 3463) when
/// the session announced ENHANCEDSTATUSCODES, and one or more lines of text.
public struct Reply: Equatable, Sendable, CustomStringConvertible {
    public var code: Int
    /// "2.1.0" and the like; nil for the greeting and the EHLO lines, which carry none.
    public var status: String?
    public var lines: [String]

    public init(_ code: Int, _ status: String?, _ lines: [String]) {
        self.code = code
        self.status = status
        // A line holds no control character, whatever a client said that it echoes (an EHLO
        // name): a CR or LF would start a reply of the client's making.
        self.lines = lines.isEmpty ? [""] : lines.map(Self.printable)
    }

    private static func printable(_ line: String) -> String {
        guard line.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return line }
        return String(String.UnicodeScalarView(line.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }

    public init(_ code: Int, _ status: String?, _ line: String) {
        self.init(code, status, [line])
    }

    /// Whether the reply refuses what it answers (4xx or 5xx).
    public var isRefusal: Bool { code >= 400 }

    /// The reply as it goes on the wire: every line but the last has a hyphen after the code.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        for (index, line) in lines.enumerated() {
            let separator = index == lines.count - 1 ? " " : "-"
            let text = status.map { "\($0) \(line)" } ?? line
            out += Array("\(code)\(separator)".utf8)
            // Replies are ASCII, and what a client sent (a name in EHLO) must not break a line.
            out += text.utf8.map { (32...126).contains($0) ? $0 : UInt8(ascii: "?") }
            out += [13, 10]
        }
        return out
    }

    public var description: String { String(decoding: bytes, as: UTF8.self) }
}

extension Reply {
    static func ok(_ text: String = "OK") -> Reply { Reply(250, "2.0.0", text) }

    static func syntax(_ text: String) -> Reply { Reply(501, "5.5.4", text) }

    static func badSequence(_ text: String) -> Reply { Reply(503, "5.5.1", text) }
}

/// A refusal travels as the reply that says why.
extension Reply: Error {}
