import HTTP
import Testing

/// HTTP/1.1 request framing (RFC 9112) over the bytes a connection has received, without a socket.
struct RequestParserTests {
    /// Small limits, so every boundary can be reached with a short request.
    static let limits = RequestLimits(maxURLBytes: 64, maxHeaderBytes: 256, maxHeaderCount: 8, maxBodyBytes: 64)

    private func parse(_ text: String) -> RequestParser.Outcome {
        RequestParser.parse(Array(text.utf8), limits: Self.limits)
    }

    private func parse(_ bytes: [UInt8]) -> RequestParser.Outcome {
        RequestParser.parse(bytes, limits: Self.limits)
    }

    // MARK: Whole requests

    @Test func aSimpleGetGivesItsMethodPathQueryAndHeadersInOrder() throws {
        let text = "GET /mailboxes/inbox?mode=active&selected=1&selected=2 HTTP/1.1\r\n"
            + "Host: mail.example\r\nAccept: text/html\r\nX-Trace: a, b\r\naccept: */*\r\n\r\n"
        let outcome = parse(text)
        let request = try #require(outcome.parsedRequest, "\(outcome)")
        #expect(request.method == .get)
        #expect(request.path == "/mailboxes/inbox")
        #expect(request.query["mode"] == "active")
        #expect(request.query.all("selected") == ["1", "2"])
        #expect(request.target == "/mailboxes/inbox?mode=active&selected=1&selected=2")
        #expect(request.headers.fields.map(\.name) == ["Host", "Accept", "X-Trace", "accept"])
        #expect(request.headers.fields.map(\.value) == ["mail.example", "text/html", "a, b", "*/*"])
        #expect(request.body.isEmpty)
        #expect(outcome.consumed == text.utf8.count)
        #expect(outcome.keepAlive == true)
    }

    @Test(arguments: [
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
        ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
        ("GET / HTTP/1.0\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade , close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", false),
    ])
    func persistenceFollowsTheVersionAndTheConnectionField(text: String, keepAlive: Bool) {
        let outcome = parse(text)
        #expect(outcome.parsedRequest != nil, "\(outcome)")
        #expect(outcome.keepAlive == keepAlive)
    }

    @Test(arguments: [
        "GET /a?b=1 HTTP/1.1\nHost: a\nAccept: text/html\n\n",
        "GET /a?b=1 HTTP/1.1\r\nHost: a\nAccept: text/html\r\n\n",
        "GET /a?b=1 HTTP/1.1\nHost: a\r\nAccept: text/html\n\r\n",
    ])
    func bareLFLineEndingsAreAccepted(text: String) throws {
        let outcome = parse(text)
        let request = try #require(outcome.parsedRequest, "\(outcome)")
        #expect(request.path == "/a")
        #expect(request.query["b"] == "1")
        #expect(request.headers.fields.map(\.name) == ["Host", "Accept"])
        #expect(request.headers["Host"] == "a")
        #expect(request.headers["Accept"] == "text/html")
        #expect(outcome.consumed == text.utf8.count)
    }

    @Test(arguments: ["\r\n", "\n"])
    func oneLeadingEmptyLineIsIgnored(emptyLine: String) throws {
        let text = emptyLine + "GET /x HTTP/1.1\r\nHost: a\r\n\r\n"
        let outcome = parse(text)
        #expect(try #require(outcome.parsedRequest, "\(outcome)").path == "/x")
        #expect(outcome.consumed == text.utf8.count)
    }

    @Test(arguments: ["\r\n\r\n", "\n\n", "\r\n\n", "\n\r\n", "\r\n\r\n\r\n"])
    func twoLeadingEmptyLinesAreRefused(emptyLines: String) {
        #expect(parse(emptyLines + "GET / HTTP/1.1\r\nHost: a\r\n\r\n").refusedStatus == 400)
    }

