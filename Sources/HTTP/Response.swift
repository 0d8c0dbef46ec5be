/// One HTTP response: a status, header fields and the body bytes.
///
/// Content-Length is written by the server from `body`; Content-Type must always be set.
///
/// A response that was given a header field it cannot write safely (see `Headers`), or a reason
/// phrase that breaks a line, becomes `Response.refusal` (a 500) and stays it whatever is done to
/// it later. Dropping only the bad field would send the rest, and the field lost could be the one
/// that kept the rest safe: a `Content-Disposition: attachment`, a CSP, the `Location` of a 303.
public struct Response: Sendable {
    public var status: Status { didSet { settle() } }
    public var headers: Headers { didSet { settle() } }
    public var body: [UInt8] { didSet { settle() } }
    /// A body made a piece at a time while it is written, instead of `body`: for answers too
    /// large to hold (a big attachment, a raw message). Its length is the Content-Length.
    public var stream: BodySource? { didSet { settle() } }
    /// The status line and fields as bytes, made once by `prepared()` for an answer that is sent
    /// many times as it is (a static file, a cached page); any change to the response drops it.
    private(set) var preparedHead: [UInt8]?
    /// Set by `repeating(while:)`: when the same request may get these bytes again without the
    /// application. Dropped, with `preparedHead`, by any change.
    public internal(set) var repeatable: Repeatable?

    public init(status: Status = .ok, headers: Headers = Headers(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        settle()
    }

    /// What goes out instead of a response that held a field it could not write: nothing of
    /// that response, only a plain 500 whose fields are all constants.
    public static let refusal: Response = {
        var headers = Headers([
            ("Content-Type", "text/plain; charset=utf-8"), ("X-Content-Type-Options", "nosniff"),
            ("Cache-Control", "no-store"),
        ])
        // Carried along so that anything later added to the refusal turns it back into itself.
        headers.markRefused()
        return Response(
            unchecked: .internalServerError, headers: headers,
            body: Array("Mailroom could not answer: the answer held a header it may not send.\n".utf8))
    }()

    /// Whether this is `Response.refusal`, standing in for a response with an unsafe field.
    public var isRefusal: Bool { headers.refusedAField }

    private init(unchecked status: Status, headers: Headers, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Drops the prepared head after a change, and turns a response with an unsafe field into
    /// the refusal. Assigning the whole value runs no observers, so this cannot recurse.
    private mutating func settle() {
        preparedHead = nil
        repeatable = nil
        if headers.refusedAField || Headers.containsLineBreakOrNUL(status.reason) {
            self = Self.refusal
        }
    }

    /// An answer whose body `stream` makes while it is written.
    public init(status: Status = .ok, headers: Headers, stream: BodySource) {
        self.init(status: status, headers: headers)
        self.stream = stream
    }

    /// How many bytes the body has, made yet or not.
    public var bodyLength: Int { stream?.length ?? body.count }

    /// An HTML page in UTF-8.
    public init(status: Status = .ok, html: [UInt8]) {
        self.init(status: status, headers: Headers([("Content-Type", "text/html; charset=utf-8")]), body: html)
    }

    /// Plain text in UTF-8.
    public init(status: Status = .ok, text: String) {
        self.init(status: status, headers: Headers([("Content-Type", "text/plain; charset=utf-8")]), body: Array(text.utf8))
    }

    /// Post/Redirect/Get: `303 See Other` to `location`.
    public static func seeOther(_ location: String) -> Response {
        redirect(.seeOther, to: location)
    }

    public static func redirect(_ status: Status, to location: String) -> Response {
        Response(
            status: status,
            headers: Headers([("Location", location), ("Content-Type", "text/plain; charset=utf-8")]),
            body: Array("See \(location)\n".utf8))
    }

    /// This response with its status line and fields serialized now, so that sending it again
    /// and again adds only the `Date` and `Connection` fields. Nothing should be added to it later:
    /// it is complete.
    public func prepared() -> Response {
        var copy = self
        copy.preparedHead = fieldBytes()
        return copy
    }

    /// Whether `prepared()` made this response and nothing has changed it since.
    public var isPrepared: Bool { preparedHead != nil }
}

extension Response {
    /// `value` as a JSON answer (with a final line end), never kept by a cache: what scripts
    /// read is always the state of the moment.
    public init(json value: JSON, status: Status = .ok) {
        self.init(status: status, headers: Headers([("Content-Type", "application/json")]), body: value.bytes + [UInt8(ascii: "\n")])
        headers.set("Cache-Control", "no-store")
    }
}
