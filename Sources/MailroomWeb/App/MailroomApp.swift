import HTTP
import MailroomCore
import MailroomService
import MailroomStore
import Synchronization

/// The whole web application as one `(Request) -> Response` function over the service.
public final class MailroomApp: Sendable {
    /// The application this door serves: the store, the group commit, the change feed.
    public let service: Mailroom
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
    /// Rows a list page shows at a time.
    let pageSize: Int
    let rowCache = RowCache()
    /// Whole list pages, head prepared and security headers included, kept per mailbox while
    /// it is unchanged (see `PageTag`).
    let pages = RevisionCache<PageKey, KeptPage>(maxEntries: 256, maxCost: 8 << 20)
    /// The rows of list pages (a mailbox in its own order, not a search), kept per mailbox
    /// while it is unchanged: edit mode, ticks and notices show the same rows, read once.
    let slices = RevisionCache<SliceKey, ListSlice>(maxEntries: 256)
    /// Each mailbox's tags with their counts, while the mailbox is unchanged.
    let tagLists = RevisionCache<Int, [TagSummary]>(maxEntries: 256)
    /// The sidebar's counts as a page tag shows them, and the revision they were worked out at.
    let sidebar = Mutex<(revision: Int64, counts: String)?>(nil)
    /// The cap on large downloads streaming at once, for the whole process.
    let downloads = DownloadSlots()
    /// Names this app among all made in the process, never reused (see `PageMemo`).
    let serial = MailroomApp.serials.wrappingAdd(1, ordering: .relaxed).newValue
    private static let serials = Atomic<UInt64>(0)
    /// Where a problem goes that no answer can tell (a download cut short after its head was
    /// sent): the server's error output, once `reportProblems(to:)` says so.
    private let problems = Mutex<@Sendable (String) -> Void>({ _ in })
    /// Differs on every start, so an ETag from before a restart never matches a page after it.
    let boot = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    /// Names this database file in the ETags of stored bytes, which outlive restarts: made once
    /// and kept in the file (a per-start value where it cannot be kept).
    let contentTag: String

    public static let defaultPageSize = 50
    public static let pageSizes = 10...500

    public convenience init(
        store: Store, publicFolder: String, now: @escaping @Sendable () -> Int64,
        security: SecurityPolicy, signIn: SignIn? = nil, apiToken: String? = nil,
        pageSize: Int = MailroomApp.defaultPageSize, beforeCommit: BeforeCommit? = nil
    ) {
        let service = Mailroom(store: store, now: now, beforeCommit: beforeCommit, describeChange: Self.describeChange)
        self.init(service: service, publicFolder: publicFolder, now: now, security: security,
                  signIn: signIn, apiToken: apiToken, pageSize: pageSize)
    }

    /// The web door over `service`.
    public init(
        service: Mailroom, publicFolder: String, now: @escaping @Sendable () -> Int64,
        security: SecurityPolicy, signIn: SignIn?, apiToken: String? = nil, pageSize: Int
    ) {
        self.service = service
        self.security = security
        self.signIn = signIn
        self.guesses = signIn?.guesses ?? Guesses()
        self.apiToken = apiToken.flatMap { $0.isEmpty ? nil : $0 }
        self.pageSize = min(max(pageSize, Self.pageSizes.lowerBound), Self.pageSizes.upperBound)
        self.files = StaticFiles(root: publicFolder, headers: SecurityHeaders.fields)
        self.now = now
        self.contentTag = (try? service.store.setting("content-tag", orMake: {
            String(UInt64.random(in: 0...UInt64.max), radix: 36)
        })) ?? boot
        service.dropsStale(pages)
        service.dropsStale(slices)
        service.dropsStale(tagLists)
    }

