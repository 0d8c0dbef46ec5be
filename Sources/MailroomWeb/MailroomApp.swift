import HTTP
import MailroomCore
import Synchronization

/// Writes a library's changed rows durably, or throws and leaves the stored state as it was.
public typealias SaveChanges = @Sendable (Changes) throws -> Void

/// The whole web application as one `(Request) -> Response` function over a shared library.
public final class MailroomApp: Sendable {
    let state: Mutex<Versioned>

    /// The library and a number that grows with every stored change: pages' ETags use it.
    struct Versioned {
        var library: Library
        var revision: Int
    }
    let save: SaveChanges
    let files: StaticFiles
    let now: @Sendable () -> Int64
    let security: SecurityPolicy
    /// The password gate, when Mailroom was started with a password.
    let signIn: SignIn?
    let rowCache = RowCache()
    let commits = GroupCommit()
    let pageCache = PageCache()
    /// Differs on every start, so an ETag from before a restart never matches a page after it.
    let boot = String(UInt64.random(in: 0...UInt64.max), radix: 36)

    /// `save` is called with every change before it becomes visible, under one lock, so two
    /// posts never interleave and nothing is shown that was not stored.
    public init(
        library: Library, publicFolder: String, now: @escaping @Sendable () -> Int64,
        security: SecurityPolicy, signIn: SignIn? = nil, save: @escaping SaveChanges = { _ in }
    ) {
        self.security = security
        self.signIn = signIn
        self.state = Mutex(Versioned(library: library, revision: 1))
        self.save = save
        self.files = StaticFiles(root: publicFolder, headers: SecurityHeaders.fields)
        self.now = now
    }

    /// An app whose Inbox holds `mailbox`'s messages, kept in memory only, with no security checks.
    public convenience init(mailbox: Mailbox, publicFolder: String, now: @escaping @Sendable () -> Int64) {
        self.init(library: Library(inbox: mailbox), publicFolder: publicFolder, now: now, security: .off)
    }

    /// The token that forms carry, for pages to embed.
    var token: String? { security.formToken }

    /// The whole library as it is at this moment.
    public var library: Library { state.withLock { $0.library } }

    /// The library and its revision, read together.
    var versioned: Versioned { state.withLock { $0 } }

    /// The Inbox as it is at this moment.
    public var snapshot: Mailbox { library[.inbox] ?? Mailbox() }

    /// Runs `command` on a copy of the library, stores what changed, and only then makes the
    /// copy current. A command that throws, or a save that fails, changes nothing. Commands from
    /// requests arriving together are saved together (see `GroupCommit`); readers never wait for
    /// a save, since the state lock is only held to swap in the new library.
    func perform<Result: Sendable>(
        _ command: (inout Library) throws(HTTPError) -> Result
    ) throws(HTTPError) -> Result {
        var outcome: Swift.Result<Result, HTTPError>?
        let saveFailure = withoutActuallyEscaping(command) { command -> HTTPError? in
            let entry = GroupCommit.Entry { library in
                do throws(HTTPError) {
                    outcome = .success(try command(&library))
                    return true
                } catch {
                    outcome = .failure(error)
                    return false
                }
            }
            commits.submit(entry, commit: commitBatch)
            return entry.saveFailure
        }
        if let saveFailure { throw saveFailure }
        switch outcome {
        case .success(let result)?: return result
        case .failure(let error)?: throw error
        case nil: throw HTTPError(.internalServerError, "The change was not run.")
        }
    }

    /// Applies a batch in order, each command on top of the ones before that succeeded, then
    /// saves all their rows in one transaction. Only the leading thread runs this.
    ///
    /// Commands change one working copy in place: the library is copied once per batch, not
    /// once per command (a copy costs a retain for every message stored). A command that fails
    /// may have changed part of the copy before it threw, so the copy is then rebuilt from the
    /// current library by running the commands that succeeded again (see `replay`).
    func commitBatch(_ batch: [GroupCommit.Entry]) {
        let current = state.withLock { $0 }
        var next = current.library
        var applied: [GroupCommit.Entry] = []
        for entry in batch {
            if entry.apply(to: &next) {
                applied.append(entry)
            } else {
                (next, applied) = Self.replay(applied, on: current.library)
            }
        }
        let changes = next.changes(since: current.library)
        guard !changes.isEmpty else { return }
        do {
            try save(changes)
        } catch {
            let failure = HTTPError(
                .internalServerError, "Mailroom could not save this change, so nothing was changed. (\(error))")
            for entry in applied { entry.saveFailure = failure }
            return
        }
        state.withLock { $0 = Versioned(library: next, revision: current.revision + 1) }
    }

