import HTTP
import MailroomCore

extension MailroomApp {
    func showInbox(_ request: Request) throws(HTTPError) -> Response {
        let requested = try ListQuery.state(from: request.query)
        let mailbox = snapshot
        let page = ListPage(
            mailbox: mailbox, state: requested.reconciled(with: mailbox), notice: Notice(from: request.query),
            now: now())
        return Response(html: page.render())
    }

    /// Every change to the list arrives here as a form post and leaves as a 303 to the same list.
    func changeInbox(_ request: Request) throws(HTTPError) -> Response {
        let form = try request.form()
        let state = try ListQuery.state(from: form)

        // Adding is the one change that can fail validation and re-render the form.
        if form["action"] == "add" {
            let draft = Draft(subject: form["subject"] ?? "", body: form["body"] ?? "", author: form["author"] ?? "")
            do {
                try inbox.withLock { mailbox throws(MailboxError) in _ = try mailbox.add(draft, at: now()) }
            } catch {
                let mailbox = snapshot
                let page = ListPage(
                    mailbox: mailbox, state: state.reconciled(with: mailbox), notice: nil, now: now(),
                    draft: draft, problems: error.problems)
                return Response(status: .unprocessableContent, html: page.render())
            }
            return .seeOther(Paths.inbox(state, notice: Notice(.added)))
        }

        let command = try ListCommand(form: form)
        let (next, notice) = try inbox.withLock { mailbox throws(HTTPError) in
            try command.apply(to: &mailbox, in: state)
        }
        return .seeOther(Paths.inbox(next, notice: notice))
    }
}

extension MailboxError {
    /// What the add form shows next to the fields.
    var problems: [String] {
        switch self {
        case .draft(let error): error.problems.map(\.message)
        default: [message]
        }
    }
}