    /// An app over a new store in a temporary file that holds `library`, with no security
    /// checks unless given; the file goes when the app does. For tests and tools.
    public convenience init(
        library: Library, publicFolder: String, now: @escaping @Sendable () -> Int64,
        security: SecurityPolicy = .off, signIn: SignIn? = nil, apiToken: String? = nil, pageSize: Int = 500,
        beforeCommit: BeforeCommit? = nil
    ) throws(ServiceError) {
        let service = try Mailroom(library: library, now: now, beforeCommit: beforeCommit, describeChange: Self.describeChange)
        self.init(service: service, publicFolder: publicFolder, now: now, security: security,
                  signIn: signIn, apiToken: apiToken, pageSize: pageSize)
    }

    /// An app whose Inbox holds `mailbox`'s messages, with no security checks.
    public convenience init(mailbox: Mailbox, publicFolder: String, now: @escaping @Sendable () -> Int64) throws(ServiceError) {
        try self.init(library: Library(inbox: mailbox), publicFolder: publicFolder, now: now)
    }

    public var store: Store { service.store }

    /// Sends each problem no answer can tell to `report`.
    public func reportProblems(to report: @escaping @Sendable (String) -> Void) {
        problems.withLock { $0 = report }
    }

    func report(_ problem: String) {
        problems.withLock { $0 }(problem)
    }

    /// What the server and the app count, for `/metrics`.
    public var metrics: Metrics { service.metrics }

    /// Announces each commit to the live lists (`GET /events`); the server writes the events.
    public var events: EventHub { service.events }

    /// The token that forms carry, for pages to embed.
    var token: String? { security.formToken }

    /// The whole library as it is at this moment: every row read (for tests of small stores).
    public var library: Library { service.library }

    /// The Inbox as it is at this moment.
    public var snapshot: Mailbox { library[.inbox] ?? Mailbox() }

    /// Every mailbox with its counts, as of the last commit.
    func mailboxes() throws(HTTPError) -> [MailboxSummary] {
        do throws(ServiceError) { return try service.mailboxes() } catch { throw HTTPError(error) }
    }

    /// Reads from the store; a failure is a 500 that says so.
    func reading<Result>(_ body: (Reader) throws(StoreError) -> Result) throws(HTTPError) -> Result {
        do throws(ServiceError) { return try service.read(body) } catch { throw HTTPError(error) }
    }

    /// Reads from one snapshot with a body that may itself refuse with an HTTP error, such as a
    /// post that changes only what the page shows.
    func readingView<Result>(_ body: (Reader) throws(HTTPError) -> Result) throws(HTTPError) -> Result {
        let outcome = try reading { reader throws(StoreError) -> Swift.Result<Result, HTTPError> in
            do throws(HTTPError) { return .success(try body(reader)) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    /// Calls the service, its errors said as HTTP errors (see `HTTPError(ServiceError)`).
    static func serving<Result>(_ body: () throws(ServiceError) -> Result) throws(HTTPError) -> Result {
        do throws(ServiceError) { return try body() } catch { throw HTTPError(error) }
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

    /// The route table's answer (see `routes`), or a static file from `Public/`.
    private func route(_ request: Request) throws(HTTPError) -> Response {
        guard let match = Self.routes.match(request.path) else { return try staticFile(request) }
        let access = match.route.info
        if let signIn, access.needsSignIn, signIn.session(of: request, now: now()) == nil,
           !(access.takesToken && carriesAPIToken(request)) {
            return .seeOther(Paths.signIn(next: request.path + (request.query.isEmpty ? "" : "?" + request.query.urlEncoded)))
        }
        guard let handler = match.route.handler(for: request.method) else { throw match.route.methodNotAllowed() }
        return try handler(self, request, match.parameters)
    }

    private func staticFile(_ request: Request) throws(HTTPError) -> Response {
        guard let file = files.response(
            for: request.path, ifNoneMatch: request.headers["If-None-Match"],
            ifModifiedSince: request.headers["If-Modified-Since"], acceptEncoding: request.headers["Accept-Encoding"]) else {
            throw HTTPError(.notFound, "There is no page at this address.")
        }
        guard request.method == .get || request.method == .head else {
            throw HTTPError(.methodNotAllowed, "This address does not accept that method.", headers: ["Allow": "GET, HEAD"])
        }
        return file
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
}
