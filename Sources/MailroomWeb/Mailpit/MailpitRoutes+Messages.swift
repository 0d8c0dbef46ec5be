import Glibc
import HTTP
import MailroomCore
import MailroomService
import MailroomStore

extension MailpitApp {
    // MARK: One message

    /// `GET /api/v1/message/ID`: marks it read, as opening it in Mailpit does, then all of it.
    func message(_ id: MessageID) throws(HTTPError) -> Response {
        try MailroomApp.serving { () throws(ServiceError) in try service.markOpened(id) }
        let read = try web.reading { reader throws(StoreError) in
            try reader.message(id).map { found throws(StoreError) in
                (found.message, try reader.mailSummaries(of: [id])[id], try reader.mailDetails(id), try reader.inlineParts(of: id))
            }
        }
        guard let (message, mail, details, inline) = read else { throw Self.notFoundError }
        return Self.json(MailpitJSON.message(message, mail, details: details, inline: inline))
    }

    /// `GET /api/v1/message/ID/headers`: the header block as Mailpit's map of lists.
    func headers(_ id: MessageID) throws(HTTPError) -> Response {
        let read = try web.reading { reader throws(StoreError) in
            try reader.message(id).map { found throws(StoreError) in (found.message, try reader.mailDetails(id)) }
        }
        guard let (message, details) = read else { throw Self.notFoundError }
        guard let details else {
            // A message typed into a page has no mail, only these.
            return Self.json(.object([("From", .array([.string(message.author)])), ("Subject", .array([.string(message.subject)]))]))
        }
        let raw = try web.rawBytes(details, of: id)
        return Self.json(MailpitJSON.headers(raw))
    }

    /// `GET /api/v1/message/ID/raw` (`?dl=1` as a download named ID.eml).
    func raw(_ id: MessageID, _ request: Request) throws(HTTPError) -> Response {
        var response = try web.downloadRawMail(id, request: request)
        response.headers.set("Content-Type", "text/plain; charset=utf-8")
        if request.query["dl"] == "1" {
            response.headers.set("Content-Disposition", "attachment; filename=\"\(id).eml\"")
        } else {
            response.headers.set("Content-Disposition", "inline")
        }
        return response
    }

