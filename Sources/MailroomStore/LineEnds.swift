import Glibc

/// Line ends as a mail's text has them: LF alone. Mail crosses SMTP with CRLF, and its text
/// (`Mailroom.lines` in MailroomService) has each CRLF and each lone CR made LF. A body kept in
/// its raw mail is read back through `text(of:)`, so that CRLF mail, nearly all of it, can be
/// kept once as well (`Transaction.bodyInRaw`).
enum LineEnds {
    /// `bytes` with each CRLF and each lone CR made LF; the bytes themselves when they hold no CR.
    static func text(of bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { buffer -> [UInt8] in
            guard let base = buffer.baseAddress, memchr(base, 13, buffer.count) != nil else { return bytes }
            return [UInt8](unsafeUninitializedCapacity: buffer.count) { out, written in
                written = 0
                var index = 0
                while index < buffer.count {
                    let byte = buffer[index]
                    index += 1
                    if byte == 13 {
                        if index < buffer.count && buffer[index] == 10 { index += 1 }
                        out[written] = 10
                    } else {
                        out[written] = byte
                    }
                    written += 1
                }
            }
        }
    }

    /// How many bytes of `raw` from `start` read as `text` once their line ends are made LF
    /// (`text(of:)`), when they do; nil at the first difference. `text` holds no CR.
    static func span(of text: UnsafeBufferPointer<UInt8>, in raw: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var at = start
        for wanted in text {
            guard at < raw.count else { return nil }
            let byte = raw[at]
            at += 1
            if byte == 13 {
                guard wanted == 10 else { return nil }
                if at < raw.count && raw[at] == 10 { at += 1 }
            } else if byte != wanted {
                return nil
            }
        }
        return at - start
    }
}
