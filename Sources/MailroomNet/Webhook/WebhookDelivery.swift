/// One POST of a JSON body to a webhook target, with headers of the caller's own.
public struct WebhookDelivery: Sendable {
    public var target: WebhookTarget
    /// JSON.
    public var body: [UInt8]
    /// Sent after Host, Content-Type and User-Agent, in this order: e.g. ("X-Mailroom-Signature",
    /// "sha256=..."), ("X-Mailroom-Delivery", "42"). A Content-Type or User-Agent here replaces
    /// the client's own.
    public var headers: [(String, String)]

    public init(target: WebhookTarget, body: [UInt8], headers: [(String, String)]) {
        self.target = target
        self.body = body
        self.headers = headers
    }

    /// Why `headers` cannot be sent, or nil: a name that is not an HTTP token, a value with a
    /// control character (CR and LF would start a header, or a body, of the value's choosing),
    /// or a header that frames the request, which the client writes itself.
    public var headerProblem: String? {
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                return "The webhook header name \"\(Self.printable(name))\" is not an HTTP token; nothing was sent."
            }
            guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
                return "The webhook header \(name) has a line break or control character in its value; nothing was sent."
            }
            guard !Self.framingHeaders.contains(name.lowercased()) else {
                return "The webhook header \(name) is the client's own to write; nothing was sent."
            }
        }
        return nil
    }

    /// Every header of the request but Content-Length, which libevent adds from the body.
    var requestHeaders: [(String, String)] {
        let given = Set(headers.map { $0.0.lowercased() })
        var all = [("Host", target.hostHeader)]
        if !given.contains("content-type") { all.append(("Content-Type", "application/json")) }
        if !given.contains("user-agent") { all.append(("User-Agent", "Mailroom")) }
        all += headers
        // One connection per delivery: the receiver need not keep it open for more.
        all.append(("Connection", "close"))
        return all
    }

    private static let framingHeaders: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "expect", "te", "upgrade", "trailer",
    ]

    /// RFC 9110 5.6.2: tchar.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// A name fit for a message: control characters shown as '?'.
    private static func printable(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 < 0x20 || $0 == 0x7F ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
    }
}
