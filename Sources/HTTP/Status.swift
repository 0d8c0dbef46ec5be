/// An HTTP status code with its reason phrase.
public struct Status: Hashable, Sendable {
    public let code: Int
    public let reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    public static let ok = Status(code: 200, reason: "OK")
    public static let found = Status(code: 302, reason: "Found")
    public static let seeOther = Status(code: 303, reason: "See Other")
    public static let notModified = Status(code: 304, reason: "Not Modified")
    public static let badRequest = Status(code: 400, reason: "Bad Request")
    public static let forbidden = Status(code: 403, reason: "Forbidden")
    public static let notFound = Status(code: 404, reason: "Not Found")
    public static let methodNotAllowed = Status(code: 405, reason: "Method Not Allowed")
    public static let lengthRequired = Status(code: 411, reason: "Length Required")
    public static let contentTooLarge = Status(code: 413, reason: "Content Too Large")
    public static let uriTooLong = Status(code: 414, reason: "URI Too Long")
    public static let unsupportedMediaType = Status(code: 415, reason: "Unsupported Media Type")
    public static let unprocessableContent = Status(code: 422, reason: "Unprocessable Content")
    public static let headersTooLarge = Status(code: 431, reason: "Request Header Fields Too Large")
    public static let internalServerError = Status(code: 500, reason: "Internal Server Error")
    public static let serviceUnavailable = Status(code: 503, reason: "Service Unavailable")
}
