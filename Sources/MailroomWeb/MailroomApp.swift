import HTTP
import MailroomCore
import Synchronization

/// The whole web application as one `(Request) -> Response` function over a shared mailbox.
public final class MailroomApp: Sendable {
    let inbox: Mutex<Mailbox>
    let files: StaticFiles
    let now: @Sendable () -> Int64

    public init(mailbox: Mailbox, publicFolder: String, now: @escaping @Sendable () -> Int64) {
        self.inbox = Mutex(mailbox)
        self.files = StaticFiles(root: publicFolder)
        self.now = now
    }

    /// A copy of the mailbox as it is at this moment.
    public var snapshot: Mailbox { inbox.withLock { $0 } }

    /// The page for a request refused before routing, such as one over the server's limits.
    public func response(for error: HTTPError) -> Response {
        var response = ErrorPages.response(for: error)
        SecurityHeaders.apply(to: &response)
        return response
    }

    public func respond(to request: Request) -> Response {
        var response: Response
        do {
            response = try route(request)
        } catch {
            response = ErrorPages.response(for: error)
        }
        SecurityHeaders.apply(to: &response)
        return response
    }

    private func route(_ request: Request) throws(HTTPError) -> Response {
        let isRead = request.method == .get || request.method == .head
        switch (Route(path: request.path), request.method) {
        case (.root, _) where isRead:
            return .redirect(.found, to: Paths.inbox)
        case (.inbox, _) where isRead:
            return try showInbox(request)
        case (.inbox, .post):
            return try changeInbox(request)
        case (.message(let text), _):
            guard let id = MessageID(text) else { throw HTTPError(.notFound, "There is no message “\(text)”.") }
            if isRead { return try showMessage(id, request: request) }
            if request.method == .post { return try changeMessage(id, request: request) }
            throw methodNotAllowed(allow: "GET, HEAD, POST")
        case (.inbox, _):
            throw methodNotAllowed(allow: "GET, HEAD, POST")
        case (.root, _):
            throw methodNotAllowed(allow: "GET, HEAD")
        case (.other, _):
            guard let file = files.response(for: request.path) else {
                throw HTTPError(.notFound, "There is no page at this address.")
            }
            guard isRead else { throw methodNotAllowed(allow: "GET, HEAD") }
            return file
        }
    }

    private func methodNotAllowed(allow: String) -> HTTPError {
        HTTPError(.methodNotAllowed, "This address does not accept that method.", headers: ["Allow": allow])
    }

}

/// Where a path leads, before the method is considered.
private enum Route {
    case root, inbox
    case message(Substring)
    case other

    init(path: String) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        switch segments.count {
        case 1 where segments.first == "": self = .root
        case 2 where segments.first == "mailboxes" && segments.last == "inbox": self = .inbox
        case 2 where segments.first == "messages": self = .message(segments.last ?? "")
        default: self = .other
        }
    }
}
