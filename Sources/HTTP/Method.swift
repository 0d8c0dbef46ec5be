/// The request methods Mailroom knows by name; anything else is `.other`.
public enum Method: Hashable, Sendable {
    case get, head, post, put, delete, options, patch, trace, connect
    case other(String)

    public init(_ name: String) {
        switch name {
        case "GET": self = .get
        case "HEAD": self = .head
        case "POST": self = .post
        case "PUT": self = .put
        case "DELETE": self = .delete
        case "OPTIONS": self = .options
        case "PATCH": self = .patch
        case "TRACE": self = .trace
        case "CONNECT": self = .connect
        default: self = .other(name)
        }
    }

    /// The method a request line names, known ones read from the bytes without making a string.
    init(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        if bytes.elementsEqual("GET".utf8) {
            self = .get
        } else if bytes.elementsEqual("POST".utf8) {
            self = .post
        } else if bytes.elementsEqual("HEAD".utf8) {
            self = .head
        } else {
            self.init(String(decoding: bytes, as: UTF8.self))
        }
    }

    public var name: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .patch: "PATCH"
        case .trace: "TRACE"
        case .connect: "CONNECT"
        case .other(let name): name
        }
    }
}
