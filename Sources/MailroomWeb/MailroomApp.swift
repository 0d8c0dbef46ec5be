#if canImport(Glibc)
import Glibc
#endif
import HTTP
import MailroomCore
import MailroomStore
import Synchronization

/// Runs inside every commit, just before it is made durable; throwing abandons the whole batch.
/// Tests use it to make a commit fail.
public typealias BeforeCommit = @Sendable () throws -> Void

/// The whole web application as one `(Request) -> Response` function over the mail store.
public final class MailroomApp: Sendable {
    public let store: Store
    let beforeCommit: BeforeCommit?
    let files: StaticFiles
    let now: @Sendable () -> Int64
    let security: SecurityPolicy
    /// The password gate, when Mailroom was started with a password.
    let signIn: SignIn?
    /// Wrong secrets per client address, over every door: sign-in, the API token, SMTP AUTH.
    public let guesses: Guesses
    /// What scripts send as `Authorization: Bearer …` to pass the password gate on `/metrics`
    /// and the API; nil when there is none.
    let apiToken: String?
    /// What the server and the app count, for `/metrics`.
    public let metrics = Metrics()
    /// Rows a list page shows at a time.
    let pageSize: Int
    let rowCache = RowCache()
    let commits = GroupCommit()
    /// Wakes `wait` calls after each commit.
    let commitWatch = CommitWatch()
    /// Announces each commit to the live lists (`GET /events`); the server writes the events.
    public let events: EventHub
    let pageCache = PageCache()
    /// The cap on large downloads streaming at once, for the whole process.
    let downloads = DownloadSlots()
    let sliceCache = SliceCache()
    /// The mailboxes and their counts as of a revision: every request names a mailbox, and
    /// asking SQLite each time would cost more than answering a cached page.
    private let directory = Mutex<(revision: Int64, mailboxes: [MailboxSummary])?>(nil)
    /// Differs on every start, so an ETag from before a restart never matches a page after it.
    let boot = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    /// A file this app made for itself (the in-memory convenience), removed with the app.
    private let ownedFile: String?

    public static let defaultPageSize = 50
    public static let pageSizes = 10...500

    public convenience init(
        store: Store, publicFolder: String, now: @escaping @Sendable () -> Int64,
        security: SecurityPolicy, signIn: SignIn? = nil, apiToken: String? = nil,
        pageSize: Int = MailroomApp.defaultPageSize, beforeCommit: BeforeCommit? = nil
    ) {
        self.init(store: store, ownedFile: nil, publicFolder: publicFolder, now: now, security: security,
                  signIn: signIn, apiToken: apiToken, pageSize: pageSize, beforeCommit: beforeCommit)
    }

    private init(
        store: Store, ownedFile: String?, publicFolder: String, now: @escaping @Sendable () -> Int64,
        security: SecurityPolicy, signIn: SignIn?, apiToken: String? = nil, pageSize: Int, beforeCommit: BeforeCommit?
    ) {
        self.store = store
        self.ownedFile = ownedFile
        self.security = security
        self.signIn = signIn
        self.guesses = signIn?.guesses ?? Guesses()
        self.apiToken = apiToken.flatMap { $0.isEmpty ? nil : $0 }
        self.pageSize = min(max(pageSize, Self.pageSizes.lowerBound), Self.pageSizes.upperBound)
        self.beforeCommit = beforeCommit
        self.files = StaticFiles(root: publicFolder, headers: SecurityHeaders.fields)
        self.now = now
        self.events = EventHub(lastID: store.revision)
        store.observeCommits { [weak self] revision in self?.committed(revision) }
    }

    /// An app over a new store in a temporary file that holds `library`, with no security
    /// checks unless given; the file goes when the app does. For tests and tools.
    public convenience init(
        library: Library, publicFolder: String, now: @escaping @Sendable () -> Int64,
        security: SecurityPolicy = .off, signIn: SignIn? = nil, apiToken: String? = nil, pageSize: Int = 500,
        beforeCommit: BeforeCommit? = nil
    ) throws(StoreError) {
        let path = "/tmp/mailroom-app-\(UInt64.random(in: 0...UInt64.max)).sqlite"
        let store = try Store(path: path)
        do {
            try store.write { transaction in try transaction.replaceAll(with: library) }
        } catch {
            throw error as? StoreError ?? .failed("\(error)")
        }
        self.init(store: store, ownedFile: path, publicFolder: publicFolder, now: now, security: security,
                  signIn: signIn, apiToken: apiToken, pageSize: pageSize, beforeCommit: beforeCommit)
    }

