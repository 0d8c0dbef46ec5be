import HTTP
import MailroomCore

extension MailroomApp {
    func showList(_ box: MailboxID, request: Request) throws(HTTPError) -> Response {
        let requested = try ListQuery.state(from: request.query)
        let (library, revision) = { let versioned = versioned; return (versioned.library, versioned.revision) }()
        guard let mailbox = library[box] else { throw HTTPError(.notFound, "There is no mailbox “\(box)”.") }
        let now = now()
        // Unchanged data, the same address and the same day: the browser's copy is current.
        let etag = PageTag.for(boot: boot, revision: revision, target: request.target, day: now / 86_400)
        if PageTag.matches(request, etag) { return PageTag.notModified(etag) }
        if let cached = pageCache.page(etag, revision: revision) { return cached }
        let rows = rowCache.batch(day: now / 86_400)
        let page = ListPage(
            library: library, mailbox: mailbox, state: requested.reconciled(with: mailbox),
            notice: Notice(from: request.query), now: now, rows: rows, token: token)
        let html = page.render()
        // Room for every row in about two ways (browsing and editing) before starting over.
        rowCache.store(rows, limit: 3 * library.messageCount + 1_024)
        var response = Response(html: html)
        response.headers.add("ETag", etag)
        SecurityHeaders.apply(to: &response)
        let answer = response.prepared()
        pageCache.store(answer, tag: etag, revision: revision)
        return answer
    }

    /// Every change to a list arrives here as a form post and leaves as a 303 to the same list.
    func changeList(_ box: MailboxID, request: Request) throws(HTTPError) -> Response {
        let form = try request.form()
        let state = try ListQuery.state(from: form)

        // Adding is the one change that can fail validation and re-render the form.
        if form["action"] == "add" {
            let draft = Draft(subject: form["subject"] ?? "", body: form["body"] ?? "", author: form["author"] ?? "")
            guard box != .trash else { throw HTTPError(.badRequest, "New messages cannot be added to Trash.") }
            do throws(HTTPError) {
                try perform { library throws(HTTPError) in
                    do throws(LibraryError) {
                        try library.add(draft, to: box, at: now())
                    } catch {
                        throw HTTPError(.unprocessableContent, error.message)
                    }
                }
            } catch where error.status == .unprocessableContent {
                let library = library
                let mailbox = library[box] ?? Mailbox()
                let found = Self.problems(of: draft)
                let problems = found.isEmpty ? [error.message] : found
                let now = now()
                let page = ListPage(
                    library: library, mailbox: mailbox, state: state.reconciled(with: mailbox), notice: nil,
                    now: now, rows: rowCache.batch(day: now / 86_400), token: token, draft: draft, problems: problems)
                return Response(status: .unprocessableContent, html: page.render())
            }
            return .seeOther(Paths.mailbox(box, state, notice: Notice(.added)))
        }

        let command = try ListCommand(form: form)
        let (next, notice) = try perform { library throws(HTTPError) in
            try command.apply(to: &library, in: box, state: state)
        }
        return .seeOther(Paths.mailbox(box, next, notice: notice))
    }

    /// Each problem with a draft as its own sentence, for the list next to the form.
    static func problems(of draft: Draft) -> [String] {
        do {
            _ = try draft.validated()
            return []
        } catch {
            return error.problems.map(\.message)
        }
    }
}
