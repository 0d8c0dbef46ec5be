import Glibc

/// One SMTP reply as it came off the wire (RFC 5321 4.2): the code, and the text of each line
/// after `NNN-` or `NNN `.
struct SMTPReply: Equatable, CustomStringConvertible {
    let code: Int
    let lines: [String]

    /// The enhanced status code (RFC 3463) that starts the last line, if there is one.
    var status: String? {
        guard let first = lines.last?.split(separator: " ").first else { return nil }
        let parts = first.split(separator: ".")
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else { return nil }
        return String(first)
    }

    /// Every line's text, one per line.
    var text: String { lines.joined(separator: "\n") }

    /// For a reply to DATA: the N of "Stored as message N".
    var storedMessage: Int? {
        let bytes = Array(text.utf8)
        guard code == 250, let range = bytes.firstRange(of: Array("Stored as message ".utf8)) else { return nil }
        return Int(String(decoding: bytes[range.upperBound...].prefix { (48...57).contains($0) }, as: UTF8.self))
    }

    var description: String { lines.map { "\(code) \($0)" }.joined(separator: " / ") }
}

/// A raw SMTP client over one TCP connection to 127.0.0.1: it writes exactly the bytes it is
/// given and reads replies as they come; every wait is a `poll` with a deadline, never a sleep.
final class SMTPClient {
    let port: Int
    /// How long one reply may take before the test counts it as never coming.
    let timeoutSeconds: Double
    private var fd: Int32
    /// Bytes read; those from `consumed` on are not yet taken as replies.
    private var buffer: [UInt8] = []
    private var consumed = 0
    /// The server closed (or reset) the connection.
    private(set) var closedByServer = false