    /// An app whose Inbox holds `mailbox`'s messages, with no security checks.
    public convenience init(mailbox: Mailbox, publicFolder: String, now: @escaping @Sendable () -> Int64) throws(StoreError) {
        try self.init(library: Library(inbox: mailbox), publicFolder: publicFolder, now: now)
    }

    deinit {
        guard let ownedFile else { return }
        store.close()
        for suffix in ["", "-wal", "-shm"] { _ = unlink(ownedFile + suffix) }
    }

    /// The token that forms carry, for pages to embed.
    var token: String? { security.formToken }

    /// The whole library as it is at this moment: every row read (for tests of small stores).
    public var library: Library { (try? store.library()) ?? Library() }

    /// The Inbox as it is at this moment.
    public var snapshot: Mailbox { library[.inbox] ?? Mailbox() }

    /// Every mailbox with its counts, as of the last commit.
    func mailboxes() throws(HTTPError) -> [MailboxSummary] {
        // Loaded first: what is read below is at least this revision, so it may stand for it.
        let revision = store.revision
        if let known = directory.withLock({ $0 }), known.revision == revision { return known.mailboxes }
        let mailboxes = try reading { reader throws(StoreError) in try reader.mailboxes() }
        directory.withLock { known in
            if (known?.revision ?? -1) < revision { known = (revision, mailboxes) }
        }
        return mailboxes
    }

    /// Reads from the store; a failure is a 500 that says so.
    func reading<Result>(_ body: (Reader) throws(StoreError) -> Result) throws(HTTPError) -> Result {
        do {
            return try store.read(body)
        } catch {
            throw HTTPError(.internalServerError, "Mailroom could not read its database. (\(error))")
        }
    }

