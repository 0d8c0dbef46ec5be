import HTTP
import MailroomCore

extension MailroomApp {
    /// Shows a message and, like Mail, marks it read, unless the person just marked it unread.
    func showMessage(_ id: MessageID, request: Request) throws(HTTPError) -> Response {
        let keepUnread = request.query["keep"] == "unread" || request.method == .head
        let message = inbox.withLock { mailbox -> Message? in
            if !keepUnread { mailbox.setUnread(false, for: [id]) }
            return mailbox.message(id)
        }
        guard let message else { throw HTTPError(.notFound, "There is no message \(id); it may have been deleted.") }
        return Response(html: MessagePage(message: message, notice: Notice(from: request.query)).render())
    }

    /// The message page after an action: only opening a message marks it read, so an unread
    /// message stays unread through Flag, Save or Mark Unread.
    private func revisit(_ id: MessageID, notice: String? = nil) -> String {
        let isUnread = snapshot.message(id)?.isUnread ?? false
        let query = [isUnread ? "keep=unread" : nil, notice].compactMap { $0 }.joined(separator: "&")
        return query.isEmpty ? Paths.message(id) : Paths.message(id) + "?" + query
    }

    func changeMessage(_ id: MessageID, request: Request) throws(HTTPError) -> Response {
        let form = try request.form()
        switch form["action"] {
        case "save":
            let draft = Draft(subject: form["subject"] ?? "", body: form["body"] ?? "")
            let result = inbox.withLock { mailbox -> Result<Void, MailboxError> in
                Result { () throws(MailboxError) in try mailbox.edit(id, with: draft) }
            }
            switch result {
            case .success:
                return .seeOther(revisit(id, notice: "done=saved"))
            case .failure(.unknownMessage):
                throw HTTPError(.notFound, "There is no message \(id); it may have been deleted.")
            case .failure(let error):
                guard let message = snapshot.message(id) else {
                    throw HTTPError(.notFound, "There is no message \(id); it may have been deleted.")
                }
                let page = MessagePage(message: message, notice: nil, draft: draft, problems: error.problems)
                return Response(status: .unprocessableContent, html: page.render())
            }
        case "delete":
            let outcome = inbox.withLock { $0.delete([id]) }
            let notice = outcome.applied.isEmpty ? Notice(.gone) : Notice(.deleted, count: 1)
            return .seeOther(Paths.inbox(.inactive, notice: notice))
        case "mark-read", "mark-unread", "flag", "unflag":
            let action = form["action"]
            let outcome = inbox.withLock { mailbox in
                switch action {
                case "mark-read": mailbox.setUnread(false, for: [id])
                case "mark-unread": mailbox.setUnread(true, for: [id])
                case "flag": mailbox.setFlagged(true, for: [id])
                default: mailbox.setFlagged(false, for: [id])
                }
            }
            guard !outcome.applied.isEmpty else {
                throw HTTPError(.notFound, "There is no message \(id); it may have been deleted.")
            }
            return .seeOther(revisit(id))
        case let other?:
            throw HTTPError(.badRequest, "Unknown action “\(other)”.")
        case nil:
            throw HTTPError(.badRequest, "The form says nothing to do: it has no action.")
        }
    }
}