    /// `/view/ID.html` and `/view/ID.txt`: the message's HTML (in Mailroom's sandbox: no script,
    /// no remote content) or text, marked read.
    func view(_ file: Substring, _ request: Request) throws(HTTPError) -> Response {
        let isHTML = file.hasSuffix(".html")
        guard isHTML || file.hasSuffix(".txt") else { throw Self.notFoundError }
        let id = try self.id(file.dropLast(isHTML ? 5 : 4), request)
        try MailroomApp.serving { () throws(ServiceError) in try service.markOpened(id) }
        let found = try web.reading { reader throws(StoreError) in
            try reader.message(id).map { found throws(StoreError) in (found.message, try reader.mailDetails(id)?.html) }
        }
        guard let (message, html) = found else { throw HTTPError(.notFound, "Message not found") }
        guard isHTML else { return Self.text(message.body) }
        guard let html else { throw HTTPError(.notFound, "This message does not contain a HTML part") }
        var response = Response(html: Array(html.utf8))
        response.headers.set("Content-Security-Policy", MailHTML.policy(images: "'none'"))
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    // MARK: Changes

    /// The JSON object of a request body, its member names matched in any case, as Mailpit's
    /// decoder matches them.
    static func body(_ request: Request) throws(HTTPError) -> [(String, JSON)] {
        guard !request.body.isEmpty else { throw HTTPError(.badRequest, "EOF") }
        let parsed: JSON
        do {
            parsed = try JSON.parse(request.body)
        } catch {
            throw HTTPError(.badRequest, error.message)
        }
        guard case .object(let members) = parsed else { throw HTTPError(.badRequest, "The body must be a JSON object.") }
        return members.map { ($0.0.lowercased(), $0.1) }
    }

    static func ids(_ members: [(String, JSON)]) throws(HTTPError) -> [MessageID] {
        guard let value = members.first(where: { $0.0 == "ids" })?.1 else { return [] }
        switch value {
        case .null: return []
        case .array(let values):
            var ids: [MessageID] = []
            for value in values {
                // An id Mailroom never gave out cannot be there: it is skipped, as Mailpit skips one.
                if case .string(let text) = value, let id = MessageID(text) { ids.append(id) }
                if case .number(let number) = value, number > 0 { ids.append(MessageID(number)) }
            }
            guard ids.count <= 100_000 else { throw HTTPError(.contentTooLarge, "At most 100,000 IDs at once.") }
            return ids
        default:
            throw HTTPError(.badRequest, "“IDs” must be an array of message IDs.")
        }
    }

    /// `PUT /api/v1/messages` with `{"IDs": [...], "Read": true}`, or `"Search"` instead of IDs,
    /// or neither for the whole Inbox. `Read` missing means unread, as in Mailpit.
    func setRead(_ request: Request) throws(HTTPError) -> Response {
        let members = try Self.body(request)
        let ids = try Self.ids(members)
        let read = members.first(where: { $0.0 == "read" })?.1 == .bool(true)
        var searchText = ""
        if case .string(let text)? = members.first(where: { $0.0 == "search" })?.1 { searchText = text }
        guard ids.isEmpty || searchText.isEmpty else {
            throw HTTPError(.badRequest, "You may specify either IDs or a search query, not both")
        }
        let command: ListCommand = read ? .markRead : .markUnread
        try change(command, ids: ids, search: searchText, everythingWhenEmpty: ids.isEmpty && searchText.isEmpty)
        return Self.ok
    }

    /// `DELETE /api/v1/messages` with `{"IDs": [...]}`; without IDs (or a body Mailpit cannot
    /// read), the whole Inbox. Deleted mail goes to Trash, where the pages can restore it.
    func delete(_ request: Request) throws(HTTPError) -> Response {
        let ids = (try? Self.ids(try Self.body(request))) ?? []
        try change(.removeSelected(.delete), ids: ids, search: "", everythingWhenEmpty: ids.isEmpty)
        return Self.ok
    }

    /// `DELETE /api/v1/search?query=…`: every match in the Inbox, to Trash.
    func deleteMatches(_ request: Request) throws(HTTPError) -> Response {
        let text = Substring(request.query["query"] ?? "").trimmingCharacters(in: " \t")
        guard !text.isEmpty else { throw HTTPError(.badRequest, "Error: no search query") }
        try change(.removeSelected(.delete), ids: [], search: text, everythingWhenEmpty: false)
        return Self.ok
    }

    /// Runs `command` on `ids` wherever they are, or on what a Mailpit `search` matches in the
    /// Inbox now, or (`everythingWhenEmpty`) the whole Inbox now: never on mail that arrives
    /// while it runs.
    private func change(_ command: ListCommand, ids: [MessageID], search: String, everythingWhenEmpty: Bool) throws(HTTPError) {
        let pageSize = web.pageSize
        if !ids.isEmpty {
            _ = try MailroomApp.serving { () throws(ServiceError) in try service.run(command, on: ids, pageSize: pageSize) }
            return
        }
        var translated = ""
        if !search.isEmpty {
            guard let query = try Self.searchQuery(search) else { throw HTTPError(.badRequest, "Error: no search query") }
            translated = query.text
        } else if !everythingWhenEmpty {
            return
        }
        let asOf = service.store.revision
        _ = try MailroomApp.serving { () throws(ServiceError) in
            try service.run(command, matching: translated, in: .inbox, asOf: asOf, pageSize: pageSize)
        }
    }

    // MARK: About the server

    /// `GET /api/v1/info`: counts from the kept counters, never a scan.
    func info() throws(HTTPError) -> Response {
        let inbox = try web.mailboxes()[.inbox]
        var file = stat()
        let size = stat(service.store.path, &file) == 0 ? Int(file.st_size) : 0
        let metrics = service.metrics
        return Self.json(.object([
            ("Version", .string(version)),
            ("LatestVersion", .string("disabled")),
            ("Database", .string(service.store.path)),
            ("DatabaseSize", .int(size)),
            ("Messages", .int(inbox?.count ?? 0)),
            ("Unread", .int(inbox?.unreadCount ?? 0)),
            ("Tags", .object(try MailroomApp.serving { () throws(ServiceError) in try service.tags() }.map { ($0.name, .int($0.count)) })),
            ("RuntimeStats", .object([
                ("Uptime", .number(max(0, web.now() - startedAt))),
                ("Memory", .int(MailroomApp.residentBytes())),
                ("MessagesDeleted", .int(0)),
                ("SMTPAccepted", .int(metrics.smtpMessagesAccepted.load(ordering: .relaxed))),
                ("SMTPAcceptedSize", .int(0)),
                ("SMTPRejected", .int(metrics.smtpMessagesRefused.load(ordering: .relaxed))),
                ("SMTPIgnored", .int(0)),
            ])),
        ]))
    }

    /// `GET /api/v1/webui`: no relay (yet), no SpamAssassin, no chaos.
    func webUI() -> Response {
        Self.json(.object([
            ("Label", .string("Mailroom")),
            ("MessageRelay", .object([
                ("Enabled", .bool(false)), ("SMTPServer", .string("")), ("ReturnPath", .string("")),
                ("AllowedRecipients", .string("")), ("BlockedRecipients", .string("")), ("OverrideFrom", .string("")),
                ("PreserveMessageIDs", .bool(false)), ("RecipientAllowlist", .string("")),
            ])),
            ("SpamAssassin", .bool(false)),
            ("ChaosEnabled", .bool(false)),
            ("DuplicatesIgnored", .bool(false)),
            ("HideDeleteAllButton", .bool(false)),
        ]))
    }
}