    /// Reads from one snapshot with a body that may itself refuse with an HTTP error, such as a
    /// post that changes only what the page shows.
    func readingView<Result>(_ body: (Reader) throws(HTTPError) -> Result) throws(HTTPError) -> Result {
        let outcome = try reading { reader throws(StoreError) -> Swift.Result<Result, HTTPError> in
            do throws(HTTPError) { return .success(try body(reader)) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    /// Runs `command` in a transaction and answers only once it is durable. A command that
    /// throws changes nothing; nor does a commit that fails. Commands from requests arriving
    /// together are committed together (see `GroupCommit`); readers never wait for a commit.
    ///
    /// `isolated: false` runs the command without a savepoint of its own, and a command that
    /// throws then abandons its whole batch. For a command that cannot be refused, only fail
    /// (storing mail): a savepoint makes the search index write its pending words to the file,
    /// so without one a batch's messages share one index segment instead of one each.
    func perform<Result: Sendable>(
        isolated: Bool = true, expected: Bool = false, _ command: (Transaction) throws(HTTPError) -> Result
    ) throws(HTTPError) -> Result {
        var outcome: Swift.Result<Result, HTTPError>?
        let saveFailure = withoutActuallyEscaping(command) { command -> HTTPError? in
            let entry = GroupCommit.Entry { transaction in
                guard isolated else {
                    do throws(HTTPError) {
                        outcome = .success(try command(transaction))
                        return true
                    } catch {
                        outcome = .failure(error)
                        throw error
                    }
                }
                do {
                    outcome = .success(try transaction.attempt { () throws -> Result in try command(transaction) })
                    return true
                } catch let error as HTTPError {
                    outcome = .failure(error)
                    return false
                } catch {
                    outcome = .failure(HTTPError(.internalServerError, "Mailroom could not make this change. (\(error))"))
                    return false
                }
            }
            commits.submit(entry, expected: expected, commit: commitBatch)
            return entry.saveFailure
        }
        if let saveFailure { throw saveFailure }
        switch outcome {
        case .success(let result)?: return result
        case .failure(let error)?: throw error
        case nil: throw HTTPError(.internalServerError, "The change was not run.")
        }
    }

    /// How much lower a thread's nice value is while it leads a batch.
    static let leaderBoost: Int32 = 5

    /// Runs a batch in order in one transaction, each command in its own savepoint (one that
    /// fails leaves no trace), then commits once. Only the leading thread runs this.
    func commitBatch(_ batch: [GroupCommit.Entry]) {
        var applied: [GroupCommit.Entry] = []
        var ran = 0
        // The leader holds the one write lock that every post waits on. While it does, it runs
        // ahead of the threads that render pages (those never wait for it), so a long batch,
        // such as a 100,000-message delete, lets go of the lock sooner. On Linux the nice value
        // is per thread, and `who` 0 is the calling thread. Raising it needs CAP_SYS_NICE (root
        // has it); without, the batch runs at the thread's usual priority.
        let thread = __priority_which_t(PRIO_PROCESS.rawValue)
        let usual = getpriority(thread, 0)
        let raised = setpriority(thread, 0, max(usual - Self.leaderBoost, -20)) == 0
        defer { if raised { setpriority(thread, 0, usual) } }
        do {
            try store.write { transaction in
                for entry in batch {
                    ran += 1
                    if try entry.apply(to: transaction) { applied.append(entry) }
                }
                try beforeCommit?()
            }
            metrics.countCommit(changes: batch.count)
        } catch {
            let failure = HTTPError(
                .internalServerError, "Mailroom could not save this change, so nothing was changed. (\(error))")
            // What ran is rolled back with the batch; what did not run yet never will.
            for entry in applied + batch.dropFirst(ran) { entry.saveFailure = failure }
        }
    }

    /// Whether answering `request` may store a change, and so wait for a commit: every POST, and
    /// opening a message, which marks it read. A server answers these off its event loops.
    public func mayStore(_ request: Request) -> Bool {
        request.method == .post || (request.method == .get && request.path.hasPrefix("/messages/"))
            || request.path == Self.apiPrefix + "wait"
    }

    /// The page for a request refused before routing, such as one over the server's limits.
    public func response(for error: HTTPError) -> Response {
        var response = ErrorPages.response(for: error)
        SecurityHeaders.apply(to: &response)
        return response
    }

    public func respond(to request: Request) -> Response {
        var response: Response
        if request.method == .post { metrics.posts.wrappingAdd(1, ordering: .relaxed) }
        if Self.isAPI(request) {
            response = respondToAPI(request)
            SecurityHeaders.apply(to: &response)
            return response
        }
        // The token check and the route both read a post's form: decode it once.
        let request = request.method == .post ? request.decodingForm() : request
        do throws(HTTPError) {
            if let refusal = security.refusal(for: request) { throw refusal }
            response = try route(request)
        } catch {
            response = ErrorPages.response(for: error)
        }
        Paths.keepLocal(&response)
        SecurityHeaders.apply(to: &response)
        return response
    }

    private func route(_ request: Request) throws(HTTPError) -> Response {
        let isRead = request.method == .get || request.method == .head
        let isPost = request.method == .post
        let route = Route(path: request.path)
        if let signIn, route.needsSignIn, signIn.session(of: request, now: now()) == nil,
           !(route.takesToken && carriesAPIToken(request)) {
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
        case .health where isRead:
            return health()
        case .metrics where isRead:
            return metricsPage()
        case .health, .metrics:
            throw methodNotAllowed(allow: "GET, HEAD")
        case .events where isRead:
            return Self.eventStream
        case .events:
            throw methodNotAllowed(allow: "GET")
        case .mailboxes where isRead:
            return showMailboxes(request)
        case .mailboxes where isPost:
            return try changeMailboxes(request)
        case .mailbox(let slug) where isRead:
            return try showList(try mailboxID(slug), request: request)
        case .mailbox(let slug) where isPost:
            return try changeList(try mailboxID(slug), request: request)
        case .emptyTrash where isRead:
            return try showEmptyTrash()
        case .emptyTrash where isPost:
            return try emptyTrash(request)
        case .deleteMailbox(let slug) where isRead:
            return try showDeleteMailbox(try mailboxID(slug))
        case .deleteMailbox(let slug) where isPost:
            return try deleteMailbox(try mailboxID(slug), request: request)
        case .messageFile(let text, let file) where isRead:
            guard let id = MessageID(text) else { throw HTTPError(.notFound, "There is no message “\(text)”.") }
            switch file {
            case "html": return try showMailHTML(id, request: request)
            case "raw": return try downloadRawMail(id, isHead: request.method == .head)
            default: throw HTTPError(.notFound, "There is no page at this address.")
            }
        case .messagePart(let text, let part) where isRead:
            guard let id = MessageID(text), let number = Int(part), number >= 0, String(number) == part else {
                throw HTTPError(.notFound, "There is no attachment at this address.")
            }
            return try downloadMailPart(id, part: number, isHead: request.method == .head)
        case .messageFile, .messagePart:
            throw methodNotAllowed(allow: "GET, HEAD")
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
            guard let file = files.response(
                for: request.path, ifNoneMatch: request.headers["If-None-Match"],
                ifModifiedSince: request.headers["If-Modified-Since"]) else {
                throw HTTPError(.notFound, "There is no page at this address.")
            }
            guard isRead else { throw methodNotAllowed(allow: "GET, HEAD") }
            return file
        }
    }

    /// An API request: refused as a form would be (another site, another Host), then behind the
    /// password unless it carries the API token or a signed-in session's cookie.
    private func respondToAPI(_ request: Request) -> Response {
        if let refusal = security.refusal(for: request, isAPI: true) { return Self.apiError(refusal) }
        if let signIn, signIn.session(of: request, now: now()) == nil, case let token = checkAPIToken(request), token != .valid {
            if case .wait(let seconds) = token {
                return Self.apiError(HTTPError(
                    Status(code: 429, reason: "Too Many Requests"),
                    "Too many wrong API tokens from this address: try again in \(seconds) second\(seconds == 1 ? "" : "s").",
                    headers: ["Retry-After": String(seconds)]))
            }
            return Self.apiError(HTTPError(
                Status(code: 401, reason: "Unauthorized"),
                apiToken == nil
                    ? "Mailroom has a password: sign in, or start it with --api-token-file and send Authorization: Bearer."
                    : "Mailroom has a password: send Authorization: Bearer with the API token.",
                headers: ["WWW-Authenticate": "Bearer"]))
        }
        return api(request)
    }

    /// Whether `request` says `Authorization: Bearer` with the API token (compared in constant time).
    func carriesAPIToken(_ request: Request) -> Bool {
        checkAPIToken(request) == .valid
    }

    public enum TokenCheck: Equatable, Sendable {
        case absent, valid, wrong
        /// Too many wrong guesses from this address: not checked.
        case wait(seconds: Int64)
    }

    /// What `Authorization: Bearer` says. Behind a password, a wrong token counts as a wrong
    /// guess from the client's address (see `Guesses`) and is logged as a warning.
    func checkAPIToken(_ request: Request) -> TokenCheck {
        checkAPIToken(authorization: request.headers["Authorization"], peer: request.peer)
    }

    /// The same for an `Authorization` field from `peer`: also what decides, while a request is
    /// still arriving, whether an import may be larger than other requests.
    public func checkAPIToken(authorization field: String?, peer: String) -> TokenCheck {
        guard let apiToken, let field else { return .absent }
        let words = field.split(separator: " ", maxSplits: 1)
        guard words.count == 2, words[0].lowercased() == "bearer" else { return .absent }
        let time = now()
        if let signIn, case .wait(let seconds, let first) = guesses.check(peer, now: time) {
            if first { signIn.warn("API: \(peer) must wait \(seconds) s after wrong tokens; not checked") }
            return .wait(seconds: seconds)
        }
        guard Secret.equal(Array(words[1].utf8), Array(apiToken.utf8)) else {
            if let signIn {
                let count = guesses.failed(peer, now: time)
                signIn.warn("API: wrong token from \(peer) (\(count) in a row)")
            }
            return .wrong
        }
        return .valid
    }



    private func methodNotAllowed(allow: String) -> HTTPError {
        HTTPError(.methodNotAllowed, "This address does not accept that method.", headers: ["Allow": allow])
    }

    private func mailboxID(_ slug: Substring) throws(HTTPError) -> MailboxID {
        guard let id = MailboxID(slug: slug), try mailboxes()[id] != nil else {
            throw HTTPError(.notFound, "There is no mailbox “\(slug)”.")
        }
        return id
    }
}

/// Where a path leads, before the method is considered.
private enum Route {
    case root, mailboxes, emptyTrash, signIn, signOut
    case health, metrics, events
    case mailbox(Substring)
    case deleteMailbox(Substring)
    case message(Substring)
    /// `/messages/ID/html` and `/messages/ID/raw`.
    case messageFile(Substring, Substring)
    /// `/messages/ID/parts/N`.
    case messagePart(Substring, Substring)
    case other

    init(path: String) {
        let segments = Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        switch (segments.count, segments.first) {
        case (1, ""): self = .root
        case (1, "signin"): self = .signIn
        case (1, "signout"): self = .signOut
        case (1, "healthz"): self = .health
        case (1, "metrics"): self = .metrics
        case (1, "events"): self = .events
        case (1, "mailboxes"): self = .mailboxes
        case (2, "mailboxes"): self = .mailbox(segments[1])
        case (3, "mailboxes") where segments[1] == "trash" && segments[2] == "empty": self = .emptyTrash
        case (3, "mailboxes") where segments[2] == "delete": self = .deleteMailbox(segments[1])
        case (2, "messages"): self = .message(segments[1])
        case (3, "messages"): self = .messageFile(segments[1], segments[2])
        case (4, "messages") where segments[2] == "parts": self = .messagePart(segments[1], segments[3])
        default: self = .other
        }
    }

    /// Everything but the sign-in page itself and static files sits behind the password.
    var needsSignIn: Bool {
        switch self {
        case .signIn, .other, .health: false
        default: true
        }
    }

    /// Where a script may pass the password gate with the API token instead of signing in.
    var takesToken: Bool {
        switch self {
        case .metrics: true
        default: false
        }
    }
}
