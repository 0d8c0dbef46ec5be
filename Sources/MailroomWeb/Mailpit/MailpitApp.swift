import HTTP
import MailroomCore
import MailroomService
import MailroomStore

/// The Mailpit door: Mailpit's API v1 on a port of its own (`--mailpit-port`), over the same
/// service as the pages, so that test helpers written for Mailpit work unchanged.
///
/// It shows the Inbox, where mail lands unless a mailbox's addresses route it elsewhere. Its
/// answers take Mailpit's shapes (see docs/mailpit-mailhog.md): JSON as Mailpit sends it,
/// errors as plain text. What Mailpit would lose is kept: deleting moves to Trash, from where
/// the pages can restore it.
public final class MailpitApp: Sendable {
    let web: MailroomApp
    var service: Mailroom { web.service }
    /// The Inbox by position, as Mailpit's `start` names it.
    let pages: InboxPages
    /// Whole answers to lists and searches, kept while the Inbox is unchanged (as the pages
    /// are): a client polling for a message asks the same question until mail comes.
    let answers = RevisionCache<String, Response>(maxEntries: 256, maxCost: 8 << 20)
    /// The version `/api/v1/info` reports.
    let version: String
    /// List rows written earlier (`SummaryCache`).
    let summaries = SummaryCache()
    /// When this door opened, for `/api/v1/info`'s uptime.
    let startedAt: Int64

    public init(web: MailroomApp, version: String) {
        self.web = web
        self.pages = InboxPages(web: web)
        self.version = version
        self.startedAt = web.now()
        web.service.dropsStale(answers)
    }

    /// What the server calls for each request on the Mailpit port: Mailpit's answer, with the
    /// headers every Mailroom answer carries (no sniffing, no framing, no foreign code).
    public func respond(to request: Request) -> Response {
        if var refusal = refusal(of: request) {
            SecurityHeaders.apply(to: &refusal)
            return refusal
        }
        guard request.method == .get, request.path == "/api/v1/messages" || request.path == "/api/v1/search" else {
            var response = answer(request)
            SecurityHeaders.apply(to: &response)
            return response
        }
        // Loaded before anything is read: what is read below is at least this revision.
        let revision = service.revision(of: .inbox)
        if let kept = answers.value(request.target, in: .inbox, revision: revision) { return kept }
        var response = answer(request)
        SecurityHeaders.apply(to: &response)
        if response.status.code == 200 {
            answers.store(response, for: request.target, in: .inbox, revision: revision, cost: response.body.count)
        }
        return response
    }

    /// The route's answer, once the request may be answered at all.
    private func answer(_ request: Request) -> Response {
        // Some clients write the view's address with a doubled slash (`//view/ID.html`).
        var path = Substring(request.path)
        while path.hasPrefix("//") { path = path.dropFirst() }
        guard let match = Self.routes.match(String(path)) else { return Self.notFound() }
        guard let handler = match.route.handler(for: request.method) else {
            var response = Self.text(match.route.methodNotAllowed().message, status: .methodNotAllowed)
            response.headers.set("Allow", match.route.allow)
            return response
        }
        do throws(HTTPError) {
            return try handler(self, request, match.parameters)
        } catch {
            var response = Self.text(error.message, status: error.status)
            for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) { response.headers.set(name, value) }
            return response
        }
    }

    /// Whether answering `request` may wait for a commit: every change, and reading a message,
    /// which marks it read as Mailpit does.
    public func mayStore(_ request: Request) -> Bool {
        request.method != .get && request.method != .head
            || request.path.hasPrefix("/api/v1/message/") && !request.path.hasSuffix("/raw")
            || request.path.hasPrefix("/view/")
    }

    private func refusal(of request: Request) -> Response? {
        guard let refusal = web.doorRefusal(for: request) else { return nil }
        var response = Self.text(refusal.message, status: refusal.status)
        for (name, value) in refusal.headers.sorted(by: { $0.key < $1.key }) { response.headers.set(name, value) }
        return response
    }

    // MARK: Answers as Mailpit gives them

    static func json(_ value: JSON, status: Status = .ok) -> Response {
        Response(json: value, status: status)
    }

    static func text(_ text: String, status: Status = .ok) -> Response {
        var response = Response(status: status, headers: Headers([("Content-Type", "text/plain; charset=utf-8")]),
                                body: Array(text.utf8))
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    static let ok = text("ok")

    static func notFound(_ text: String = "404 page not found") -> Response {
        Self.text(text, status: .notFound)
    }
}