    /// With `sendBufferBytes`, the socket's send buffer (SO_SNDBUF) is that small, so that
    /// writes stall soon after the server stops reading.
    /// `source` is the loopback address the connection comes from (127.0.0.1 unless given).
    init(port: Int, timeoutSeconds: Double = 10, sendBufferBytes: Int32? = nil, source: String? = nil) throws {
        self.port = port
        self.timeoutSeconds = timeoutSeconds
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed: \(Self.lastError)") }
        if var size = sendBufferBytes {
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            guard bindSource(fd, to: source) else {
                Glibc.close(fd)
                fd = -1
                throw TestFailure("bind to \(source) failed: \(Self.lastError)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            let failure = TestFailure("connect to 127.0.0.1:\(port) failed: \(Self.lastError)")
            Glibc.close(fd)
            fd = -1
            throw failure
        }
        // Each write leaves as its own segment, so a slow client really arrives in pieces.
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Connects, reads the 220 greeting and, unless `ehlo` is nil, says EHLO and reads its 250.
    static func session(port: Int, ehlo: String? = "client.example.test", timeoutSeconds: Double = 10,
                        source: String? = nil) throws -> SMTPClient {
        let client = try SMTPClient(port: port, timeoutSeconds: timeoutSeconds, source: source)
        let greeting = try client.readReply()
        guard greeting.code == 220 else { throw TestFailure("the greeting was \(greeting)") }
        if let ehlo {
            let reply = try client.command("EHLO \(ehlo)")
            guard reply.code == 250 else { throw TestFailure("EHLO was answered \(reply)") }
        }
        return client
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Closes the sending side only (a TCP FIN): the server sees the end of the input, and the
    /// replies still come.
    func shutdownWriting() {
        if fd >= 0 { shutdown(fd, Int32(SHUT_WR)) }
    }

    // MARK: Writing

    /// Writes `bytes` in full. While the server is not taking them, whatever it sends is read
    /// meanwhile, so that neither side waits on the other's full buffer.
    func send(_ bytes: [UInt8]) throws {
        guard fd >= 0 else { throw TestFailure("the connection is closed") }
        let deadline = Deadline(timeoutSeconds)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
                continue
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                guard !deadline.hasPassed else {
                    throw TestFailure("the server took \(offset) of \(bytes.count) bytes and then stopped reading for \(timeoutSeconds) s")
                }
                let events = poll(Int16(POLLOUT | POLLIN), atMost: deadline.remaining)
                if events & Int16(POLLIN) != 0 { readAvailable() }
            default:
                throw TestFailure("send failed after \(offset) of \(bytes.count) bytes: \(Self.lastError)")
            }
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends one command line (CRLF added) and reads its reply.
    func command(_ line: String) throws -> SMTPReply {
        try send(line + "\r\n")
        return try readReply()
    }

    // MARK: Reading

    /// Reads one whole reply: lines up to the one with a space (or nothing) after its code.
    func readReply(within seconds: Double? = nil) throws -> SMTPReply {
        let deadline = Deadline(seconds ?? timeoutSeconds)
        while true {
            if let reply = try takeReply() { return reply }
            guard !closedByServer else {
                throw TestFailure("the server closed the connection before a whole reply; unread: \(Self.show(pending))")
            }
            guard !deadline.hasPassed else {
                throw TestFailure("no whole reply within \(seconds ?? timeoutSeconds) s; unread: \(Self.show(pending))")
            }
            if poll(Int16(POLLIN), atMost: deadline.remaining) != 0 { readAvailable() }
        }
    }

    /// Reads `count` replies, in order, with one deadline for them all.
    func readReplies(_ count: Int, within seconds: Double? = nil) throws -> [SMTPReply] {
        let deadline = Deadline(seconds ?? timeoutSeconds)
        var replies: [SMTPReply] = []
        replies.reserveCapacity(count)
        while replies.count < count {
            while replies.count < count, let reply = try takeReply() { replies.append(reply) }
            guard replies.count < count else { break }
            guard !closedByServer else {
                throw TestFailure("the server closed the connection after \(replies.count) of \(count) replies; last: \(replies.last.map(String.init(describing:)) ?? "none")")
            }
            guard !deadline.hasPassed else {
                throw TestFailure("only \(replies.count) of \(count) replies within \(seconds ?? timeoutSeconds) s; last: \(replies.last.map(String.init(describing:)) ?? "none")")
            }
            if poll(Int16(POLLIN), atMost: deadline.remaining) != 0 { readAvailable() }
        }
        return replies
    }

    /// Everything the server still sends until it closes the connection, unparsed.
    func readUntilClosed(within seconds: Double? = nil) throws -> [UInt8] {
        let deadline = Deadline(seconds ?? timeoutSeconds)
        while !closedByServer {
            guard !deadline.hasPassed else {
                throw TestFailure("the server did not close the connection within \(seconds ?? timeoutSeconds) s; unread: \(Self.show(pending))")
            }
            if poll(Int16(POLLIN), atMost: deadline.remaining) != 0 { readAvailable() }
        }
        defer {
            buffer = []
            consumed = 0
        }
        return pending
    }

    /// The bytes that have arrived and are not yet taken as replies, looking without waiting.
    var unread: [UInt8] {
        if fd >= 0, !closedByServer, poll(Int16(POLLIN), atMost: 0) != 0 { readAvailable() }
        return pending
    }

    /// Waits at most `seconds`, less if the server sends something meanwhile: how a slow client
    /// dawdles between its bytes. Nothing is asserted on how long it took.
    func dawdle(_ seconds: Double) {
        _ = poll(Int16(POLLIN), atMost: seconds)
    }

    /// Sends as much of `bytes` as the server takes until it takes nothing for `seconds` or cuts
    /// the connection off: how many bytes it took.
    func sendWithoutReading(_ bytes: [UInt8], givingUpAfter seconds: Double) throws -> Int {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                guard Glibc.poll(&descriptor, 1, Int32(seconds * 1000)) > 0 else { return offset }
            } else if errno == ECONNRESET || errno == EPIPE {
                // The server cut the connection off: sending ends here too.
                return offset
            } else if errno != EINTR {
                throw TestFailure("send failed after \(offset) bytes: \(Self.lastError)")
            }
        }
        return offset
    }

    /// Waits, reading nothing, until the connection is reset or hung up (a server that closes
    /// with input it never read resets it): whether that came within `seconds`.
    func waitForReset(within seconds: Double) -> Bool {
        guard fd >= 0 else { return true }
        let deadline = Deadline(seconds)
        repeat {
            var descriptor = pollfd(fd: fd, events: 0, revents: 0)
            if Glibc.poll(&descriptor, 1, Int32(max(1, deadline.remaining * 1000))) > 0,
               descriptor.revents & Int16(POLLERR | POLLHUP) != 0 {
                return true
            }
        } while !deadline.hasPassed
        return false
    }

    // MARK: Private

    private var pending: [UInt8] { Array(buffer[consumed...]) }

    /// One reply from the front of the buffer, or nil when it has not all arrived.
    private func takeReply() throws -> SMTPReply? {
        var code: Int?
        var lines: [String] = []
        var start = consumed
        while let end = buffer[start...].firstRange(of: [13, 10]) {
            let line = buffer[start..<end.lowerBound]
            start = end.upperBound
            guard line.count >= 3, let lineCode = Int(String(decoding: line.prefix(3), as: UTF8.self)),
                  line.prefix(3).allSatisfy({ (48...57).contains($0) }),
                  line.count == 3 || line[line.startIndex + 3] == UInt8(ascii: " ") || line[line.startIndex + 3] == UInt8(ascii: "-")
            else { throw TestFailure("not an SMTP reply line: \(Self.show(Array(line)))") }
            if let code, code != lineCode { throw TestFailure("a reply's lines have codes \(code) and \(lineCode)") }
            code = lineCode
            lines.append(String(decoding: line.dropFirst(4), as: UTF8.self))
            if line.count == 3 || line[line.startIndex + 3] == UInt8(ascii: " ") {
                consumed = start
                return SMTPReply(code: lineCode, lines: lines)
            }
        }
        return nil
    }

    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while fd >= 0 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                if consumed > 0 && consumed >= buffer.count / 2 {
                    buffer.removeFirst(consumed)
                    consumed = 0
                }
                buffer += chunk.prefix(count)
            } else if count == 0 {
                closedByServer = true
                return
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return
            } else {
                closedByServer = true
                return
            }
        }
    }

    /// Polls for `events` (hang-ups and errors always count); the events that are ready, 0 for none.
    private func poll(_ events: Int16, atMost seconds: Double) -> Int16 {
        guard fd >= 0 else { return 0 }
        var descriptor = pollfd(fd: fd, events: events, revents: 0)
        let result = Glibc.poll(&descriptor, 1, Int32(max(0, (seconds * 1000).rounded(.up))))
        guard result > 0 else { return 0 }
        // A hang-up or an error reads as the end of the stream.
        return descriptor.revents & Int16(POLLHUP | POLLERR) != 0 ? (descriptor.revents | Int16(POLLIN)) : descriptor.revents
    }

    /// Bytes as readable text for a failure message: printable ASCII as is, the rest escaped.
    static func show(_ bytes: [UInt8], limit: Int = 400) -> String {
        var text = ""
        for byte in bytes.prefix(limit) {
            switch byte {
            case 13: text += "\\r"
            case 10: text += "\\n"
            case 32...126: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\x" + String(byte, radix: 16)
            }
        }
        return bytes.count > limit ? text + "… (\(bytes.count) bytes)" : text
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}

