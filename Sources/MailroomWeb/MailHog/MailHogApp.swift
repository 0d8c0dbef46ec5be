import HTTP
import MailroomCore
import MailroomService
import MailroomStore
import SMTP

/// The MailHog door: MailHog's API (v2 lists and search, v1 reads and deletes) on a port of its
/// own (`--mailhog-port`), over the same service as the pages. Like the Mailpit door it shows
/// the Inbox, and deleting moves to Trash.
public final class MailHogApp: Sendable {
    let web: MailroomApp
    let pages: InboxPages
    var service: Mailroom { web.service }

    public init(web: MailroomApp) {
        self.web = web
        self.pages = InboxPages(web: web)
    }

    /// MailHog's answer, with the headers every Mailroom answer carries.
    public func respond(to request: Request) -> Response {
        var response = answer(request)
        SecurityHeaders.apply(to: &response)
        return response
    }

    private func answer(_ request: Request) -> Response {
        if let refusal = web.doorRefusal(for: request) { return Self.failure(refusal) }
        guard let match = Self.routes.match(request.path), let handler = match.route.handler(for: request.method) else {
            // MailHog's router answers a wrong method as it answers an unknown path.
            return Self.failure(HTTPError(.notFound, "404 page not found"))
        }
        do throws(HTTPError) {
            return try handler(self, request, match.parameters)
        } catch {
            return Self.failure(error)
        }
    }

    /// Whether answering `request` may wait for a commit: the deletes.
    public func mayStore(_ request: Request) -> Bool {
        request.method != .get && request.method != .head
    }

    typealias Routes = Router<MailHogApp, Void>

    static let routes: Routes = {
        var routes = Routes()
        routes.add("/api/v2/messages", info: (), [.get: { app, request, _ throws(HTTPError) in try app.list(request) }])
        routes.add("/api/v2/search", info: (), [.get: { app, request, _ throws(HTTPError) in try app.search(request) }])
        routes.add("/api/v1/messages", info: (), [
            .get: { app, _, _ throws(HTTPError) in try app.listV1() },
            .delete: { app, _, _ throws(HTTPError) in try app.deleteAll() },
        ])
        routes.add("/api/v1/messages/:id", info: (), [
            .get: { app, _, parameters throws(HTTPError) in try app.message(try id(parameters)) },
            .delete: { app, _, parameters throws(HTTPError) in try app.delete(try id(parameters)) },
        ])
        routes.add("/api/v1/messages/:id/download", info: (), [
            .get: { app, request, parameters throws(HTTPError) in try app.download(try id(parameters), request) },
        ])
        routes.add("/api/v1/messages/:id/mime/part/:index/download", info: (), [
            .get: { app, _, parameters throws(HTTPError) in
                guard let index = Int(parameters["index"]), index >= 0 else { throw notFound }
                return try app.part(try id(parameters), index: index)
            },
        ])
        return routes
    }()

    static let notFound = HTTPError(.notFound, "404 page not found")

    private static func id(_ parameters: RouteParameters) throws(HTTPError) -> MessageID {
        guard let id = MessageID(parameters["id"]) else { throw notFound }
        return id
    }

    // MARK: Lists

    /// `GET /api/v2/messages?start=0&limit=50`: the Inbox, newest first, at most 250 a page.
    func list(_ request: Request) throws(HTTPError) -> Response {
        let (start, limit) = Self.paging(request)
        let total = try inboxCount()
        let items = try messages(nil, text: "", start: start, limit: limit, total: total)
        return Self.json(.object([("total", .int(total)), ("count", .int(items.count)), ("start", .int(start)), ("items", .array(items))]))
    }

    /// `GET /api/v2/search?kind=from|to|containing&query=…`.
    func search(_ request: Request) throws(HTTPError) -> Response {
        let query = request.query["query"] ?? ""
        let kind = request.query["kind"] ?? ""
        guard !query.isEmpty, ["from", "to", "containing"].contains(kind) else {
            return Response(status: .badRequest, headers: Headers([("Content-Type", "text/plain; charset=utf-8")]))
        }
        let words = MailpitSearch.tokens(of: query).map { word in
            let quoted = word.contains(" ") ? "\"" + word + "\"" : word
            return kind == "containing" ? quoted : kind + ":" + quoted
        }.joined(separator: " ")
        let search: SearchQuery
        do {
            search = try SearchQuery(words)
        } catch {
            throw HTTPError(.badRequest, error.message)
        }
        let (start, limit) = Self.paging(request)
        let total = try web.reading { reader throws(StoreError) in
            try reader.count(search, in: .inbox, enteredBy: nil, limit: Reader.countLimit)
        }
        let items = try messages(search, text: search.text, start: start, limit: limit, total: total)
        var response = Self.json(.object([
            ("total", .int(total)), ("count", .int(items.count)), ("start", .int(start)), ("items", .array(items)),
        ]))
        response.headers.set("Content-Type", "application/json")
        return response
    }

    /// `GET /api/v1/messages`: MailHog's older list, one array of the newest (at most 250).
    func listV1() throws(HTTPError) -> Response {
        Self.json(.array(try messages(nil, text: "", start: 0, limit: Self.maximumPage, total: try inboxCount())))
    }

