/// One HTTP response: a status, header fields and the body bytes.
///
/// Content-Length is written by the server from `body`; Content-Type must always be set.
public struct Response: Sendable {
    public var status: Status { didSet { preparedHead = nil } }
    public var headers: Headers { didSet { preparedHead = nil } }
    public var body: [UInt8] { didSet { preparedHead = nil } }
    /// A body made a piece at a time while it is written, instead of `body`: for answers too
    /// large to hold (a big attachment, a raw message). Its length is the Content-Length.
    public var stream: BodySource? { didSet { preparedHead = nil } }
    /// The status line and fields as bytes, made once by `prepared()` for an answer that is sent
    /// many times as it is (a static file, a cached page); any change to the response drops it.
    private(set) var preparedHead: [UInt8]?

    public init(status: Status = .ok, headers: Headers = Headers(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
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