/// A point in monotonic time some seconds from now.
struct Deadline {
    private let end: ContinuousClock.Instant

    init(_ seconds: Double) {
        end = .now + .milliseconds(Int64(seconds * 1000))
    }

    var hasPassed: Bool { ContinuousClock.now >= end }

    var remaining: Double {
        let left = end - ContinuousClock.now
        let (seconds, attoseconds) = left.components
        return max(0, Double(seconds) + Double(attoseconds) / 1e18)
    }
}

/// What a test reads of the mail a server stored, over its HTTP side.
extension RunningMailroom {
    /// The Inbox's rows as (message id, subject), top (newest) first; the server shows up to 500 a page.
    func inboxRows() throws -> [(id: Int, subject: String)] {
        let client = HTTPClient(port: port, timeoutSeconds: 10)
        defer { client.close() }
        let response = try client.send("GET", "/mailboxes/inbox", headers: [("Accept", "text/html")])
        guard response.status == 200 else { throw TestFailure("GET /mailboxes/inbox answered \(response.status)") }
        let subjects = ListHTML.subjects(in: response.text)
        let ids = Self.rowIDs(in: response.text)
        guard ids.count == subjects.count else {
            throw TestFailure("the Inbox shows \(ids.count) rows but \(subjects.count) subjects")
        }
        return Array(zip(ids, subjects)).map { (id: $0.0, subject: $0.1) }
    }