    /// RFC 9112 2.2: a bare CR is not a line ending; it must make the element invalid (or become a
    /// space, which makes the request line start with one and be invalid too).
    @Test func aBareCRBeforeTheRequestLineIsNotTakenForAnEmptyLine() {
        let outcome = parse("\rGET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(outcome.refusedStatus == 400, "\(outcome)")
    }

    @Test(arguments: ["", "\r", "\n", "\r\n", "G", "GET / HTTP/1.1", "GET / HTTP/1.1\r\nHost: a\r\n\r"])
    func aBufferWithoutAWholeHeadIsIncomplete(text: String) {
        #expect(parse(text).isIncomplete)
    }

    // MARK: Byte by byte

    /// Valid requests, each with its decoded body.
    static let wholeRequests: [(String, String)] = [
        ("GET /mailboxes/inbox?mode=active HTTP/1.1\r\nHost: mail.example\r\nAccept: text/html\r\n\r\n", ""),
        ("\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", ""),
        ("GET /lf HTTP/1.1\nHost: a\nX: 1\n\n", ""),
        ("POST /mailboxes/inbox HTTP/1.1\r\nHost: mail.example\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 19\r\n\r\naction=add&subject=", "action=add&subject="),
        ("POST /upload HTTP/1.1\r\nHost: mail.example\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\nB;x;y=\"q\"\r\n, the world\r\n0;last\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n",
         "hello, the world"),
        ("POST /lf HTTP/1.1\nHost: a\nTransfer-Encoding: chunked\n\n3\r\nabc\r\n0\r\n\r\n", "abc"),
        // Header fields of exactly the byte limit: no prefix may be refused for its size.
        ("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 242) + "\r\n\r\n", ""),
        // A target of exactly the address limit.
        ("GET /" + String(repeating: "t", count: 63) + " HTTP/1.1\r\nHost: a\r\n\r\n", ""),
    ]

    @Test(arguments: wholeRequests)
    func everyPrefixIsIncompleteUntilTheLastByte(text: String, body: String) throws {
        let bytes = Array(text.utf8)
        for length in 0..<bytes.count {
            let outcome = parse(Array(bytes[..<length]))
            #expect(outcome.isIncomplete, "prefix of \(length) of \(bytes.count) bytes: \(outcome)")
        }
        let outcome = parse(bytes)
        let request = try #require(outcome.parsedRequest, "\(outcome)")
        #expect(request.body == Array(body.utf8))
        #expect(outcome.consumed == bytes.count)
    }

    /// The early 414 guesses the target's length from the whole unfinished line, leaving 32 bytes
    /// for the method and version; a longer method must not turn a target within the limit into a
    /// 414 that the same request, arriving in one piece, does not get.
    @Test func aLongMethodDoesNotMakeAnUnfinishedRequestLineLookTooLong() throws {
        let text = String(repeating: "M", count: 30) + " /" + String(repeating: "t", count: 63) + " HTTP/1.1\r\nHost: a\r\n\r\n"
        let bytes = Array(text.utf8)
        #expect(parse(bytes).parsedRequest != nil)
        let firstAnswered = (0..<bytes.count).first { !parse(Array(bytes[..<$0])).isIncomplete }
        #expect(firstAnswered == nil, "a prefix of \(firstAnswered ?? 0) bytes: \(parse(Array(bytes[..<(firstAnswered ?? 0)])))")
    }

    // MARK: Pipelining

    @Test(arguments: wholeRequests)
    func aRequestFollowedByAnotherConsumesExactlyItsOwnBytes(text: String, body: String) throws {
        let second = "GET /second?n=2 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
        let bytes = Array((text + second).utf8)
        let first = parse(bytes)
        #expect(try #require(first.parsedRequest, "\(first)").body == Array(body.utf8))
        let consumed = try #require(first.consumed)
        #expect(consumed == text.utf8.count)
        #expect(first.keepAlive == true)

        let next = parse(Array(bytes[consumed...]))
        let request = try #require(next.parsedRequest, "\(next)")
        #expect(request.path == "/second")
        #expect(request.query["n"] == "2")
        #expect(next.consumed == second.utf8.count)
        #expect(next.keepAlive == false)
    }

    @Test func theStartOfAPipelinedRequestDoesNotHoldUpTheOneBeforeIt() {
        let first = "GET /one HTTP/1.1\r\nHost: a\r\n\r\n"
        let outcome = parse(first + "GET /tw")
        #expect(outcome.parsedRequest?.path == "/one")
        #expect(outcome.consumed == first.utf8.count)
    }

    // MARK: Bodies

    @Test func aContentLengthBodyIsTakenExactlyAndNoMore() throws {
        let head = "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 7\r\n\r\n"
        let outcome = parse(head + "a=1&b=2" + "GET / HTTP/1.1\r\n")
        #expect(try #require(outcome.parsedRequest, "\(outcome)").body == Array("a=1&b=2".utf8))
        #expect(outcome.consumed == head.utf8.count + 7)
    }

    @Test func aBodyOfExactlyTheLimitIsAccepted() throws {
        let body = String(repeating: "b", count: 64)
        let outcome = parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 64\r\n\r\n" + body)
        #expect(try #require(outcome.parsedRequest, "\(outcome)").body.count == 64)
    }

    /// An import may be larger than other requests: only a POST to the upload path, and behind
    /// a token only with that token, in a Content-Length or in chunks.
    @Test func onlyAnUploadWithItsTokenMayBeLargerThanTheLimit() throws {
        let limits = RequestLimits(maxURLBytes: 64, maxHeaderBytes: 256, maxHeaderCount: 8, maxBodyBytes: 64,
                                   uploadPath: "/up", maxUploadBytes: 256,
                                   uploadAuthorization: { _, field in field == "Bearer t0ken" })
        let body = String(repeating: "m", count: 200)
        func outcome(_ method: String, _ path: String, _ token: String?, chunked: Bool = false) -> RequestParser.Outcome {
            let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
            let framing = chunked ? "Transfer-Encoding: chunked\r\n\r\nc8\r\n\(body)\r\n0\r\n\r\n"
                : "Content-Length: 200\r\n\r\n\(body)"
            return RequestParser.parse(Array("\(method) \(path) HTTP/1.1\r\nHost: a\r\n\(authorization)\(framing)".utf8), limits: limits)
        }
        #expect(try #require(outcome("POST", "/up?mailbox=x", "t0ken").parsedRequest).body.count == 200)
        #expect(try #require(outcome("POST", "/up", "t0ken", chunked: true).parsedRequest).body.count == 200)
        for refused in [outcome("POST", "/up", nil), outcome("POST", "/up", "t0kem"), outcome("POST", "/elsewhere", "t0ken"),
                        outcome("PUT", "/up", "t0ken"), outcome("POST", "/up", "wrong", chunked: true)] {
            guard case .refused(let error) = refused else {
                Issue.record("accepted: \(refused)")
                continue
            }
            #expect(error.status.code == 413)
        }
    }

    @Test(arguments: ["0", "00", "007"])
    func leadingZerosInContentLengthAreDecimal(length: String) throws {
        let body = length == "007" ? "1234567" : ""
        let outcome = parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(length)\r\n\r\n" + body)
        #expect(try #require(outcome.parsedRequest, "\(outcome)").body == Array(body.utf8))
    }

    @Test(arguments: [.get, .head, .delete, .options] as [HTTP.Method])
    func aRequestWithoutALengthHasAnEmptyBody(method: HTTP.Method) throws {
        let head = "\(method.name) /x HTTP/1.1\r\nHost: a\r\n\r\n"
        let outcome = parse(head + "trailing")
        let request = try #require(outcome.parsedRequest, "\(outcome)")
        #expect(request.method == method)
        #expect(request.body.isEmpty)
        #expect(outcome.consumed == head.utf8.count)
    }

    @Test(arguments: [
        ("5\r\nhello\r\n0\r\n\r\n", "hello"),
        ("A\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
        ("a\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
        ("1F\r\n" + String(repeating: "x", count: 31) + "\r\n0\r\n\r\n", String(repeating: "x", count: 31)),
        ("1f\r\n" + String(repeating: "x", count: 31) + "\r\n0\r\n\r\n", String(repeating: "x", count: 31)),
        ("005\r\nhello\r\n000\r\n\r\n", "hello"),
        ("0\r\n\r\n", ""),
        ("1\r\na\r\n1\r\nb\r\n1\r\nc\r\n0\r\n\r\n", "abc"),
        ("5;a=1;b=\"two\"\r\nhello\r\n0;end\r\n\r\n", "hello"),
        ("5\r\nhello\r\n0\r\nX-Trailer: 1\r\nY: 2\r\n\r\n", "hello"),
        ("5\r\nhe\r\nl\r\n0\r\n\r\n", "he\r\nl"),
    ])
    func chunkedBodiesAreDecoded(chunks: String, body: String) throws {
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        let outcome = parse(head + chunks + "GET / HTTP/1.1\r\n")
        #expect(try #require(outcome.parsedRequest, "\(outcome)").body == Array(body.utf8))
        #expect(outcome.consumed == head.utf8.count + chunks.utf8.count)
    }

    @Test(arguments: ["chunked", "Chunked", "CHUNKED"])
    func theChunkedCodingIsNamedWithoutRegardToCase(coding: String) throws {
        let outcome = parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \(coding)\r\n\r\n2\r\nok\r\n0\r\n\r\n")
        #expect(try #require(outcome.parsedRequest, "\(outcome)").body == Array("ok".utf8))
    }

    // MARK: Host and absolute-form

    @Test func http10NeedsNoHost() {
        #expect(parse("GET / HTTP/1.0\r\n\r\n").parsedRequest?.path == "/")
    }

    @Test(arguments: [
        ("GET http://mail.example/a/b?x=1 HTTP/1.1\r\n\r\n", "mail.example", "/a/b", "x=1"),
        ("GET http://mail.example:8080/ HTTP/1.1\r\n\r\n", "mail.example:8080", "/", ""),
        ("GET http://mail.example HTTP/1.1\r\n\r\n", "mail.example", "/", ""),
        ("GET HTTP://Mail.Example/c HTTP/1.1\r\n\r\n", "Mail.Example", "/c", ""),
        ("GET https://mail.example/d HTTP/1.1\r\n\r\n", "mail.example", "/d", ""),
        // RFC 9112 3.2.2: the target's authority wins over a Host field.
        ("GET http://mail.example/e HTTP/1.1\r\nHost: other.example\r\n\r\n", "mail.example", "/e", ""),
        // The authority ends at the "?" byte, though a mark after it makes one character of both.
        ("GET http://mail.example?\u{301}x=1 HTTP/1.1\r\n\r\n", "mail.example", "/", "%CC%81x=1"),
        // A fragment is cut off before the authority is looked for.
        ("GET http://mail.example#x HTTP/1.1\r\n\r\n", "mail.example", "/", ""),
        ("GET http://mail.example/f?y=2#z HTTP/1.1\r\n\r\n", "mail.example", "/f", "y=2"),
    ])
    func anAbsoluteFormTargetGivesTheHostAndThePath(text: String, host: String, path: String, query: String) throws {
        let outcome = parse(text)
        let request = try #require(outcome.parsedRequest, "\(outcome)")
        #expect(request.headers.values(for: "Host") == [host])
        #expect(request.path == path)
        let expectedQuery = try FormData(urlEncoded: query)
        #expect(request.query == expectedQuery)
    }

    /// RFC 3986 3.2: the authority ends at the first "/", "?" or "#", so a query can follow it directly.
    @Test func anAbsoluteFormTargetWithAQueryButNoPathKeepsTheQueryOutOfTheHost() throws {
        let outcome = parse("GET http://mail.example?x=1 HTTP/1.1\r\n\r\n")
        let request = try #require(outcome.parsedRequest, "\(outcome)")
        #expect(request.headers["Host"] == "mail.example")
        #expect(request.path == "/")
        #expect(request.query["x"] == "1")
    }

    /// A fragment is no part of what the server is asked for: the route, the query and the
    /// target kept for the log all end before it.
    @Test func aFragmentIsCutOffTheTarget() throws {
        let outcome = parse("GET /messages/7?keep=unread#top HTTP/1.1\r\nHost: a\r\n\r\n")
        let request = try #require(outcome.parsedRequest, "\(outcome)")
        #expect(request.path == "/messages/7")
        #expect(request.query["keep"] == "unread")
        #expect(request.target == "/messages/7?keep=unread")
    }

    // MARK: Refusals

    /// A request the parser must refuse, and the status it must refuse it with.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let label: String
        let bytes: [UInt8]
        let status: Int

        init(_ label: String, _ text: String, _ status: Int) {
            self.init(label, Array(text.utf8), status)
        }

        init(_ label: String, _ bytes: [UInt8], _ status: Int) {
            self.label = label
            self.bytes = bytes
            self.status = status
        }

        var testDescription: String { "\(label) → \(status)" }
    }

    private func expectRefused(_ refusal: Refusal) {
        let outcome = parse(refusal.bytes)
        #expect(outcome.refusedStatus == refusal.status, "\(refusal.label): \(outcome)")
    }

    static let requestLines: [Refusal] = [
        Refusal("two parts", "GET /\r\nHost: a\r\n\r\n", 400),
        Refusal("no target", "GET HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("two spaces", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("leading space", " GET / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("trailing space", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400),
        Refusal("tabs", "GET\t/\tHTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("four parts", "GET / x HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("method not a token", "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("no version", "GET / \r\nHost: a\r\n\r\n", 400),
        Refusal("short version", "GET / HTTP/1\r\nHost: a\r\n\r\n", 400),
        Refusal("long version", "GET / HTTP/1.1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("two-digit minor", "GET / HTTP/1.10\r\nHost: a\r\n\r\n", 400),
        Refusal("no dot", "GET / HTTP/11\r\nHost: a\r\n\r\n", 400),
        Refusal("letter minor", "GET / HTTP/1.x\r\nHost: a\r\n\r\n", 400),
        Refusal("wrong protocol", "GET / HTTX/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("lower-case version", "GET / http/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("mixed-case version", "GET / Http/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("extra CR", "GET / HTTP/1.1\r\r\nHost: a\r\n\r\n", 400),
        Refusal("HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        Refusal("HTTP/3.0", "GET / HTTP/3.0\r\nHost: a\r\n\r\n", 505),
        Refusal("HTTP/0.9", "GET / HTTP/0.9\r\nHost: a\r\n\r\n", 505),
    ]

    @Test(arguments: requestLines)
    func malformedRequestLinesAreRefused(refusal: Refusal) {
        expectRefused(refusal)
    }

    static let targets: [Refusal] = [
        Refusal("a tab", "GET /a\tb HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("a space", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("SOH", "GET /a\u{01}b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("DEL", "GET /a\u{7F} HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("NUL", "GET /a\u{00}b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("bare CR", "GET /a\rb HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("0xFF", Array("GET /a".utf8) + [0xFF] + Array(" HTTP/1.1\r\nHost: a\r\n\r\n".utf8), 400),
        Refusal("truncated sequence", Array("GET /a".utf8) + [0xC3, 0x28] + Array(" HTTP/1.1\r\nHost: a\r\n\r\n".utf8), 400),
        Refusal("overlong slash", Array("GET /a".utf8) + [0xC0, 0xAF] + Array(" HTTP/1.1\r\nHost: a\r\n\r\n".utf8), 400),
        Refusal("surrogate", Array("GET /a".utf8) + [0xED, 0xA0, 0x80] + Array(" HTTP/1.1\r\nHost: a\r\n\r\n".utf8), 400),
        Refusal("65 bytes", "GET /" + String(repeating: "t", count: 64) + " HTTP/1.1\r\nHost: a\r\n\r\n", 414),
        Refusal("request line unfinished but too long", "GET /" + String(repeating: "t", count: 200), 414),
        Refusal("request line unfinished, one leading empty line", "\r\nGET /" + String(repeating: "t", count: 200), 414),
    ]

    @Test(arguments: targets)
    func badTargetsAreRefused(refusal: Refusal) {
        expectRefused(refusal)
    }

    @Test func anUnfinishedRequestLineWithinTheLimitIsStillIncomplete() {
        #expect(parse("GET /" + String(repeating: "t", count: 63)).isIncomplete)
    }

    static let headerFields: [Refusal] = [
        Refusal("no colon", "GET / HTTP/1.1\r\nHost: a\r\nX-Flag\r\n\r\n", 400),
        Refusal("space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
        Refusal("tab before colon", "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", 400),
        Refusal("empty name", "GET / HTTP/1.1\r\nHost: a\r\n: x\r\n\r\n", 400),
        Refusal("name not a token", "GET / HTTP/1.1\r\nHost: a\r\nX(Y): 1\r\n\r\n", 400),
        Refusal("obs-fold with a space", "GET / HTTP/1.1\r\nHost: a\r\nX: one\r\n two\r\n\r\n", 400),
        Refusal("obs-fold with a tab", "GET / HTTP/1.1\r\nHost: a\r\nX: one\r\n\ttwo\r\n\r\n", 400),
        Refusal("obs-fold holding a colon", "GET / HTTP/1.1\r\nHost: a\r\nX: one\r\n Y: two\r\n\r\n", 400),
        Refusal("NUL in a value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{00}b\r\n\r\n", 400),
        Refusal("bare CR in a value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n", 400),
        Refusal("CR CR LF", "GET / HTTP/1.1\r\nHost: a\r\nX: a\r\r\n\r\n", 400),
        Refusal("bytes over the limit", "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 243) + "\r\n\r\n", 431),
        Refusal("count over the limit", "GET / HTTP/1.1\r\nHost: a\r\n"
            + (1...8).map { "X-\($0): 1\r\n" }.joined() + "\r\n", 431),
        Refusal("head unfinished but already too large", "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 300), 431),
        Refusal("head unfinished, many whole lines too large", "GET / HTTP/1.1\r\n"
            + String(repeating: "X-Padding: 0123456789\r\n", count: 20), 431),
    ]

    @Test(arguments: headerFields)
    func badHeaderFieldsAreRefused(refusal: Refusal) {
        expectRefused(refusal)
    }

    @Test func exactlyTheMostHeaderFieldsAreAccepted() throws {
        let text = "GET / HTTP/1.1\r\nHost: a\r\n" + (1...7).map { "X-\($0): 1\r\n" }.joined() + "\r\n"
        let outcome = parse(text)
        #expect(try #require(outcome.parsedRequest, "\(outcome)").headers.fields.count == 8)
    }

    static let hosts: [Refusal] = [
        Refusal("no Host on 1.1", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400),
        Refusal("two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        Refusal("two Host fields of one value", "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", 400),
        Refusal("two Host fields, cases differ", "GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", 400),
    ]

    @Test(arguments: hosts)
    func aMissingOrRepeatedHostIsRefused(refusal: Refusal) {
        expectRefused(refusal)
    }

    static let contentLengths: [Refusal] = [
        Refusal("letters", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n", 400),
        Refusal("hex", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x5\r\n\r\nhello", 400),
        Refusal("plus sign", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello", 400),
        Refusal("minus sign", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -5\r\n\r\nhello", 400),
        Refusal("decimal point", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5.0\r\n\r\nhello", 400),
        Refusal("empty", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", 400),
        Refusal("only spaces", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:   \r\n\r\n", 400),
        Refusal("a list of equal values", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 1\r\n\r\nx", 400),
        Refusal("two numbers", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 1\r\n\r\nx", 400),
        Refusal("two fields of one value", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", 400),
        Refusal("two fields that differ", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\ncontent-length: 2\r\n\r\nxy", 400),
        Refusal("over the limit, no body yet", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 65\r\n\r\n", 413),
        Refusal("far over the limit, no body yet", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 999999999\r\n\r\n", 413),
        Refusal("POST without a length", "POST / HTTP/1.1\r\nHost: a\r\n\r\n", 411),
    ]

    @Test(arguments: contentLengths)
    func badContentLengthsAreRefused(refusal: Refusal) {
        expectRefused(refusal)
    }

    static let transferEncodings: [Refusal] = [
        Refusal("with Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 400),
        Refusal("after Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        Refusal("on HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        Refusal("gzip", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        Refusal("gzip then chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501),
        Refusal("identity", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n", 501),
    ]

    @Test(arguments: transferEncodings)
    func unusableTransferEncodingsAreRefused(refusal: Refusal) {
        expectRefused(refusal)
    }

    static let chunkedBodies: [Refusal] = [
        Refusal("size not hex", "xyz\r\nabc\r\n0\r\n\r\n", 400),
        Refusal("size empty", "\r\nabc\r\n0\r\n\r\n", 400),
        Refusal("size signed", "-3\r\nabc\r\n0\r\n\r\n", 400),
        Refusal("size with 0x", "0x3\r\nabc\r\n0\r\n\r\n", 400),
        Refusal("size with a space inside", "1 0\r\n", 400),
        Refusal("size line too long", String(repeating: "0", count: 2_000), 400),
        Refusal("data longer than its size", "3\r\nhello\r\n0\r\n\r\n", 400),
        // RFC 9112 7.1: the chunked coding's lines end in CRLF; a bare LF there is how a request
        // is smuggled past a proxy that reads it differently.
        Refusal("size line ended by a bare LF", "5\nhello\r\n0\r\n\r\n", 400),
        Refusal("size line with an extension ended by a bare LF", "5;a=1\nhello\r\n0\r\n\r\n", 400),
        Refusal("last chunk ended by a bare LF", "5\r\nhello\r\n0\n\r\n", 400),
        Refusal("data ended by a bare LF", "5\r\nhello\n0\r\n\r\n", 400),
        Refusal("data ended by a bare CR", "5\r\nhello\r0\r\n\r\n", 400),
        Refusal("trailer ended by a bare LF", "5\r\nhello\r\n0\r\nX: 1\n\r\n", 400),
        Refusal("empty line after the trailers a bare LF", "5\r\nhello\r\n0\r\n\n", 400),
        Refusal("every line ended by a bare LF", "5\nhello\n0\n\n", 400),
        Refusal("data longer than its size, unfinished", "3\r\nhello", 400),
        Refusal("one chunk over the limit, no data yet", "41\r\n", 413),
        Refusal("a huge size, no data yet", "FFFFFFFFFFFFFFFFFFFFFFFF\r\n", 413),
        Refusal("chunks that add up over the limit", "20\r\n" + String(repeating: "x", count: 32) + "\r\n20\r\n"
            + String(repeating: "y", count: 32) + "\r\n1\r\nz\r\n0\r\n\r\n", 413),
    ]

    @Test(arguments: chunkedBodies)
    func badChunkedBodiesAreRefused(refusal: Refusal) {
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        expectRefused(Refusal(refusal.label, Array(head.utf8) + refusal.bytes, refusal.status))
    }

    @Test func chunksOfExactlyTheLimitAreAccepted() throws {
        let outcome = parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "20\r\n" + String(repeating: "x", count: 32) + "\r\n20\r\n" + String(repeating: "y", count: 32) + "\r\n0\r\n\r\n")
        #expect(try #require(outcome.parsedRequest, "\(outcome)").body.count == 64)
    }

    // MARK: Rejections that keep the stream in step

    @Test(arguments: [
        "GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /a%4 HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /a%FF HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /a%00 HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /a?x=%zz HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET relative HTTP/1.1\r\nHost: a\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
        "POST /a%zz HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
        "POST /a%zz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    ])
    func aWellFramedRequestWithABadTargetIsRejectedAndTheNextOneStillParses(first: String) throws {
        let second = "GET /next HTTP/1.1\r\nHost: a\r\n\r\n"
        let bytes = Array((first + second).utf8)
        let outcome = parse(bytes)
        #expect(outcome.rejectedStatus == 400, "\(outcome)")
        let consumed = try #require(outcome.consumed)
        #expect(consumed == first.utf8.count)
        #expect(outcome.keepAlive == true)

        let next = parse(Array(bytes[consumed...]))
        #expect(next.parsedRequest?.path == "/next", "\(next)")
        #expect(next.consumed == second.utf8.count)
    }

    @Test func aRejectedRequestAskingToCloseStillCloses() {
        let outcome = parse("GET /a%zz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        #expect(outcome.rejectedStatus == 400, "\(outcome)")
        #expect(outcome.keepAlive == false)
    }
}

fileprivate extension RequestParser.Outcome {
    var parsedRequest: Request? {
        if case .request(let request, _, _) = self { request } else { nil }
    }

    /// The bytes taken by a parsed or rejected request.
    var consumed: Int? {
        switch self {
        case .request(_, let consumed, _), .rejected(_, let consumed, _): consumed
        case .incomplete, .refused: nil
        }
    }

    var keepAlive: Bool? {
        switch self {
        case .request(_, _, let keepAlive), .rejected(_, _, let keepAlive): keepAlive
        case .incomplete, .refused: nil
        }
    }

    var refusedStatus: Int? {
        if case .refused(let error) = self { error.status.code } else { nil }
    }

    var rejectedStatus: Int? {
        if case .rejected(let error, _, _) = self { error.status.code } else { nil }
    }

    var isIncomplete: Bool {
        if case .incomplete = self { true } else { false }
    }
}
