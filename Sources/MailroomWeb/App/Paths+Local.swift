import HTTP

extension Paths {
    /// `next` when a browser would take it to a page on this site, else the Inbox: never a
    /// redirect to elsewhere.
    static func local(_ next: String?) -> String {
        guard let next, isLocal(next) else { return inbox }
        return next
    }

    /// Whether a browser resolving `target` against one of our pages stays on this site, read
    /// the way the WHATWG URL parser reads it, which is looser than RFC 3986:
    /// - it removes every tab, LF and CR before parsing, so `/\t/evil.test` is `//evil.test`;
    /// - in an http(s) URL a backslash is a slash, so `/\evil.test` is `//evil.test` too;
    /// - `//` starts a host, and anything that does not start with `/` may be a scheme.
    ///
    /// The same rules then hold for the target percent-decoded (until nothing more decodes), so a
    /// server or proxy that decodes once more than the browser cannot turn `/%2F/evil.test` into
    /// a host either. A control character is refused anywhere: none belongs in a path of ours.
    static func isLocal(_ target: String) -> Bool {
        var bytes = Array(target.utf8)
        for _ in 0..<4 {
            guard isLocalAsWritten(bytes) else { return false }
            let decoded = percentDecoded(bytes)
            if decoded == bytes { return true }
            bytes = decoded
        }
        // Still decoding after four rounds: nothing of ours is encoded that deeply.
        return false
    }

    private static func isLocalAsWritten(_ bytes: [UInt8]) -> Bool {
        let slash = UInt8(ascii: "/"), backslash = UInt8(ascii: "\\")
        guard bytes.first == slash, bytes.count < 2 || (bytes[1] != slash && bytes[1] != backslash) else { return false }
        return !bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == backslash }
    }

    /// Decodes each valid `%XX` and keeps every other byte as it is: looser than a form decoder,
    /// because here a stray `%` must not hide what follows it.
    private static func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }

    /// Points a response's `Location` at the Inbox unless it is a local path: the last fence
    /// behind every redirect the pages make, whoever built its target.
    static func keepLocal(_ response: inout Response) {
        guard let location = response.headers["Location"], !isLocal(location) else { return }
        response.headers.set("Location", inbox)
    }
}
