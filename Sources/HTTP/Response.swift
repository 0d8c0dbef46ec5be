/// One HTTP response: a status, header fields and the body bytes.
///
/// Content-Length is written by the server from `body`; Content-Type must always be set.
public struct Response: Sendable {
    public var status: Status
    public var headers: Headers
    public var body: [UInt8]

    public init(status: Status = .ok, headers: Headers = Headers(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

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
}
