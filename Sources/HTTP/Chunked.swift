/// The chunked transfer coding (RFC 9112 7.1), decoded once the whole body has arrived.
///
/// Every line of it ends in CRLF. RFC 9112 lets a server take a bare LF for the end of a header
/// line, but not inside the chunked coding: a proxy in front that reads a chunk-size line ended by a
/// bare LF differently would see another request in this body (request smuggling), so that is a 400.
enum Chunked {
    enum Outcome {
        case incomplete
        case failure(HTTPError)
        case success([UInt8], end: Int)
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int) -> Outcome {
        var body: [UInt8] = []
        var index = start
        while true {
            // chunk-size [; extensions] CRLF
            guard let lineEnd = (index..<bytes.count).first(where: { bytes[$0] == RequestParser.lf }) else {
                return bytes.count - index > 1_024 ? .failure(RequestParser.bad("A chunk size line is too long.")) : .incomplete
            }
            guard lineEnd > index, bytes[lineEnd - 1] == RequestParser.cr else {
                return .failure(RequestParser.bad("A chunk size line must end in CRLF."))
            }
            var sizeEnd = index
            var size = 0
            while sizeEnd < lineEnd, let value = hexValue(bytes[sizeEnd]) {
                size = size * 16 + value
                sizeEnd += 1
                guard size <= limit else {
                    return .failure(HTTPError(.contentTooLarge, "The request's body is larger than \(limit) bytes."))
                }
            }
            guard sizeEnd > index else { return .failure(RequestParser.bad("A chunk size is not hexadecimal.")) }
            let rest = bytes[sizeEnd..<lineEnd]
            // The CR, or chunk extensions (ignored) and the CR, follow the size.
            guard rest.first == UInt8(ascii: ";") || rest.elementsEqual([RequestParser.cr]) else {
                return .failure(RequestParser.bad("A chunk size is not hexadecimal."))
            }
            index = lineEnd + 1
            if size == 0 {
                // Trailer fields, ignored, up to an empty line.
                while true {
                    guard let end = (index..<bytes.count).first(where: { bytes[$0] == RequestParser.lf }) else {
                        return bytes.count - index > 8_192 ? .failure(RequestParser.bad("A trailer line is too long.")) : .incomplete
                    }
                    guard end > index, bytes[end - 1] == RequestParser.cr else {
                        return .failure(RequestParser.bad("A trailer line must end in CRLF."))
                    }
                    let isEmpty = end == index + 1
                    index = end + 1
                    if isEmpty { return .success(body, end: index) }
                }
            }
            guard body.count + size <= limit else {
                return .failure(HTTPError(.contentTooLarge, "The request's body is larger than \(limit) bytes."))
            }
            guard bytes.count >= index + size + 1 else { return .incomplete }
            body.append(contentsOf: bytes[index..<(index + size)])
            index += size
            // The chunk's own CRLF.
            guard bytes[index] == RequestParser.cr else {
                return .failure(RequestParser.bad("A chunk is longer than its size says."))
            }
            guard bytes.count > index + 1 else { return .incomplete }
            guard bytes[index + 1] == RequestParser.lf else {
                return .failure(RequestParser.bad("A chunk's data must end in CRLF."))
            }
            index += 2
        }
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
