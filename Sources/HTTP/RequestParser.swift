/// HTTP/1.1 request framing (RFC 9112) over the bytes a connection has received so far.
///
/// Pure: the server feeds it its buffer and acts on the answer, so every hostile case can be
/// tested, and fuzzed, without a socket.
public enum RequestParser {
    public enum Outcome: Sendable {
        /// The buffer holds no whole request yet.
        case incomplete
        /// A whole request, the number of bytes it took, and whether the connection stays open.
        case request(Request, consumed: Int, keepAlive: Bool)
        /// The request is refused; the connection must close after the answer, since its
        /// framing can no longer be trusted.
        case refused(HTTPError)
        /// A well-framed request with a bad target: refused, but the requests after it still count.
        case rejected(HTTPError, consumed: Int, keepAlive: Bool)
    }

    public static func parse(_ buffer: [UInt8], limits: RequestLimits) -> Outcome {
        buffer.withUnsafeBufferPointer { parse($0, limits: limits) }
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: RequestLimits) -> Outcome {
        // One empty line before a request line is ignored (RFC 9112 2.2); more is not HTTP.
        var start = 0
        if bytes.count >= 2, bytes[0] == cr, bytes[1] == lf {
            start = 2
        } else if bytes.count >= 1, bytes[0] == lf {
            start = 1
        } else if bytes.count == 1, bytes[0] == cr {
            return .incomplete
        }
        guard start < bytes.count else { return .incomplete }
        if start > 0, bytes[start] == cr || bytes[start] == lf {
            return .refused(bad("The request starts with empty lines."))
        }

        guard let headEnd = endOfHead(bytes, from: start) else {
            return headTooLong(bytes, from: start, limits: limits) ?? .incomplete
        }
        var lines = Lines(bytes: bytes, position: start, end: headEnd.linesEnd)
        guard let requestLine = lines.next() else { return .refused(bad("The request line is missing.")) }
        let head: Head
        switch Head.parse(requestLine: requestLine, limits: limits) {
        case .success(let parsed): head = parsed
        case .failure(let error): return .refused(error)
        }

        var headers = Headers()
        var headerBytes = 0
        while let line = lines.next() {
            guard line.count > 0 else { break }
            headerBytes += line.count + 2
            guard headerBytes <= limits.maxHeaderBytes, headers.fields.count < limits.maxHeaderCount else {
                return .refused(HTTPError(.headersTooLarge,
                    "The request has more than \(limits.maxHeaderCount) header fields or more than \(limits.maxHeaderBytes) bytes of them."))
            }
            switch field(line) {
            // The name is a token and the value holds no NUL or CR (`field`), nor an LF, which
            // ends the line: what `add` would check again.
            case .success(let field): headers.appendChecked(field.name, field.value)
            case .failure(let error): return .refused(error)
            }
        }

        let framing: Framing
        switch Framing.of(head: head, headers: headers, limits: limits) {
        case .success(let found): framing = found
        case .failure(let error): return .refused(error)
        }
        let bodyStart = headEnd.bodyStart
        let body: [UInt8]
        let consumed: Int
        switch framing {
        case .none:
            body = []
            consumed = bodyStart
        case .length(let length):
            guard bytes.count - bodyStart >= length else { return .incomplete }
            body = Array(bytes[bodyStart..<(bodyStart + length)])
            consumed = bodyStart + length
        case .chunked:
            switch Chunked.decode(bytes, from: bodyStart, limit: limits.maxBodyBytes(head.method, head.target, headers)) {
            case .incomplete: return .incomplete
            case .failure(let error): return .refused(error)
            case .success(let decoded, let end):
                body = decoded
                consumed = end
            }
        }

        if let authority = head.authority { headers.set("Host", authority) }
        do {
            var request = try Request(method: head.method, target: head.target, headers: headers, body: body)
            request.minorVersion = head.minorVersion
            return .request(request, consumed: consumed, keepAlive: keepAlive(head: head, headers: headers))
        } catch {
            // The framing was sound, but the target is not: answer, and the stream is still in step.
            return .rejected(error, consumed: consumed, keepAlive: keepAlive(head: head, headers: headers))
        }
    }

    // MARK: Pieces

    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")

    static func bad(_ message: String) -> HTTPError { HTTPError(.badRequest, message) }

