import Dispatch
import HTTP
import MailroomCore
import MailroomMail
import MailroomService
import MailroomStore

/// `/api/v1/`: JSON for CI jobs and scripts. The same store, query grammar and exactness rules
/// as the pages: a list is read in keyset pages, and an action "by query" touches only what
/// matched at the revision the caller names (as "Select all N" does), never what arrived since.
///
/// Every answer is JSON, errors included (`{"error": "...", "status": 404}`). Reading a message
/// here never marks it read; `POST /api/v1/messages/read` does.
extension MailroomApp {
    public static let apiPrefix = "/api/v1/"
    /// The most `wait` calls that may be waiting at once; each holds a worker thread.
    static let maximumWaits = 32
    /// The longest a `wait` may ask to wait, in seconds.
    static let maximumWaitSeconds = 300

    static func isAPI(_ request: Request) -> Bool {
        request.path.hasPrefix("/api/")
    }

    /// Answers an API request, its errors as JSON.
    func api(_ request: Request) -> Response {
        do throws(HTTPError) {
            return try apiRoute(request)
        } catch {
            return Self.apiError(error)
        }
    }

    static func apiError(_ error: HTTPError) -> Response {
        var response = json(.object([("error", .string(error.message)), ("status", .int(error.status.code))]), status: error.status)
        for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) { response.headers.set(name, value) }
        return response
    }

    static func json(_ value: JSON, status: Status = .ok) -> Response {
        Response(json: value, status: status)
    }

    /// The API's endpoints; as for pages, 404, 405 and `Allow` follow from the table.
    static let apiRoutes: Router<MailroomApp, Void> = {
        var routes = Router<MailroomApp, Void>()
        let prefix = apiPrefix
        routes.add(prefix + "mailboxes", info: (), [
            .get: { app, _, _ throws(HTTPError) in json(.object([("mailboxes", .array(try app.mailboxes().map(mailboxJSON)))])) },
        ])
        routes.add(prefix + "messages", info: (), [.get: { app, request, _ throws(HTTPError) in try app.apiList(request) }])
        routes.add(prefix + "wait", info: (), [.get: { app, request, _ throws(HTTPError) in try app.apiWait(request) }])
        routes.add(prefix + "import", info: (), [.post: { app, request, _ throws(HTTPError) in try app.apiImport(request) }])
        // The actions' names go before the capture of an id, which would otherwise take them.
        routes.add(prefix + "messages/release", info: (), [
            .post: { app, request, _ throws(HTTPError) in try app.apiRelease(request) },
        ])
        for action in APIAction.allCases {
            routes.add(prefix + "messages/" + action.rawValue, info: (), [
                .post: { app, request, _ throws(HTTPError) in try app.apiAct(action, request) },
            ])
        }
        routes.add(prefix + "messages/:id", info: (), [
            .get: { app, _, parameters throws(HTTPError) in json(try app.messageJSON(try apiID(parameters["id"]))) },
        ])
        routes.add(prefix + "messages/:id/raw", info: (), [
            .get: { app, request, parameters throws(HTTPError) in
                try app.downloadRawMail(try apiID(parameters["id"]), request: request)
            },
        ])
        routes.add(prefix + "messages/:id/parts/:part", info: (), [
            .get: { app, request, parameters throws(HTTPError) in
                guard let part = Int(parameters["part"]), part >= 0 else {
                    throw HTTPError(.notFound, "There is no part “\(parameters["part"])”.")
                }
                return try app.downloadMailPart(try apiID(parameters["id"]), part: part, request: request)
            },
        ])
        return routes
    }()

    private func apiRoute(_ request: Request) throws(HTTPError) -> Response {
        guard request.path.hasPrefix(Self.apiPrefix) else {
            throw HTTPError(.notFound, "The API lives under \(Self.apiPrefix).")
        }
        guard let match = Self.apiRoutes.match(request.path) else {
            throw HTTPError(.notFound, "There is no API endpoint at \(request.path).")
        }
        guard let handler = match.route.handler(for: request.method) else {
            throw match.route.methodNotAllowed("This endpoint takes \(match.route.allow).")
        }
        return try handler(self, request, match.parameters)
    }

    private static func apiID(_ text: Substring) throws(HTTPError) -> MessageID {
        guard let id = MessageID(String(text)) else { throw HTTPError(.notFound, "There is no message “\(text)”.") }
        return id
    }

    // MARK: Reading

    /// `GET /api/v1/messages?mailbox=inbox&q=…&limit=50&below=KEY`: one page, newest first.
    private func apiList(_ request: Request) throws(HTTPError) -> Response {
        let box = try apiMailbox(request.query["mailbox"] ?? "inbox")
        let limit = try Self.apiInteger(request.query["limit"], field: "limit", default: 50, range: 1...500)
        let text = request.query["q"] ?? ""
        let query = try Self.apiQuery(text)
        let place: PagePlace
        if let below = request.query["below"] {
            guard let key = Int64(below) else { throw HTTPError(.badRequest, "“below” must be a whole number (a page's next key).") }
            place = .below(key)
        } else {
            place = .top
        }
        let revision = service.revision(of: box)
        let slice = try reading { reader throws(StoreError) in
            if let query { return try service.search(query, in: box, from: place, limit: limit, reader: reader, revision: revision) }
            return try reader.page(of: box, from: place, limit: limit)
        }
        var next: JSON = .null
        if slice.hasOlder, let last = slice.keys.last {
            var fields = [("mailbox", box.slug)]
            if !text.isEmpty { fields.append(("q", text)) }
            fields += [("limit", "\(limit)"), ("below", "\(last)")]
            next = .string(Self.apiPrefix + "messages?" + FormData(fields).urlEncoded)
        }
        return Self.json(.object([
            ("mailbox", .string(box.slug)),
            ("q", .string(text)),
            ("revision", .number(slice.revision)),
            ("total", .int(slice.total)),
            ("total_is_at_least", .bool(slice.totalIsAtLeast)),
            ("messages", .array(slice.rows.map { Self.summaryJSON($0, mailbox: box) })),
            ("next", next),
        ]))
    }

    func messageJSON(_ id: MessageID) throws(HTTPError) -> JSON {
        let (found, details) = try reading { reader throws(StoreError) in (try reader.message(id), try reader.mailDetails(id)) }
        guard let found else { throw HTTPError(.notFound, "There is no message \(id); it may have been deleted.") }
        var members: [(String, JSON)]
        guard case .object(let summary) = Self.summaryJSON(found.message, mailbox: found.mailbox) else { return .null }
        members = summary
        members.append(("text", .string(found.message.body)))
        guard let details else {
            members.append(("mailed", .bool(false)))
            return .object(members)
        }
        let raw = try rawBytes(details, of: id)
        let link = Self.apiPrefix + "messages/\(id)"
        members += [
            ("mailed", .bool(true)),
            ("html", .optional(details.html)),
            ("from_header", .string(details.fromHeader)),
            ("to", .string(details.toHeader)),
            ("cc", .string(details.ccHeader)),
            ("envelope", .object([("from", .string(details.envelopeFrom)), ("to", .array(details.envelopeTo.map(JSON.string)))])),
            ("message_id", .optional(details.messageID)),
            ("sent_at", .optional(details.sentAt.map(Formatting.iso8601))),
            ("size", .int(details.size)),
            ("peer", .string(details.peer)),
            ("headers", .string(MailSection.headerBlock(of: raw))),
            ("attachments", .array(details.attachments.map { attachment in
                .object([
                    ("part", .int(attachment.part)), ("name", .optional(attachment.name)), ("type", .string(attachment.type)),
                    ("size", .int(attachment.size)), ("content_id", .optional(attachment.contentID)),
                    ("url", .string(link + "/parts/\(attachment.part)")),
                ])
            })),
            ("raw", .string(link + "/raw")),
        ]
        return .object(members)
    }

    static func summaryJSON(_ message: Message, mailbox: MailboxID) -> JSON {
        .object([
            ("id", .number(message.id.rawValue)),
            ("mailbox", .string(mailbox.slug)),
            ("subject", .string(message.subject)),
            ("from", .string(message.author)),
            ("date", .string(Formatting.iso8601(message.createdAt))),
            ("unread", .bool(message.isUnread)),
            ("flagged", .bool(message.isFlagged)),
            ("tags", .array(message.tags.map { .string($0) })),
            ("preview", .string(Formatting.preview(message.body))),
        ])
    }

    static func mailboxJSON(_ mailbox: MailboxSummary) -> JSON {
        .object([("id", .string(mailbox.id.slug)), ("name", .string(mailbox.name)),
                 ("total", .int(mailbox.count)), ("unread", .int(mailbox.unreadCount))])
    }

    private func apiMailbox(_ slug: String) throws(HTTPError) -> MailboxID {
        guard let id = MailboxID(slug: Substring(slug)), try mailboxes()[id] != nil else {
            throw HTTPError(.notFound, "There is no mailbox “\(slug)”.")
        }
        return id
    }

    private static func apiQuery(_ text: String) throws(HTTPError) -> SearchQuery? {
        guard !text.isEmpty else { return nil }
        do {
            let query = try SearchQuery(text)
            return query.isEmpty ? nil : query
        } catch {
            throw HTTPError(.badRequest, "The search could not be run: \(error.message)")
        }
    }

    private static func apiInteger(_ text: String?, field: String, default value: Int, range: ClosedRange<Int>) throws(HTTPError) -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw HTTPError(.badRequest, "“\(field)” must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    // MARK: Changing

    /// `POST /api/v1/messages/ACTION` with the JSON `{"ids": [1, 2]}`, or `{"q": "…", "mailbox":
    /// "inbox", "revision": R}` (or `"all": true` for a whole mailbox).
    private func apiAct(_ action: APIAction, _ request: Request) throws(HTTPError) -> Response {
        let target = try APITarget(request)
        var tags: [String] = []
        if action == .tag || action == .untag {
            tags = try Self.tags(in: request)
        }
        let command = action.command(tags: tags)
        let pageSize = pageSize
        let outcome = try act(on: target) { ids throws(ServiceError) in
            try service.run(command, on: ids, pageSize: pageSize)
        } matching: { search, box, asOf throws(ServiceError) in
            try service.run(command, matching: search, in: box, asOf: asOf, pageSize: pageSize)
        }
        return Self.json(.object([
            ("action", .string(action.rawValue)), ("changed", .int(outcome.changed)), ("gone", .int(outcome.gone)),
            ("revision", .number(store.revision)),
        ]))
    }

    /// The valid tag names of a JSON body's `tags` array; none at all is refused.
    static func tags(in request: Request) throws(HTTPError) -> [String] {
        let body: JSON
        do {
            body = try JSON.parse(request.body)
        } catch {
            throw HTTPError(.badRequest, error.message)
        }
        guard case .array(let values)? = body["tags"] else {
            throw HTTPError(.badRequest, "Name the tags in “tags”: an array of names.")
        }
        var names: [String] = []
        for value in values {
            guard case .string(let name) = value, let cleaned = Tag.cleaned(name) else {
                throw HTTPError(.badRequest, "Each tag is a name of letters, digits, spaces, - _ . and @.")
            }
            names.append(cleaned)
        }
        guard !names.isEmpty else { throw HTTPError(.badRequest, "Name at least one tag in “tags”.") }
        return Tag.unique(names)
    }

    /// `POST /api/v1/messages/release` with `"to"` (addresses, as a string or an array) and
    /// the messages as for the other actions: queued for the relay, answered `queued` and `gone`.
    private func apiRelease(_ request: Request) throws(HTTPError) -> Response {
        let target = try APITarget(request)
        let to: String
        do {
            switch try JSON.parse(request.body)["to"] {
            case .string(let text)?: to = text
            case .array(let values)?:
                to = values.compactMap { value -> String? in
                    if case .string(let text) = value { return text }
                    return nil
                }.joined(separator: ",")
            default: throw HTTPError(.badRequest, "Name the addresses to send to in “to”.")
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(.badRequest, "The body must be JSON.")
        }
        let outcome = try act(on: target) { ids throws(ServiceError) in
            try service.release(ids, to: to, cause: "api")
        } matching: { search, box, asOf throws(ServiceError) in
            try service.release(matching: search, in: box, asOf: asOf, to: to, cause: "api")
        }
        return Self.json(.object([("action", .string("release")), ("queued", .int(outcome.changed)), ("gone", .int(outcome.gone))]))
    }

    /// Runs an action on the messages `target` names: by ids, or by a search (or the whole
    /// mailbox, asked for in so many words) among what the mailbox held at the revision given.
    private func act(
        on target: APITarget, ids: ([MessageID]) throws(ServiceError) -> Mailroom.Tally,
        matching: (String, MailboxID, Int64) throws(ServiceError) -> Mailroom.Tally
    ) throws(HTTPError) -> Mailroom.Tally {
        switch target {
        case .ids(let list):
            return try Self.serving { () throws(ServiceError) in try ids(list) }
        case .query(let text, let slug, let revision, let all):
            let box = try apiMailbox(slug)
            // A whole mailbox only when asked for in so many words: a search that narrows
            // nothing (empty, blank, "*") must not delete everything by mistake.
            guard try Self.apiQuery(text) != nil || all else {
                throw HTTPError(.badRequest, "Name the messages: “ids”, a search in “q”, or \"all\": true for the whole mailbox.")
            }
            let asOf = revision ?? store.revision
            return try Self.serving { () throws(ServiceError) in try matching(all ? "" : text, box, asOf) }
        }
    }

    // MARK: Importing

    /// The largest body `POST /api/v1/import` takes (the server lets it past `--max-body`).
    public static let maximumImportBytes = 64 << 20

    /// `POST /api/v1/import?mailbox=NAME[&unread=0|1][&flagged=0|1][&as-message=1]` with an mbox
    /// file as the body (`Content-Type: application/mbox`; a single message as `message/rfc822`):
    /// each message is stored at the top of the mailbox NAME (made when missing), in the file's
    /// order, all in one commit; a message imported before (`ImportKey`) is skipped. A body that
    /// is neither an mbox nor a message (`MailFile.other`) is refused with 422, nothing stored,
    /// unless `as-message=1`, which takes the body as one message whatever it holds.
    private func apiImport(_ request: Request) throws(HTTPError) -> Response {
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: " \t").lowercased() ?? ""
        guard type == "application/mbox" || type == "message/rfc822" else {
            throw HTTPError(.unsupportedMediaType, "Send an mbox file as application/mbox, or one message as message/rfc822.")
        }
        guard let name = request.query["mailbox"], !name.isEmpty else {
            throw HTTPError(.badRequest, "Name the mailbox to import into: ?mailbox=NAME.")
        }
        let flag = { (field: String) throws(HTTPError) -> Bool? in
            guard let text = request.query[field] else { return nil }
            guard text == "0" || text == "1" else { throw HTTPError(.badRequest, "“\(field)” must be 0 or 1.") }
            return text == "1"
        }
        let unread = try flag("unread")
        let flagged = try flag("flagged")
        let asMessage = try flag("as-message") ?? false
        let shape = MailFile(start: request.body.prefix(MailFile.lookedAt), isWhole: request.body.count <= MailFile.lookedAt)
        guard asMessage || shape != .other else {
            throw HTTPError(.unprocessableContent, MailImport.notMail(
                "The body", remedy: "To import it as one message all the same, add as-message=1 to the query."))
        }
        let time = now()
        var messages: [ImportedMail] = []
        let prepare = { (raw: [UInt8], sender: String?) in
            messages.append(MailImport.prepare(raw, sender: sender, isUnread: unread, isFlagged: flagged, now: time))
        }
        if type == "message/rfc822" || asMessage {
            prepare(request.body, nil)
        } else {
            var scanner = MboxScanner()
            request.body.withUnsafeBytes { bytes in scanner.feed(bytes) { prepare($0.raw, $0.sender) } }
            scanner.finish { prepare($0.raw, $0.sender) }
        }
        let box: MailboxID, added: Int, skipped: Int
        do throws(ServiceError) {
            (box, added, skipped) = try service.importMail(messages, into: name)
        } catch {
            throw HTTPError(error)
        }
        return Self.json(.object([
            ("mailbox", .string(box.slug)), ("added", .int(added)), ("skipped", .int(skipped)),
            ("revision", .number(store.revision)),
        ]))
    }

    // MARK: Waiting

    /// `GET /api/v1/wait?q=…&timeout=10[&mailbox=inbox][&after=ID]`: the newest message that
    /// matches `q` (in any mailbox but Trash, or in `mailbox`), as soon as there is one: at once
    /// when one already exists, else when the commit that brings one is durable; 408 at the
    /// timeout. `after` leaves out messages with ids up to it (mail from before the test).
    private func apiWait(_ request: Request) throws(HTTPError) -> Response {
        let text = request.query["q"] ?? ""
        guard let query = try Self.apiQuery(text) else {
            throw HTTPError(.badRequest, "wait needs a search in “q”, such as q=to:alice@example.test.")
        }
        let seconds = try Self.apiInteger(request.query["timeout"], field: "timeout", default: 10, range: 0...Self.maximumWaitSeconds)
        var after: Int64 = 0
        if let text = request.query["after"] {
            guard let id = Int64(text) else { throw HTTPError(.badRequest, "“after” must be a message id.") }
            after = id
        }
        let only = try request.query["mailbox"].map { slug throws(HTTPError) in try apiMailbox(slug) }
        guard service.commitWatch.enter(limit: Self.maximumWaits) else {
            throw HTTPError(.serviceUnavailable, "Too many waits at once (\(Self.maximumWaits)); try again shortly.")
        }
        defer { service.commitWatch.leave() }
        let deadline = DispatchTime.now() + .seconds(seconds)
        var woken = false
        while true {
            let seen = store.revision
            if let found = try newestMatch(query, in: only, after: after) {
                var response = Self.json(try messageJSON(found))
                if woken, let since = service.commitWatch.sinceLastCommit() {
                    // How long after the commit that brought it this answer was made, for a
                    // script (or the bench) that wants to know (W3C Server Timing).
                    let millis = Double(since) / 1_000_000
                    response.headers.set("Server-Timing", "commit;desc=\"since the commit\";dur=\(JSON.fraction(millis).text)")
                }
                return response
            }
            woken = true
            guard service.commitWatch.wait(beyond: seen, revision: { store.revision }, until: deadline) else {
                throw HTTPError(Status(code: 408, reason: "Request Timeout"),
                                "No message matching “\(text)” arrived within \(seconds) seconds.")
            }
        }
    }

    private func newestMatch(_ query: SearchQuery, in only: MailboxID?, after: Int64) throws(HTTPError) -> MessageID? {
        try reading { reader throws(StoreError) -> MessageID? in
            var boxes: [MailboxID]
            if let only {
                boxes = [only]
            } else {
                boxes = try reader.mailboxes().map(\.id).filter { $0 != .trash }
            }
            var best: MessageID?
            for box in boxes {
                let newest = try reader.newestMatch(query, in: box, above: after)
                if let newest, newest.rawValue > (best?.rawValue ?? 0) { best = newest }
            }
            return best
        }
    }
}
