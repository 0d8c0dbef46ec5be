import Glibc

/// A minimal HTTP/1.1 client over one raw TCP connection to 127.0.0.1, kept open between requests
/// (as a browser keeps it) until either side says `Connection: close`.
final class HTTPClient {
    let port: Int
    /// How long one read may wait for the server before the request counts as unanswered.
    let timeoutSeconds: Int
    /// How many TCP connections this client has opened, to tell keep-alive from reconnecting.
    private(set) var connectionsOpened = 0
    private var socket: Int32 = -1
    /// Bytes read past the end of the last response.
    private var buffer: [UInt8] = []
    /// Whatever must outlive this client, such as the in-process server it talks to.
    private let owner: AnyObject?
    /// A receive buffer this small (SO_RCVBUF, set before connecting) makes the server's socket
    /// take a big answer a piece at a time, as a slow reader does.
    var receiveBufferBytes: Int32?
    /// The loopback address to connect from (127.0.0.2 is a second client); 127.0.0.1 when nil.
    var sourceAddress: String?

    init(port: Int, timeoutSeconds: Int = 5, keepingAlive owner: AnyObject? = nil) {
        self.port = port
        self.timeoutSeconds = timeoutSeconds
        self.owner = owner
    }

    deinit { close() }

    var isConnected: Bool { socket >= 0 }

    /// Sends one request and reads its whole response. `Host` and `Content-Length` are added
    /// when missing; the connection is closed afterwards if either side asked for that.
    func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws -> HTTPResponse {
        var fields = headers
        if !fields.contains(where: { $0.0.lowercased() == "host" }) {
            fields.insert(("Host", "127.0.0.1:\(port)"), at: 0)
        }
        if !body.isEmpty || method == "POST", !fields.contains(where: { $0.0.lowercased() == "content-length" }) {
            fields.append(("Content-Length", String(body.count)))
        }
        var head = "\(method) \(target) HTTP/1.1\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try write(Array(head.utf8) + body)
        let response = try readResponse(isHead: method == "HEAD")
        let askedToClose = fields.contains { $0.0.lowercased() == "connection" && $0.1.lowercased() == "close" }
        if askedToClose || response.closesConnection { close() }
        return response
    }

    /// Writes bytes exactly as given, opening a connection first if there is none.
    func write(_ bytes: [UInt8]) throws {
        if socket < 0 { try connect() }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw TestFailure("send to 127.0.0.1:\(port) failed: \(Self.lastError)") }
            offset += sent
        }
    }

    /// Reads the next response to a request sent with `write` (a GET's: it has a body).
    func receive() throws -> HTTPResponse {
        try readResponse(isHead: false)
    }

    /// Reads everything until the server closes the connection, for checking that nothing
    /// follows a response (a HEAD must not carry a body).
    func readUntilClosed() throws -> [UInt8] {
        while try fill() {}
        let bytes = buffer
        close()
        return bytes
    }

    func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
        buffer = []
    }

    // MARK: Reading a response

    private func readResponse(isHead: Bool) throws -> HTTPResponse {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd = buffer.firstRange(of: separator)
        while headEnd == nil {
            guard try fill() else { throw TestFailure("the server closed the connection without a response") }
            headEnd = buffer.firstRange(of: separator)
        }
        let head = String(decoding: buffer[..<headEnd!.lowerBound], as: UTF8.self)
        buffer.removeFirst(headEnd!.upperBound)

        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst()
        let statusParts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw TestFailure("not an HTTP/1.x status line: \(statusLine)")
        }
        let headers = try lines.map { line -> (name: String, value: String) in
            guard let colon = line.firstIndex(of: ":") else { throw TestFailure("malformed header line: \(line)") }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: " \t"))
        }
        let partial = HTTPResponse(
            status: status, reason: statusParts.count > 2 ? String(statusParts[2]) : "", headers: headers, body: [])
        let body = try readBody(of: partial, isHead: isHead)
        return HTTPResponse(status: status, reason: partial.reason, headers: headers, body: body)
    }

    private func readBody(of response: HTTPResponse, isHead: Bool) throws -> [UInt8] {
        if isHead || response.status == 204 || response.status == 304 || (100..<200).contains(response.status) {
            return []
        }
        if let chunked = response.header("Transfer-Encoding") {
            throw TestFailure("this client does not read Transfer-Encoding: \(chunked); the server should send Content-Length")
        }
        guard let lengthText = response.header("Content-Length") else {
            while try fill() {}
            let bytes = buffer
            close()
            return bytes
        }
        guard let length = Int(lengthText), length >= 0 else { throw TestFailure("bad Content-Length: \(lengthText)") }
        while buffer.count < length {
            guard try fill() else {
                throw TestFailure("the connection closed after \(buffer.count) of \(length) body bytes")
            }
        }
        defer { buffer.removeFirst(length) }
        return Array(buffer.prefix(length))
    }

    /// Reads what has arrived into `buffer`; false at end of stream. Throws when nothing arrives in time.
    private func fill() throws -> Bool {
        guard socket >= 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk.prefix(count))
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                throw TestFailure("no answer from 127.0.0.1:\(port) within \(timeoutSeconds) s")
            }
            if errno == ECONNRESET { return false }
            throw TestFailure("recv failed: \(Self.lastError)")
        }
    }

    // MARK: Connecting

    private func connect() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed: \(Self.lastError)") }
        // A read that waits longer than this is a hung server, reported as a failure, not a hang.
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBufferBytes {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let sourceAddress {
            guard bindSource(fd, to: sourceAddress) else {
                let error = Self.lastError
                Glibc.close(fd)
                throw TestFailure("cannot connect from \(sourceAddress): \(error)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            let error = Self.lastError
            Glibc.close(fd)
            throw TestFailure("cannot connect to 127.0.0.1:\(port): \(error)")
        }
        socket = fd
        buffer = []
        connectionsOpened += 1
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
