/// One reply from the relay (RFC 5321 4.2): a code and the text of each of its lines.
struct RelayServerReply: Equatable, Sendable {
    let code: Int
    /// Each line's text after the code and its separator.
    let lines: [String]

    /// The reply on one line, code first: "250 2.0.0 Ok: queued as ABC".
    var text: String {
        let words = lines.map(Self.trimmed).filter { !$0.isEmpty }
        return words.isEmpty ? String(code) : "\(code) " + words.joined(separator: " ")
    }

    /// 2xx, 3xx, 4xx or 5xx.
    var kind: Int { code / 100 }

    private static func trimmed(_ line: String) -> String {
        var text = Substring(line)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}

/// A relay that broke the protocol: a reply that is no reply, or more than was asked for.
struct RelayProtocolError: Error, Equatable {
    let reason: String
}

/// Gathers the bytes the relay sends into replies. Lines and replies are capped, so a relay
/// that talks without end holds a bounded amount of memory and is cut off with a reason.
struct RelayReplyReader {
    /// A line longer than this, its CRLF included, is not a reply (RFC 5321 4.5.3.1.5 allows 512).
    static let maxLineBytes = 2_048
    /// EHLO replies are the longest, with a line per extension; no relay needs this many.
    static let maxLines = 100

    private var input: [UInt8] = []
    private var position = 0
    private var lines: [String] = []
    private var code: Int?

    /// Bytes received and not yet read into a reply.
    var buffered: Int { input.count - position }

    mutating func receive(_ bytes: some Sequence<UInt8>) {
        if position > 0 && position >= input.count / 2 {
            input.removeFirst(position)
            position = 0
        }
        input.append(contentsOf: bytes)
    }

    /// The next whole reply; nil when more bytes are needed.
    mutating func next() -> Result<RelayServerReply, RelayProtocolError>? {
        while true {
            guard let newline = input[position...].firstIndex(of: 10) else {
                guard buffered < Self.maxLineBytes else { return .failure(Self.overLong) }
                return nil
            }
            guard newline + 1 - position <= Self.maxLineBytes else { return .failure(Self.overLong) }
            var end = newline
            if end > position && input[end - 1] == 13 { end -= 1 }
            let line = input[position..<end]
            position = newline + 1
            switch take(line) {
            case .failure(let error): return .failure(error)
            case .success(let reply?): return .success(reply)
            case .success(nil): continue
            }
        }
    }

    /// Adds one line to the reply being read: the reply once its last line is in.
    private mutating func take(_ line: ArraySlice<UInt8>) -> Result<RelayServerReply?, RelayProtocolError> {
        let digits = line.prefix(3)
        guard digits.count == 3, digits.allSatisfy({ (48...57).contains($0) }),
              let number = Int(String(decoding: digits, as: UTF8.self)), (200...599).contains(number)
        else {
            return .failure(RelayProtocolError(reason: "The relay sent a line that is not a reply: \(Self.show(line))."))
        }
        let separator = line.dropFirst(3).first
        guard separator == nil || separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
            return .failure(RelayProtocolError(reason: "The relay sent a line that is not a reply: \(Self.show(line))."))
        }
        if let code, code != number {
            return .failure(RelayProtocolError(reason: "The relay's reply changed its code from \(code) to \(number) half-way."))
        }
        code = number
        lines.append(Self.printable(line.dropFirst(4)))
        guard lines.count <= Self.maxLines else {
            return .failure(RelayProtocolError(reason: "The relay sent a reply of more than \(Self.maxLines) lines."))
        }
        guard separator != UInt8(ascii: "-") else { return .success(nil) }
        let reply = RelayServerReply(code: number, lines: lines)
        lines = []
        code = nil
        return .success(reply)
    }

    private static let overLong = RelayProtocolError(
        reason: "The relay sent a reply line longer than \(maxLineBytes) bytes.")

    /// The text with control characters shown as "?": it ends up in logs and on pages.
    private static func printable(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }

    private static func show(_ line: ArraySlice<UInt8>) -> String {
        "\"\(printable(line.prefix(80)))\(line.count > 80 ? "…" : "")\""
    }
}
