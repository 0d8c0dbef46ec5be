/// Limits that a request must keep to; each broken one has its own status.
public struct RequestLimits: Sendable {
    /// The request target; longer is 414.
    public var maxURLBytes: Int
    /// All header lines together; more is 431.
    public var maxHeaderBytes: Int
    /// How many header fields; more is 431.
    public var maxHeaderCount: Int
    /// The body, however it is framed; more is 413.
    public var maxBodyBytes: Int
    /// A POST whose path starts with `uploadPath` (a mail import) may send up to `maxUploadBytes`;
    /// with `uploadAuthorization`, only one whose `Authorization` field it accepts (so that,
    /// behind a password, nobody who has not got the API token can make Mailroom hold a large
    /// body). It is asked only for a body over `maxBodyBytes`, and it is where a wrong token is
    /// counted as a guess, so this door is no way around the count.
    public var uploadPath: String?
    public var maxUploadBytes: Int
    public var uploadAuthorization: UploadAuthorization?
    /// The client's address, for `uploadAuthorization`; each connection sets its own.
    public var peer = ""

    /// Whether the client at `peer` with this `Authorization` field (nil: none, or more than
    /// one) may send a large upload.
    public typealias UploadAuthorization = @Sendable (_ peer: String, _ authorization: String?) -> Bool

    public init(maxURLBytes: Int, maxHeaderBytes: Int, maxHeaderCount: Int, maxBodyBytes: Int,
                uploadPath: String? = nil, maxUploadBytes: Int = 0, uploadAuthorization: UploadAuthorization? = nil) {
        self.maxURLBytes = maxURLBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.uploadPath = uploadPath
        self.maxUploadBytes = maxUploadBytes
        self.uploadAuthorization = uploadAuthorization
    }

    /// The most a body may hold in a request for `target` made with `method` and `headers`.
    func maxBodyBytes(_ method: Method, _ target: String, _ headers: Headers) -> Int {
        guard let uploadPath, method == .post, target.hasPrefix(uploadPath) else { return maxBodyBytes }
        if let uploadAuthorization {
            let given = headers.values(for: "Authorization")
            guard uploadAuthorization(peer, given.count == 1 ? given[0] : nil) else { return maxBodyBytes }
        }
        return max(maxBodyBytes, maxUploadBytes)
    }

    /// The most any one request's body may hold.
    public var largestBody: Int { max(maxBodyBytes, uploadPath == nil ? 0 : maxUploadBytes) }
}

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
            case .success(let field): headers.add(field.name, field.value)
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
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(RequestParser.isTokenCharacter) else {
            return .failure(RequestParser.bad("The request line is not “METHOD target HTTP/1.1”."))
        }
        let version = parts[2]
        let start = version.startIndex
        guard version.count == 8, version.starts(with: "HTTP/".utf8), version[start + 6] == UInt8(ascii: "."),
              let major = digit(version[start + 5]), let minor = digit(version[start + 7])
        else {
            return .failure(RequestParser.bad("The request line does not end in an HTTP version."))
        }
        guard major == 1 else {
            return .failure(HTTPError(Status(code: 505, reason: "HTTP Version Not Supported"), "Mailroom speaks HTTP/1.1."))
        }
        let rawTarget = parts[1]
        guard rawTarget.count <= limits.maxURLBytes else {
            return .failure(HTTPError(.uriTooLong, "The address is longer than \(limits.maxURLBytes) bytes."))
        }
        guard !rawTarget.isEmpty, rawTarget.allSatisfy({ $0 > 0x20 && $0 != 0x7F }),
              var target = String(validating: rawTarget, as: UTF8.self)
        else {
            return .failure(RequestParser.bad("The address holds spaces, control characters or invalid UTF-8."))
        }
        var authority: String?
        // The usual origin form ("/path") needs no look for a scheme.
        for scheme in ["http://", "https://"] where rawTarget.first != UInt8(ascii: "/") && target.lowercased().hasPrefix(scheme) {
            let rest = target.dropFirst(scheme.count)
            let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            authority = String(rest[..<end])
            let tail = rest[end...]
            target = tail.hasPrefix("/") ? String(tail) : "/" + tail
        }
        return .success(Head(
            method: Method(String(decoding: parts[0], as: UTF8.self)), target: target,
            minorVersion: minor, authority: authority))
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
            let hosts = headers.values(for: "Host")
            guard hosts.count == 1 || (hosts.isEmpty && head.authority != nil) else {
                return .failure(RequestParser.bad(hosts.isEmpty ? "The request has no Host header." : "The request names more than one Host."))
            }
        }
        let encodings = headers.values(for: "Transfer-Encoding")
        let lengths = headers.values(for: "Content-Length")
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

/// The chunked transfer coding (RFC 9112 7.1), decoded once the whole body has arrived.
///
/// Every line of it ends in CRLF. RFC 9112 lets a server take a bare LF for the end of a header
/// line, but not inside the chunked coding: a proxy in front that reads a chunk-size line ended by a
/// bare LF differently would see another request in this body (request smuggling), so that is a 400.
private enum Chunked {
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
