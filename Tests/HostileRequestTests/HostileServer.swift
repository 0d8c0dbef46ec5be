import HTTP
import MailroomCore
import MailroomNet
import MailroomWeb
import Testing

/// The real libevent server on a free port of 127.0.0.1 with small limits and Mailroom's security
/// on, serving a fresh app of three messages; it stops when the test lets go of it.
final class HostileServer {
    /// Small enough that every limit is cheap to cross, and a short timeout for slow clients.
    static let configuration = ServerConfiguration(
        host: "127.0.0.1", port: 0, threads: 2,
        maxBodyBytes: 4096, maxURLBytes: 1024, maxHeaderBytes: 4096, timeoutSeconds: 2)
    static let formToken = "t0ken"
    /// A form that adds a message: accepted, it would change the library.
    static let addForm = "csrf=\(formToken)&action=add&subject=Hostile"
    /// What a response to a refused request may weigh at most to count as a small page.
    static let smallPageBytes = 8 * 1024
    /// How long a test waits for an answer the server should give at once.
    static let answerSeconds = 5.0

    let app: MailroomApp
    let server: Server
    var port: Int { server.port }

    init() throws {
        let messages = ["Alpha", "Beta", "Gamma"].enumerated().map { offset, subject in
            Message(id: MessageID(Int64(offset + 1)), subject: subject, createdAt: 1_790_000_000 - Int64(offset) * 60)
        }
        let app = try MailroomApp(
            library: Library(inbox: Mailbox(messages: messages)), publicFolder: Self.publicFolder,
            now: { 1_790_000_000 },
            security: SecurityPolicy(allowedHosts: ["127.0.0.1", "localhost"], formToken: Self.formToken))
        let server = try Server(
            configuration: Self.configuration, logRequests: false,
            errorPage: app.response(for:), handler: app.respond(to:))
        try server.start()
        self.app = app
        self.server = server
    }

    deinit { server.stop() }

    /// Sends `bytes` on a new connection, in `pieces` if given, and reads until the server closes
    /// the connection, `expecting` complete responses have arrived, or `within` seconds pass.
    func exchange(
        _ bytes: [UInt8], pieces: Int = 1, expecting: Int? = nil, within seconds: Double = answerSeconds
    ) throws -> Exchange {
        let connection = try RawConnection(port: port)
        if pieces > 1 {
            let size = max(1, (bytes.count + pieces - 1) / pieces)
            let parts = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
            try connection.send(pieces: parts, pause: 0.02)
        } else {
            try connection.send(bytes)
        }
        let received = connection.read(within: seconds) { bytes in
            guard let expecting else { return false }
            return ResponseParser.parse(bytes, connectionClosed: false).responses.count >= expecting
        }
        let (responses, rest) = ResponseParser.parse(received.bytes, connectionClosed: received.closed)
        return Exchange(responses: responses, rest: rest, closed: received.closed)
    }

    /// A plain GET of the Inbox on a new connection answers 200 with the page.
    func expectStillServesInbox(after what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let exchange = try self.exchange(RequestBytes.get("/mailboxes/inbox"))
            let response = exchange.responses.first
            #expect(response?.status == 200, "after \(what), GET /mailboxes/inbox got \(exchange.summary)",
                    sourceLocation: sourceLocation)
            #expect(response?.text.contains("Alpha") == true, "the Inbox page lost its messages after \(what)",
                    sourceLocation: sourceLocation)
        } catch {
            Issue.record("after \(what), GET /mailboxes/inbox failed: \(error)", sourceLocation: sourceLocation)
        }
    }

    /// The folder of static files, found from this file's own path.
    static let publicFolder: String = {
        let file = "\(#filePath)"
        guard let range = file.firstRange(of: "/Tests/HostileRequestTests/") else {
            preconditionFailure("HostileRequestTests moved: cannot find the package root from \(file)")
        }
        return String(file[..<range.lowerBound]) + "/Public"
    }()
}

/// What came back for one connection's worth of bytes.
struct Exchange {
    let responses: [RawResponse]
    /// Bytes after the last complete response (an unfinished or unparseable one).
    let rest: [UInt8]
    let closed: Bool

    var summary: String {
        let answers = responses.isEmpty ? "no response" : responses.map(\.summary).joined(separator: " ;; ")
        let tail = rest.isEmpty ? "" : " + \(rest.count) unparsed bytes: \(String(decoding: rest.prefix(120), as: UTF8.self))"
        return answers + tail + (closed ? " (closed)" : " (left open)")
    }
}

/// Request bytes written out by hand, so they can be as wrong as a test needs.
enum RequestBytes {
    static let host = "Host: 127.0.0.1"

    /// A request with `Host` and `Connection: close` unless `headers` is given instead.
    static func make(
        _ method: String, _ target: [UInt8], version: String = "HTTP/1.1",
        headers: [String] = [host, "Connection: close"], body: [UInt8] = []
    ) -> [UInt8] {
        var bytes = Array("\(method) ".utf8) + target + Array(" \(version)\r\n".utf8)
        for field in headers { bytes += Array("\(field)\r\n".utf8) }
        return bytes + Array("\r\n".utf8) + body
    }

    static func get(_ target: String, headers: [String] = [host, "Connection: close"]) -> [UInt8] {
        make("GET", Array(target.utf8), headers: headers)
    }

    /// A form post to the Inbox with the given Content-Length (nil for none) and framing fields.
    static func post(
        _ body: [UInt8], contentLength: String? = nil, extra: [String] = [], target: String = "/mailboxes/inbox"
    ) -> [UInt8] {
        var headers = [host, "Content-Type: application/x-www-form-urlencoded"]
        if let contentLength { headers.append("Content-Length: \(contentLength)") }
        headers += extra
        headers.append("Connection: close")
        return make("POST", Array(target.utf8), headers: headers, body: body)
    }

    /// A form post whose Content-Length is right.
    static func post(_ body: [UInt8]) -> [UInt8] {
        post(body, contentLength: String(body.count))
    }

    /// `body` in chunked transfer coding, in chunks of at most `size` bytes.
    static func chunked(_ body: [UInt8], size: Int = 1000) -> [UInt8] {
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: body.count, by: size) {
            let chunk = body[start..<min(start + size, body.count)]
            bytes += Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)
        }
        return bytes + Array("0\r\n\r\n".utf8)
    }
}
