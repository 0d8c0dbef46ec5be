import HTTP
import MailroomCore
import MailroomService
import MailroomStore

extension MailpitApp {
    typealias Routes = Router<MailpitApp, Void>

    /// Mailpit's API v1 as Mailroom answers it; a path not here is Mailpit's plain 404.
    static let routes: Routes = {
        var routes = Routes()
        let v1 = "/api/v1/"
        routes.add(v1 + "messages", info: (), [
            .get: { app, request, _ throws(HTTPError) in try app.list(request) },
            .put: { app, request, _ throws(HTTPError) in try app.setRead(request) },
            .delete: { app, request, _ throws(HTTPError) in try app.delete(request) },
        ])
        routes.add(v1 + "search", info: (), [
            .get: { app, request, _ throws(HTTPError) in try app.search(request) },
            .delete: { app, request, _ throws(HTTPError) in try app.deleteMatches(request) },
        ])
        routes.add(v1 + "message/:id", info: (), [
            .get: { app, request, parameters throws(HTTPError) in try app.message(try app.id(parameters["id"], request)) },
        ])
        routes.add(v1 + "message/:id/headers", info: (), [
            .get: { app, request, parameters throws(HTTPError) in try app.headers(try app.id(parameters["id"], request)) },
        ])
        routes.add(v1 + "message/:id/raw", info: (), [
            .get: { app, request, parameters throws(HTTPError) in try app.raw(try app.id(parameters["id"], request), request) },
        ])
        routes.add(v1 + "message/:id/part/:part", info: (), [
            .get: { app, request, parameters throws(HTTPError) in
                guard let part = Int(parameters["part"]), part >= 0 else { throw notFoundError }
                return try app.web.downloadMailPart(try app.id(parameters["id"], request), part: part, request: request)
            },
        ])
        routes.add(v1 + "message/:id/release", info: (), [
            .post: { app, request, parameters throws(HTTPError) in try app.release(try app.id(parameters["id"], request), request) },
        ])
        routes.add(v1 + "send", info: (), [.post: { app, request, _ in app.sendAnswer(request) }])
        routes.add("/view/:file", info: (), [.get: { app, request, parameters throws(HTTPError) in try app.view(parameters["file"], request) }])
        routes.add(v1 + "info", info: (), [.get: { app, _, _ throws(HTTPError) in try app.info() }])
        routes.add(v1 + "webui", info: (), [.get: { app, _, _ in app.webUI() }])
        routes.add(v1 + "tags", info: (), [
            .get: { app, _, _ throws(HTTPError) in try app.tagNames() },
            .put: { app, request, _ throws(HTTPError) in try app.setTags(request) },
        ])
        routes.add(v1 + "tags/:tag", info: (), [
            .put: { app, request, parameters throws(HTTPError) in try app.renameTag(parameters["tag"], request) },
            .delete: { app, _, parameters throws(HTTPError) in try app.deleteTag(parameters["tag"]) },
        ])
        routes.add(v1 + "chaos", info: (), [.get: { _, _, _ in text("Chaos is not enabled", status: .badRequest) }])
        routes.add("/livez", info: (), [.get: { _, _, _ in Response(status: .ok, headers: Headers([("Content-Type", "text/plain")])) }])
        routes.add("/readyz", info: (), [.get: { _, _, _ in Response(status: .ok, headers: Headers([("Content-Type", "text/plain")])) }])
        return routes
    }()

    static let notFoundError = HTTPError(.notFound, "404 page not found")

    /// A message's id in a path: Mailroom's own, or `latest`, the newest in the Inbox (matching
    /// `?query=` when given).
    func id(_ text: Substring, _ request: Request) throws(HTTPError) -> MessageID {
        guard text == "latest" else {
            guard let id = MessageID(text) else { throw Self.notFoundError }
            return id
        }
        let search = try Self.searchQuery(request.query["query"] ?? "")
        let slice = try web.reading { reader throws(StoreError) in
            if let search { return try reader.search(search, in: .inbox, from: .top, limit: 1) }
            return try reader.page(of: .inbox, from: .top, limit: 1)
        }
        guard let newest = slice.rows.first else { throw HTTPError(.notFound, "Message not found") }
        return newest.id
    }

