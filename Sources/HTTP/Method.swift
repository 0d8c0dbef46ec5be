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
