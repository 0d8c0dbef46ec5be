import HTTP
import MailroomCore
import MailroomService

/// What `POST /api/v1/messages/ACTION` can do, as the toolbar's buttons do it.
enum APIAction: String, CaseIterable {
    case read, unread, flag, unflag, delete, tag, untag

    /// The command, with the tags a tag or untag action names (`"tags": ["a", "b"]`).
    func command(tags: [String]) -> ListCommand {
        switch self {
        case .tag: .tag(tags)
        case .untag: .untag(tags)
        case .read: .markRead
        case .unread: .markUnread
        case .flag: .flag
        case .unflag: .unflag
        // To Trash, or out of Trash for good, as Delete does on the page.
        case .delete: .removeSelected(.delete)
        }
    }
}

/// Which messages an API action names: ids, or a query as of a revision.
enum APITarget {
    case ids([MessageID])
    case query(String, mailbox: String, revision: Int64?, all: Bool)

    init(_ request: Request) throws(HTTPError) {
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: " \t").lowercased() ?? ""
        guard type == "application/json" else {
            // A form could be posted here by any site; JSON makes a browser ask first (CORS),
            // which Mailroom never allows.
            throw HTTPError(.unsupportedMediaType, "Send the body as JSON, with Content-Type: application/json.")
        }
        let body: JSON
        do {
            body = try JSON.parse(request.body)
        } catch {
            throw HTTPError(.badRequest, error.message)
        }
        guard case .object = body else { throw HTTPError(.badRequest, "The body must be a JSON object.") }
        if let ids = body["ids"] {
            guard case .array(let values) = ids else { throw HTTPError(.badRequest, "“ids” must be an array of message ids.") }
            var found: [MessageID] = []
            for value in values {
                guard case .number(let id) = value, id > 0 else { throw HTTPError(.badRequest, "“ids” must hold message ids (whole numbers).") }
                found.append(MessageID(id))
            }
            self = try Self.checked(ids: found)
            return
        }
        let revision: Int64?
        switch body["revision"] {
        case nil, .null?: revision = nil
        case .number(let value)?: revision = value
        default: throw HTTPError(.badRequest, "“revision” must be a whole number.")
        }
        var text = ""
        switch body["q"] {
        case nil, .null?: break
        case .string(let value)?: text = value
        default: throw HTTPError(.badRequest, "“q” must be a string.")
        }
        var mailbox = "inbox"
        switch body["mailbox"] {
        case nil, .null?: break
        case .string(let value)?: mailbox = value
        default: throw HTTPError(.badRequest, "“mailbox” must be a mailbox's id, such as \"inbox\".")
        }
        self = try Self.checked(query: text, mailbox: mailbox, revision: revision, all: body["all"] == .bool(true))
    }

    private static func checked(ids: [MessageID]) throws(HTTPError) -> APITarget {
        guard !ids.isEmpty else { throw HTTPError(.badRequest, "“ids” is empty: name at least one message.") }
        guard ids.count <= 100_000 else { throw HTTPError(.contentTooLarge, "At most 100,000 ids at once; use a query for more.") }
        return .ids(ids)
    }

    private static func checked(query: String, mailbox: String, revision: Int64?, all: Bool) throws(HTTPError) -> APITarget {
        .query(query, mailbox: mailbox, revision: revision, all: all)
    }
}