    // MARK: Lists

    /// `GET /api/v1/messages?start=0&limit=50`: the Inbox, newest first.
    func list(_ request: Request) throws(HTTPError) -> Response {
        let (start, limit) = Self.paging(request, zeroMeansAll: true)
        let inbox = try inboxSummary()
        let (rows, mail) = try page(nil, text: "", start: start, limit: limit, total: inbox.count)
        return Self.json(MailpitJSON.list(
            summaries.summaries(rows, mail: mail), inbox: inbox, matches: inbox.count, unreadMatches: inbox.unreadCount,
            start: start, tags: try web.tags(in: .inbox)))
    }

    /// `GET /api/v1/search?query=…&start=0&limit=50`.
    func search(_ request: Request) throws(HTTPError) -> Response {
        let text = Substring(request.query["query"] ?? "").trimmingCharacters(in: " \t")
        guard let search = try Self.searchQuery(text) else { throw HTTPError(.badRequest, "Error: no search query") }
        let (start, limit) = Self.paging(request, zeroMeansAll: false)
        let inbox = try inboxSummary()
        let (matches, unread) = try web.reading { reader throws(StoreError) in
            var unreadOnly = search
            unreadOnly.isUnread = search.isUnread ?? true
            let all = try reader.count(search, in: .inbox, enteredBy: nil, limit: Reader.countLimit + 1)
            let unread = search.isUnread == false ? 0 : try reader.count(unreadOnly, in: .inbox, enteredBy: nil, limit: Reader.countLimit + 1)
            return (all, unread)
        }
        let (rows, mail) = limit == 0 ? ([], [:]) : try page(search, text: search.text, start: start, limit: limit, total: matches)
        return Self.json(MailpitJSON.list(
            summaries.summaries(rows, mail: mail), inbox: inbox, matches: matches, unreadMatches: unread, start: start,
            tags: try web.tags(in: .inbox)))
    }

    /// `start` and `limit` as Mailpit reads them: a negative or unreadable value is the default.
    /// `limit=0` is "all" for the list; here all is at most 1,000 rows a request.
    static func paging(_ request: Request, zeroMeansAll: Bool) -> (start: Int, limit: Int) {
        let start = request.query["start"].flatMap { Int($0) }.map { $0 < 0 ? 0 : $0 } ?? 0
        var limit = request.query["limit"].flatMap { Int($0) }.map { $0 < 0 ? 50 : $0 } ?? 50
        if limit == 0 && zeroMeansAll { limit = maximumPage }
        return (start, min(limit, maximumPage))
    }

    static let maximumPage = 1_000

    private func page(
        _ search: SearchQuery?, text: String, start: Int, limit: Int, total: Int
    ) throws(HTTPError) -> ([Message], [MessageID: MailSummary]) {
        try pages.rows(search, text: text, start: start, limit: limit, total: total) { reader, rows throws(StoreError) in
            try reader.mailSummaries(of: rows.map(\.id))
        } ?? ([], [:])
    }

    private func inboxSummary() throws(HTTPError) -> MailboxSummary {
        guard let inbox = try web.mailboxes()[.inbox] else { throw HTTPError(.internalServerError, "Mailroom has no Inbox.") }
        return inbox
    }

    /// Mailpit's query in Mailroom's grammar, or nil for an empty one.
    static func searchQuery(_ text: String) throws(HTTPError) -> SearchQuery? {
        let translated = try MailpitSearch.translate(text)
        guard !translated.isEmpty else { return nil }
        do {
            let query = try SearchQuery(translated)
            return query.isEmpty ? nil : query
        } catch {
            throw HTTPError(.badRequest, error.message)
        }
    }
}
