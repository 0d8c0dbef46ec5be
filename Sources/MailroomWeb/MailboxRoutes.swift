import HTTP
import MailroomCore
import MailroomStore

extension MailroomApp {
    func showMailboxes(_ request: Request) -> Response {
        let mailboxes = (try? mailboxes()) ?? []
        var page = MailboxesPage(mailboxes: mailboxes, notice: Notice(from: request.query), token: token)
        page.signsOut = signIn != nil
        return Response(html: page.render())
    }

    /// Create or rename a mailbox; a refused name comes back with its problem and what was typed.
    func changeMailboxes(_ request: Request) throws(HTTPError) -> Response {
        let form = try request.form()
        let name = form["name"] ?? ""
        let target: MailboxID?
        switch form["action"] {
        case "create":
            target = nil
        case "rename":
            guard let slug = form["mailbox"], let id = MailboxID(slug: slug) else {
                throw HTTPError(.badRequest, "Rename needs the mailbox in “mailbox”.")
            }
            target = id
        default:
            throw HTTPError(.badRequest, "Use action=create or action=rename.")
        }
        do throws(HTTPError) {
            let created = try perform { transaction throws(HTTPError) -> MailboxID? in
                do throws(StoreError) {
                    if let target {
                        try transaction.renameMailbox(target, to: name)
                        return nil
                    }
                    return try transaction.createMailbox(named: name)
                } catch .refused(.unknownMailbox(let id)) {
                    throw HTTPError(.notFound, "There is no mailbox “\(id)”.")
                } catch .refused(let refusal) {
                    throw HTTPError(.unprocessableContent, refusal.message)
                } catch {
                    throw ListCommand.failure(error)
                }
            }
            if let created { return .seeOther(Paths.mailbox(created, notice: Notice(.created))) }
            return .seeOther(Paths.mailboxes(notice: Notice(.renamed)))
        } catch where error.status == .unprocessableContent {
            let page = MailboxesPage(mailboxes: try mailboxes(), notice: nil, token: token, refused: (target, name, error.message))
            return Response(status: .unprocessableContent, html: page.render())
        }
    }

    func showEmptyTrash() throws(HTTPError) -> Response {
        let mailboxes = try mailboxes()
        let count = mailboxes[.trash]?.count ?? 0
        let page = ConfirmPage(
            mailboxes: mailboxes, heading: "Empty Trash?",
            explanation: count == 0
                ? "Trash is already empty."
                : "\(Notice.messages(count)) in Trash will be deleted permanently. This cannot be undone.",
            action: Paths.emptyTrash, confirmLabel: "Empty Trash", cancelPath: Paths.mailbox(.trash), token: token)
        return Response(html: page.render())
    }

    func emptyTrash(_ request: Request) throws(HTTPError) -> Response {
        guard try request.form()["confirm"] == "yes" else {
            throw HTTPError(.badRequest, "Emptying Trash needs confirm=yes from its confirmation page.")
        }
        let count = try perform { transaction throws(HTTPError) in
            try ListCommand.reading { () throws(StoreError) in try transaction.emptyTrash() }
        }
        return .seeOther(Paths.mailbox(.trash, notice: Notice(.emptied, count: count)))
    }

    func showDeleteMailbox(_ id: MailboxID) throws(HTTPError) -> Response {
        let mailboxes = try mailboxes()
        guard let mailbox = mailboxes[id], !id.isSystem else {
            throw HTTPError(.badRequest, "Inbox, Archive and Trash cannot be deleted.")
        }
        let page = ConfirmPage(
            mailboxes: mailboxes, heading: "Delete “\(mailbox.name)”?",
            explanation: mailbox.isEmpty
                ? "The mailbox is empty and will be removed."
                : "The mailbox will be removed and its \(Notice.messages(mailbox.count)) moved to Trash, "
                    + "from where Restore brings \(mailbox.count == 1 ? "it" : "them") to the Inbox.",
            action: Paths.deleteMailbox(id), confirmLabel: "Delete Mailbox", cancelPath: Paths.mailboxes, token: token)
        return Response(html: page.render())
    }

    func deleteMailbox(_ id: MailboxID, request: Request) throws(HTTPError) -> Response {
        guard try request.form()["confirm"] == "yes" else {
            throw HTTPError(.badRequest, "Deleting a mailbox needs confirm=yes from its confirmation page.")
        }
        let count = try perform { transaction throws(HTTPError) in
            try ListCommand.reading { () throws(StoreError) in try transaction.deleteMailbox(id) }
        }
        return .seeOther(Paths.mailbox(.inbox, notice: Notice(.removed, count: count)))
    }
}