    /// GET /messages/N/raw: the message's bytes as stored, or nil when it answers 404.
    func rawMessage(_ id: Int) throws -> [UInt8]? {
        let client = HTTPClient(port: port, timeoutSeconds: 10)
        defer { client.close() }
        let response = try client.send("GET", "/messages/\(id)/raw")
        if response.status == 404 { return nil }
        guard response.status == 200 else { throw TestFailure("GET /messages/\(id)/raw answered \(response.status)") }
        return response.body
    }

    /// A fresh connection is greeted with 220 and its EHLO answered 250: the server is up.
    func answersAFreshSMTPSession() throws -> Bool {
        guard let smtpPort else { throw TestFailure("this server was started without SMTP") }
        let client = try SMTPClient(port: smtpPort)
        defer { client.close() }
        guard try client.readReply().code == 220 else { return false }
        guard try client.command("EHLO fresh.example.test").code == 250 else { return false }
        return try client.command("QUIT").code == 221
    }

    /// The `data-id` of every row of a list page, in page order.
    private static func rowIDs(in html: String) -> [Int] {
        let marker = Array("<li class=\"row".utf8)
        let idMarker = Array("data-id=\"".utf8)
        let bytes = Array(html.utf8)
        var ids: [Int] = []
        var index = 0
        while let row = bytes[index...].firstRange(of: marker) {
            index = row.upperBound
            guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")),
                  let id = bytes[index..<close].firstRange(of: idMarker) else { continue }
            let digits = bytes[id.upperBound..<close].prefix { (48...57).contains($0) }
            if let value = Int(String(decoding: digits, as: UTF8.self)) { ids.append(value) }
            index = close
        }
        return ids
    }
}

extension SMTPClient {
    /// MAIL, RCPT and DATA, each of which must succeed, then `text` as given (ending in CRLF,
    /// dot-stuffed by the caller where needed) and the closing `.CRLF`: the reply to the text.
    func sendMessage(_ text: [UInt8], from sender: String = "sender@example.test",
                     to recipient: String = "inbox@example.test") throws -> SMTPReply {
        for (line, code) in [("MAIL FROM:<\(sender)>", 250), ("RCPT TO:<\(recipient)>", 250), ("DATA", 354)] {
            let reply = try command(line)
            guard reply.code == code else { throw TestFailure("\(line) was answered \(reply), not \(code)") }
        }
        try send(text + Array(".\r\n".utf8))
        return try readReply()
    }

    func sendMessage(_ text: String) throws -> SMTPReply { try sendMessage(Array(text.utf8)) }
}

/// The real program with SMTP on a free port, on a scratch database of its own, for one test.
final class SMTPTestServer {
    let database: ScratchDatabase
    let mailroom: RunningMailroom

    init(_ label: String, extra: [String] = []) throws {
        database = ScratchDatabase(label)
        mailroom = try RunningMailroom(database: database.path, smtp: true, extra: extra)
    }

    var smtpPort: Int { mailroom.smtpPort! }

    /// A new session, greeted, with EHLO said unless `ehlo` is nil.
    func session(ehlo: String? = "client.example.test") throws -> SMTPClient {
        try SMTPClient.session(port: smtpPort, ehlo: ehlo)
    }

    /// SIGTERM, then the exit code (0 is a clean shutdown).
    func stop() throws -> Int32 { try mailroom.stop() }
}