    static let maximumPage = 250

    static func paging(_ request: Request) -> (start: Int, limit: Int) {
        let start = request.query["start"].flatMap { Int($0) }.map { max($0, 0) } ?? 0
        let asked = request.query["limit"].flatMap { Int($0) } ?? 50
        return (start, min(asked <= 0 ? 50 : asked, maximumPage))
    }

    private func inboxCount() throws(HTTPError) -> Int {
        try web.mailboxes()[.inbox]?.count ?? 0
    }

    private func messages(_ search: SearchQuery?, text: String, start: Int, limit: Int, total: Int) throws(HTTPError) -> [JSON] {
        let read = try pages.rows(search, text: text, start: start, limit: limit, total: total) { reader, rows throws(StoreError) in
            try rows.map { row throws(StoreError) in try Self.stored(row, reader) }
        }
        return read?.1.map(\.json) ?? []
    }

    /// A message as MailHog keeps it; one typed into a page gets a plain text DATA of its own.
    static func stored(_ message: Message, _ reader: Reader) throws(StoreError) -> MailHogMessage {
        let created = MailpitJSON.time(message.createdAt)
        guard let details = try reader.mailDetails(message.id), let raw = try reader.rawMail(details.raw) else {
            let text = "From: \(message.author)\r\nSubject: \(message.subject)\r\n\r\n" + message.body
            return MailHogMessage(id: String(message.id.rawValue), envelopeFrom: "", envelopeTo: [], raw: Array(text.utf8), created: created)
        }
        return MailHogMessage(id: String(message.id.rawValue), envelopeFrom: details.envelopeFrom, envelopeTo: details.envelopeTo,
                              raw: raw, created: created)
    }

    // MARK: One message

    private func stored(_ id: MessageID) throws(HTTPError) -> MailHogMessage {
        let found = try web.reading { reader throws(StoreError) -> MailHogMessage? in
            guard let message = try reader.message(id)?.message else { return nil }
            return try Self.stored(message, reader)
        }
        guard let found else { throw Self.notFound }
        return found
    }

    func message(_ id: MessageID) throws(HTTPError) -> Response {
        Self.json(try stored(id).json)
    }

    /// `GET /api/v1/messages/ID/download`: the message as sent, as a `.eml` download.
    func download(_ id: MessageID, _ request: Request) throws(HTTPError) -> Response {
        var response = try web.downloadRawMail(id, request: request)
        response.headers.set("Content-Type", "message/rfc822")
        response.headers.set("Content-Disposition", "attachment; filename=\"\(id).eml\"")
        return response
    }

    /// `GET /api/v1/messages/ID/mime/part/N/download`: top-level part N, decoded from base64
    /// when it was sent so, with its own Content-Type.
    func part(_ id: MessageID, index: Int) throws(HTTPError) -> Response {
        guard let parts = MailHogPart(try stored(id).raw).parts, index < parts.count else { throw Self.notFound }
        let part = parts[index]
        var body = part.body
        if part.header("Content-Transfer-Encoding")?.lowercased() == "base64" {
            body = Base64.decode(body.filter { $0 != 13 && $0 != 10 && $0 != 32 && $0 != 9 }) ?? body
        }
        let type = part.header("Content-Type").map { String($0.unicodeScalars.filter { $0.value >= 32 && $0.value != 127 }) }
        var response = Response(status: .ok, headers: Headers([("Content-Type", type ?? "application/octet-stream")]), body: body)
        response.headers.set("Content-Disposition", "attachment; filename=\"\(id)-part-\(index)\"")
        return response
    }

    // MARK: Deleting

    /// `DELETE /api/v1/messages/ID`: to Trash; 200 with an empty body, as MailHog answers.
    func delete(_ id: MessageID) throws(HTTPError) -> Response {
        let tally = try MailroomApp.serving { () throws(ServiceError) in
            try service.run(.removeSelected(.delete), on: [id], pageSize: web.pageSize)
        }
        guard tally.changed > 0 else { throw Self.notFound }
        return Self.emptyAnswer
    }

    /// `DELETE /api/v1/messages`: the whole Inbox as it is now, to Trash.
    func deleteAll() throws(HTTPError) -> Response {
        let asOf = service.store.revision
        _ = try MailroomApp.serving { () throws(ServiceError) in
            try service.run(.removeSelected(.delete), matching: "", in: .inbox, asOf: asOf, pageSize: web.pageSize)
        }
        return Self.emptyAnswer
    }

    // MARK: Answers as MailHog gives them

    static let emptyAnswer = Response(status: .ok, headers: Headers([("Content-Type", "text/json")]))

    static func json(_ value: JSON) -> Response {
        var response = Response(status: .ok, headers: Headers([("Content-Type", "text/json")]), body: value.bytes)
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    static func failure(_ error: HTTPError) -> Response {
        var response = Response(status: error.status, headers: Headers([("Content-Type", "text/plain; charset=utf-8")]),
                                body: Array(error.message.utf8))
        for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) { response.headers.set(name, value) }
        return response
    }
}
