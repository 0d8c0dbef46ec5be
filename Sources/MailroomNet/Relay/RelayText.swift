/// A message's text as DATA carries it (RFC 5321 4.5.2, 2.3.8): every line ended by CRLF, a
/// bare LF made CRLF, and a dot at the start of a line doubled. The final "." line is apart,
/// since the caller has a word to say before it goes.
enum RelayText {
    /// The line that ends the data.
    static let end: [UInt8] = Array(".\r\n".utf8)

    /// `bytes` ready to follow a 354; empty for an empty message.
    static func prepared(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 32 + 2)
        var atLineStart = true
        var previous: UInt8 = 0
        for byte in bytes {
            if atLineStart && byte == UInt8(ascii: ".") { out.append(byte) }
            if byte == 10 && previous != 13 { out.append(13) }
            out.append(byte)
            atLineStart = byte == 10
            previous = byte
        }
        // The end line must start a line of its own.
        if !atLineStart { out += [13, 10] }
        return out
    }

    /// Whether any byte is beyond ASCII, so BODY=8BITMIME is due (RFC 6152).
    static func isEightBit(_ bytes: [UInt8]) -> Bool {
        bytes.contains { $0 >= 0x80 }
    }
}
