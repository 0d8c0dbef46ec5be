import HTTP
import MailroomCore

extension MailroomApp {
    /// Shows a message and, like Mail, marks it read, unless the person just marked it unread.
    func showMessage(_ id: MessageID, request: Request) throws(HTTPError) -> Response {
        let keepUnread = request.query["keep"] == "unread" || request.method == .head || !Self.isOpenedByAPerson(request)
        if !keepUnread, library.message(id)?.isUnread == true {
            _ = try perform { library throws(HTTPError) in
                if let box = library.mailbox(of: id) {
                    _ = try? library.update(box) { mailbox in mailbox.setUnread(false, for: [id]) }
                }
            }
        }
        let library = library
        guard let message = library.message(id), let box = library.mailbox(of: id), let mailbox = library[box] else {
            throw Self.noSuchMessage(id)
        }
        let page = MessagePage(library: library, message: message, mailbox: mailbox, notice: Notice(from: request.query), token: token)
        return Response(html: page.render())
    }

    func changeMessage(_ id: MessageID, request: Request) throws(HTTPError) -> Response {
        let form = try request.form()
        guard let box = library.mailbox(of: id) else {
            // A stale page's Delete for a message that is already gone: the wish is granted.
            if form["action"] == "delete" { return .seeOther(Paths.inbox(.inactive, notice: Notice(.gone))) }
            throw Self.noSuchMessage(id)
        }
        // A page shown while the message was elsewhere (another browser moved or deleted it since)
        // must not act on it where it is now: Delete in Trash would destroy it for good.
        if let shown = form["from"], MailboxID(slug: shown) != box {
            return .seeOther(Paths.message(id) + "?keep=unread&done=gone")
        }
        switch form["action"] {
        case "save":
            let draft = Draft(subject: form["subject"] ?? "", body: form["body"] ?? "")
            let problems = Self.problems(of: draft)
            guard problems.isEmpty else {
                let library = library
                guard let message = library.message(id), let mailbox = library[box] else { throw Self.noSuchMessage(id) }
                let page = MessagePage(
                    library: library, message: message, mailbox: mailbox, notice: nil, token: token, draft: draft, problems: problems)
                return Response(status: .unprocessableContent, html: page.render())
            }
            try perform { library throws(HTTPError) in
                try Self.update(&library, box, id) { mailbox throws(MailboxError) in try mailbox.edit(id, with: draft) }
            }
            return .seeOther(revisit(id, notice: "done=saved"))
        case "delete":
            let notice = try perform { library throws(HTTPError) in
                try Removal.delete.apply(to: [id], from: box, in: &library)
            }
            return .seeOther(Paths.mailbox(box, notice: notice.count > 0 ? notice : Notice(.gone)))
        case "restore":
            let notice = try perform { library throws(HTTPError) in try Removal.restore.apply(to: [id], from: box, in: &library) }
            return .seeOther(Paths.mailbox(.trash, notice: notice))
        case "archive":
            let notice = try perform { library throws(HTTPError) in
                try Removal.move(to: .archive).apply(to: [id], from: box, in: &library)
            }
            return .seeOther(Paths.mailbox(box, notice: notice))
        case "mark-read", "mark-unread", "flag", "unflag":
            let action = form["action"]
            try perform { library throws(HTTPError) in
                try Self.update(&library, box, id) { mailbox in
                    switch action {
                    case "mark-read": mailbox.setUnread(false, for: [id])
                    case "mark-unread": mailbox.setUnread(true, for: [id])
                    case "flag": mailbox.setFlagged(true, for: [id])
                    default: mailbox.setFlagged(false, for: [id])
                    }
                }
            }
            return .seeOther(revisit(id))
        case let other?:
            throw HTTPError(.badRequest, "Unknown action “\(other)”.")
        case nil:
            throw HTTPError(.badRequest, "The form says nothing to do: it has no action.")
        }
    }

    /// The message page after an action: only opening a message marks it read, so an unread
    /// message stays unread through Flag, Save or Mark Unread.
    private func revisit(_ id: MessageID, notice: String? = nil) -> String {
        let isUnread = library.message(id)?.isUnread ?? false
        let query = [isUnread ? "keep=unread" : nil, notice].compactMap { $0 }.joined(separator: "&")
        return query.isEmpty ? Paths.message(id) : Paths.message(id) + "?" + query
    }

    private static func update(
        _ library: inout Library, _ box: MailboxID, _ id: MessageID,
        _ change: (inout Mailbox) throws(MailboxError) -> some Any
    ) throws(HTTPError) {
        do {
            _ = try library.update(box, change)
        } catch .mailbox(.unknownMessage), .unknownMailbox {
            throw noSuchMessage(id)
        } catch {
            throw HTTPError(.badRequest, error.message)
        }
    }

    /// Opening a message marks it read, as in Mail, but only when a person opened it: from
    /// Mailroom's own pages or by typing its address (`Sec-Fetch-Site` same-origin or none, or,
    /// from an older browser, a Referer of our own). A GET that another site makes, or a script
    /// that says nothing of where it comes from, changes nothing.
    static func isOpenedByAPerson(_ request: Request) -> Bool {
        if let site = request.headers["Sec-Fetch-Site"] { return site == "same-origin" || site == "none" }
        guard let referer = request.headers["Referer"], let host = request.headers["Host"] else { return false }
        return referer.hasPrefix("http://" + host + "/")
    }

    static func noSuchMessage(_ id: MessageID) -> HTTPError {
        HTTPError(.notFound, "There is no message \(id); it may have been deleted.")
    }
}