    /// Where the empty line after the headers is: lines end at LF, with or without CR.
    private static func endOfHead(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (linesEnd: Int, bodyStart: Int)? {
        var index = start
        while index < bytes.count {
            guard bytes[index] == lf else { index += 1; continue }
            let next = index + 1
            if next < bytes.count, bytes[next] == lf { return (next, next + 1) }
            if next + 1 < bytes.count, bytes[next] == cr, bytes[next + 1] == lf { return (next + 1, next + 2) }
            index += 1
        }
        return nil
    }

    /// An unfinished head that can only end over a limit is refused now, not after it is whole.
    private static func headTooLong(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, limits: RequestLimits) -> Outcome? {
        let lineEnd = (start..<bytes.count).first { bytes[$0] == lf }
        let lineStop = lineEnd ?? bytes.count
        if let space = (start..<lineStop).first(where: { bytes[$0] == 0x20 }) {
            // The target and " HTTP/1.1" after the method: room for the version beyond the limit.
            if lineStop - space - 1 > limits.maxURLBytes + 10 {
                return .refused(HTTPError(.uriTooLong, "The address is longer than \(limits.maxURLBytes) bytes."))
            }
        } else if lineStop - start > 64 {
            return .refused(bad("The request line does not start with a method."))
        }
        if let lineEnd, bytes.count - lineEnd > limits.maxHeaderBytes + 2 {
            return .refused(HTTPError(.headersTooLarge, "The request's headers are larger than \(limits.maxHeaderBytes) bytes."))
        }
        return nil
    }

    private static func field(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> Result<(name: String, value: String), HTTPError> {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            return .failure(bad("A header line has no colon."))
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else {
            // Includes "Name : value" and folded lines, which RFC 9112 says to refuse.
            return .failure(bad("A header name is empty or holds a character names may not."))
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard !value.contains(0), !value.contains(cr) else {
            return .failure(bad("A header value holds a NUL or a bare CR."))
        }
        return .success((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func keepAlive(head: Head, headers: Headers) -> Bool {
        guard headers["Connection"] != nil else { return head.minorVersion >= 1 }
        let options = headers.values(for: "Connection").flatMap { $0.lowercased().split(separator: ",") }
            .map { $0.trimmingCharacters(in: " \t") }
        if options.contains("close") { return false }
        return head.minorVersion >= 1 || options.contains("keep-alive")
    }
}

/// The lines of a head, without their CR LF.
private struct Lines {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int
    let end: Int

    mutating func next() -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard position <= end, position < bytes.count else { return nil }
        var lineEnd = position
        while lineEnd < end, bytes[lineEnd] != RequestParser.lf { lineEnd += 1 }
        var contentEnd = lineEnd
        if contentEnd > position, bytes[contentEnd - 1] == RequestParser.cr { contentEnd -= 1 }
        let line = bytes[position..<contentEnd]
        position = lineEnd + 1
        return line
    }
}

/// The request line, taken apart.
private struct Head {
    let method: Method
    let target: String
    let minorVersion: Int
    /// The authority of an absolute-form target (`http://host/path`), which replaces Host.
    let authority: String?

    static func parse(requestLine line: Slice<UnsafeBufferPointer<UInt8>>, limits: RequestLimits) -> Result<Head, HTTPError> {
        // "METHOD target HTTP/1.1": exactly two spaces, found in place.
        let space = UInt8(ascii: " ")
        guard let firstSpace = line.firstIndex(of: space),
              let secondSpace = line[(firstSpace + 1)...].firstIndex(of: space),
              !line[(secondSpace + 1)...].contains(space)
        else {
            return .failure(RequestParser.bad("The request line is not “METHOD target HTTP/1.1”."))
        }
        let methodBytes = line[line.startIndex..<firstSpace]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(RequestParser.isTokenCharacter) else {
            return .failure(RequestParser.bad("The request line is not “METHOD target HTTP/1.1”."))
        }
        let version = line[(secondSpace + 1)...]
        let start = version.startIndex
        guard version.count == 8, version.starts(with: "HTTP/".utf8), version[start + 6] == UInt8(ascii: "."),
              let major = digit(version[start + 5]), let minor = digit(version[start + 7])
        else {
            return .failure(RequestParser.bad("The request line does not end in an HTTP version."))
        }
        guard major == 1 else {
            return .failure(HTTPError(Status(code: 505, reason: "HTTP Version Not Supported"), "Mailroom speaks HTTP/1.1."))
        }
        let sentTarget = line[(firstSpace + 1)..<secondSpace]
        guard sentTarget.count <= limits.maxURLBytes else {
            return .failure(HTTPError(.uriTooLong, "The address is longer than \(limits.maxURLBytes) bytes."))
        }
        var isASCII = true
        // A fragment names a place in what the target answers: cut off before anything reads the
        // target (the body's limit, the route, the log), found in the same pass.
        var fragment = sentTarget.endIndex
        for index in sentTarget.indices {
            let byte = sentTarget[index]
            guard byte > 0x20 && byte != 0x7F else {
                return .failure(RequestParser.bad("The address holds spaces, control characters or invalid UTF-8."))
            }
            if byte >= 0x80 { isASCII = false }
            if byte == UInt8(ascii: "#") && fragment == sentTarget.endIndex { fragment = index }
        }
        let rawTarget = sentTarget[..<fragment]
        // ASCII needs no check of its UTF-8; anything else must be valid.
        guard !rawTarget.isEmpty,
              var target = isASCII ? String(decoding: rawTarget, as: UTF8.self) : String(validating: rawTarget, as: UTF8.self)
        else {
            return .failure(RequestParser.bad("The address holds spaces, control characters or invalid UTF-8."))
        }
        var authority: String?
        // The usual origin form ("/path") needs no look for a scheme.
        // Bytes, not characters, as for the origin form: a mark after "?" does not hide it.
        for scheme in ["http://", "https://"] where rawTarget.first != UInt8(ascii: "/") && target.lowercased().hasPrefix(scheme) {
            let rest = target.utf8.dropFirst(scheme.utf8.count)
            let end = rest.firstIndex { byte in
                byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
            } ?? rest.endIndex
            authority = String(Substring(rest[..<end]))
            let tail = Substring(rest[end...])
            target = tail.hasPrefix("/") ? String(tail) : "/" + tail
        }
        return .success(Head(method: Method(methodBytes), target: target, minorVersion: minor, authority: authority))
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }
}

/// How the body is delimited.
private enum Framing {
    case none
    case length(Int)
    case chunked

    static func of(head: Head, headers: Headers, limits: RequestLimits) -> Result<Framing, HTTPError> {
        if head.minorVersion >= 1 {
            let hosts = headers.count(of: "Host")
            guard hosts == 1 || (hosts == 0 && head.authority != nil) else {
                return .failure(RequestParser.bad(hosts == 0 ? "The request has no Host header." : "The request names more than one Host."))
            }
        }
        // Most requests have neither field: only then are their values gathered.
        let framed = headers.fields.contains {
            Headers.sameName($0.name, "Transfer-Encoding") || Headers.sameName($0.name, "Content-Length")
        }
        let encodings = framed ? headers.values(for: "Transfer-Encoding") : []
        let lengths = framed ? headers.values(for: "Content-Length") : []
        if !encodings.isEmpty {
            // Both at once is how requests are smuggled past a proxy: refused (RFC 9112 6.1).
            guard lengths.isEmpty else {
                return .failure(RequestParser.bad("The request has both Transfer-Encoding and Content-Length."))
            }
            guard head.minorVersion >= 1 else {
                return .failure(RequestParser.bad("HTTP/1.0 has no Transfer-Encoding."))
            }
            guard encodings.count == 1, encodings[0].lowercased() == "chunked" else {
                return .failure(HTTPError(Status(code: 501, reason: "Not Implemented"), "Only chunked transfer coding is understood."))
            }
            return .success(.chunked)
        }
        guard lengths.count <= 1 else {
            return .failure(RequestParser.bad("The request has more than one Content-Length."))
        }
        if let text = lengths.first {
            guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let length = Int(text)
            else {
                return .failure(RequestParser.bad("Content-Length must be a number."))
            }
            // Only a body over the usual limit asks whether this one may be larger.
            let limit = length <= limits.maxBodyBytes ? limits.maxBodyBytes : limits.maxBodyBytes(head.method, head.target, headers)
            guard length <= limit else {
                return .failure(HTTPError(.contentTooLarge, "The request's body is larger than \(limit) bytes."))
            }
            return .success(length == 0 ? .none : .length(length))
        }
        if head.method == .post {
            return .failure(HTTPError(.lengthRequired, "A POST needs a Content-Length."))
        }
        return .success(.none)
    }
}
