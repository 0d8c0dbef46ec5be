import HTTP
import MailroomCore
import MailroomService
import MailroomStore

extension MailroomApp {
    func showMailboxes(_ request: Request) -> Response {
        let mailboxes = (try? mailboxes()) ?? []
        var page = MailboxesPage(mailboxes: mailboxes, notice: Notice(from: request.query), token: token)
        page.signsOut = signIn != nil
        page.addresses = (try? reading { reader throws(StoreError) in try reader.addresses() }) ?? [:]
        return Response(html: page.render())
    }

    /// The addresses a mailbox receives mail for; a refused list comes back as typed, with why.
    func changeAddresses(_ form: FormData) throws(HTTPError) -> Response {
        guard let slug = form["mailbox"], let id = MailboxID(slug: slug), try mailboxes()[id] != nil, id != .trash else {
            throw HTTPError(.notFound, "There is no mailbox that can receive mail by that name.")
        }
        let typed = form["addresses"] ?? ""
        let words = typed.split { $0 == "," || $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == ";" }.map(String.init)
        var patterns: [String] = []
        for word in words {
            guard let pattern = Routing.pattern(word) else {
                var page = MailboxesPage(mailboxes: try mailboxes(), notice: nil, token: token)
                page.signsOut = signIn != nil
                page.addresses = (try? reading { reader throws(StoreError) in try reader.addresses() }) ?? [:]
                page.refusedAddresses = (id, typed, "“\(word)” is not an address: use name@domain, or *@domain for a whole domain.")
                return Response(status: .unprocessableContent, html: page.render())
            }
            if !patterns.contains(pattern) { patterns.append(pattern) }
        }
        guard patterns.count <= 100 else {
            throw HTTPError(.unprocessableContent, "A mailbox can list at most 100 addresses.")
        }
        try Self.serving { () throws(ServiceError) in try service.setAddresses(patterns, for: id) }
        return .seeOther(Paths.mailboxes(notice: Notice(.routed)))
    }

    /// Create or rename a mailbox; a refused name comes back with its problem and what was typed.
    func changeMailboxes(_ request: Request) throws(HTTPError) -> Response {
        let form = try request.form()
        let name = form["name"] ?? ""
        let target: MailboxID?
        switch form["action"] {
        case "create":
            target = nil
        case "addresses":
            return try changeAddresses(form)
        case "rename":
            guard let slug = form["mailbox"], let id = MailboxID(slug: slug) else {
                throw HTTPError(.badRequest, "Rename needs the mailbox in “mailbox”.")
            }
            target = id
        default:
            throw HTTPError(.badRequest, "Use action=create, action=rename or action=addresses.")
        }
        do throws(ServiceError) {
            if let target {
                try service.renameMailbox(target, to: name)
                return .seeOther(Paths.mailboxes(notice: Notice(.renamed)))
            }
            return .seeOther(Paths.mailbox(try service.createMailbox(named: name), notice: Notice(.created)))
        } catch .refused(let message) {
            let page = MailboxesPage(mailboxes: try mailboxes(), notice: nil, token: token, refused: (target, name, message))
            return Response(status: .unprocessableContent, html: page.render())
        } catch {
            throw HTTPError(error)
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
        let count = try Self.serving { () throws(ServiceError) in try service.emptyTrash() }
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
        let count = try Self.serving { () throws(ServiceError) in try service.deleteMailbox(id) }
        return .seeOther(Paths.mailbox(.inbox, notice: Notice(.removed, count: count)))
    }
}