    /// `base` with `entries` applied in order, and the entries that succeeded. Commands depend
    /// only on the library they are given, so each succeeds again on the same state; should one
    /// fail after all, it is dropped and the rest run again on a fresh copy.
    static func replay(_ entries: [GroupCommit.Entry], on base: Library) -> (Library, [GroupCommit.Entry]) {
        var entries = entries
        while true {
            var library = base
            let succeeded = entries.filter { $0.apply(to: &library) }
            if succeeded.count == entries.count { return (library, succeeded) }
            entries = succeeded
        }
    }

    /// Whether answering `request` may store a change, and so wait for a commit: every POST, and
    /// opening a message, which marks it read. A server answers these off its event loops.
    public func mayStore(_ request: Request) -> Bool {
        request.method == .post || (request.method == .get && request.path.hasPrefix("/messages/"))
    }

    /// The page for a request refused before routing, such as one over the server's limits.
    public func response(for error: HTTPError) -> Response {
        var response = ErrorPages.response(for: error)
        SecurityHeaders.apply(to: &response)
        return response
    }

    public func respond(to request: Request) -> Response {
        var response: Response
        do throws(HTTPError) {
            if let refusal = security.refusal(for: request) { throw refusal }
            response = try route(request)
        } catch {
            response = ErrorPages.response(for: error)
        }
        SecurityHeaders.apply(to: &response)
        return response
    }

    private func route(_ request: Request) throws(HTTPError) -> Response {
        let isRead = request.method == .get || request.method == .head
        let isPost = request.method == .post
        let route = Route(path: request.path)
        if let signIn, route.needsSignIn, signIn.session(of: request, now: now()) == nil {
            return .seeOther(Paths.signIn(next: request.path + (request.query.isEmpty ? "" : "?" + request.query.urlEncoded)))
        }
        switch route {
        case .signIn where isRead:
            return showSignIn(request)
        case .signIn where isPost:
            return try signInPost(request)
        case .signOut where isPost:
            return try signOutPost(request)
        case .root where isRead:
            return .redirect(.found, to: Paths.inbox)
        case .mailboxes where isRead:
            return showMailboxes(request)
        case .mailboxes where isPost:
            return try changeMailboxes(request)
        case .mailbox(let slug) where isRead:
            return try showList(try mailboxID(slug), request: request)
        case .mailbox(let slug) where isPost:
            return try changeList(try mailboxID(slug), request: request)
        case .emptyTrash where isRead:
            return showEmptyTrash()
        case .emptyTrash where isPost:
            return try emptyTrash(request)
        case .deleteMailbox(let slug) where isRead:
            return try showDeleteMailbox(try mailboxID(slug))
        case .deleteMailbox(let slug) where isPost:
            return try deleteMailbox(try mailboxID(slug), request: request)
        case .message(let text) where isRead || isPost:
            guard let id = MessageID(text) else { throw HTTPError(.notFound, "There is no message “\(text)”.") }
            return isRead ? try showMessage(id, request: request) : try changeMessage(id, request: request)
        case .signOut:
            throw methodNotAllowed(allow: "POST")
        case .root, .mailboxes, .emptyTrash, .deleteMailbox, .signIn:
            throw methodNotAllowed(allow: request.path == "/" ? "GET, HEAD" : "GET, HEAD, POST")
        case .mailbox, .message:
            throw methodNotAllowed(allow: "GET, HEAD, POST")
        case .other:
            guard let file = files.response(for: request.path, ifNoneMatch: request.headers["If-None-Match"]) else {
                throw HTTPError(.notFound, "There is no page at this address.")
            }
            guard isRead else { throw methodNotAllowed(allow: "GET, HEAD") }
            return file
        }
    }

    private func methodNotAllowed(allow: String) -> HTTPError {
        HTTPError(.methodNotAllowed, "This address does not accept that method.", headers: ["Allow": allow])
    }

    private func mailboxID(_ slug: Substring) throws(HTTPError) -> MailboxID {
        guard let id = MailboxID(slug: slug), library[id] != nil else {
            throw HTTPError(.notFound, "There is no mailbox “\(slug)”.")
        }
        return id
    }
}

/// Where a path leads, before the method is considered.
private enum Route {
    case root, mailboxes, emptyTrash, signIn, signOut
    case mailbox(Substring)
    case deleteMailbox(Substring)
    case message(Substring)
    case other

    init(path: String) {
        let segments = Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        switch (segments.count, segments.first) {
        case (1, ""): self = .root
        case (1, "signin"): self = .signIn
        case (1, "signout"): self = .signOut
        case (1, "mailboxes"): self = .mailboxes
        case (2, "mailboxes"): self = .mailbox(segments[1])
        case (3, "mailboxes") where segments[1] == "trash" && segments[2] == "empty": self = .emptyTrash
        case (3, "mailboxes") where segments[2] == "delete": self = .deleteMailbox(segments[1])
        case (2, "messages"): self = .message(segments[1])
        default: self = .other
        }
    }

    /// Everything but the sign-in page itself and static files sits behind the password.
    var needsSignIn: Bool {
        switch self {
        case .signIn, .other: false
        default: true
        }
    }
}
