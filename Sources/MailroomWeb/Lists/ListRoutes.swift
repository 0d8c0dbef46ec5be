import HTTP
import MailroomCore
import MailroomService
import MailroomStore

extension MailroomApp {
    func showList(_ box: MailboxID, request: Request) throws(HTTPError) -> Response {
        let now = now()
        let day = now / 86_400
        // Nothing committed since this thread answered the same address today: its answer then
        // is current, found without a lock (see `PageMemo`).
        let stamp = store.revision
        let memo = PageMemo.current
        if let kept = memo?.page(for: request.target, app: serial, revision: stamp, day: day) {
            let answer = PageTag.matches(request, kept.etag) ? PageTag.notModified(kept.etag) : kept.response
            return repeatable(answer, stamp: stamp, day: day)
        }
        // Loaded before the page is read: the page shows at least this revision of the mailbox.
        // `through` says which commits that revision has heard of: the store's revision is
        // ahead of it for a moment after each commit.
        let (revision, through) = service.revisionNoted(of: box)
        // Unchanged rows, the same counts in the sidebar, the same address and the same day:
        // the kept page, or the browser's copy, is current. An address that is kept, or that
        // the browser holds, was read (and checked) already. A kept page is found without
        // making its tag, which is kept with it.
        let counts = try sidebarCounts()
        if let kept = pages.value(PageKey(counts: counts, day: day, target: request.target), in: box, revision: revision) {
            // A page kept for a revision that may not have heard of commit `stamp` yet is sent,
            // as before, but not remembered as current at `stamp`.
            let answer = PageTag.matches(request, kept.etag) ? PageTag.notModified(kept.etag) : kept.response
            guard through >= stamp else { return answer }
            memo?.keep(kept, for: request.target, app: serial, revision: stamp, day: day)
            return repeatable(answer, stamp: stamp, day: day)
        }
        let etag = PageTag.for(boot: boot, revision: Int(revision), counts: counts, target: request.target, day: day)
        let requested = try ListQuery.state(from: request.query)
        if PageTag.matches(request, etag) { return PageTag.notModified(etag) }
        let (html, shown) = try renderPage(box, requested, notice: Notice(from: request.query), now: now)
        // Tagged with the counts it shows, which may be newer than those loaded above.
        let shownCounts = PageTag.counts(shown)
        let tag = PageTag.for(boot: boot, revision: Int(revision), counts: shownCounts, target: request.target, day: day)
        var response = Response(html: html)
        response.headers.add("ETag", tag)
        SecurityHeaders.apply(to: &response)
        let answer = response.prepared()
        let kept = KeptPage(etag: tag, response: answer)
        pages.store(kept, for: PageKey(counts: shownCounts, day: day, target: request.target),
                    in: box, revision: revision, cost: answer.body.count)
        // Rows kept for the mailbox's revision went into it: the same holds as above.
        guard through >= stamp else { return answer }
        memo?.keep(kept, for: request.target, app: serial, revision: stamp, day: day)
        return repeatable(answer, stamp: stamp, day: day)
    }

    /// A page that is current as of commit `stamp` on `day`, marked so that a loop may send it
    /// again for the same request until the next commit or the next day, as `PageMemo` would.
    /// Behind a password it is never repeated: a session ends without a commit.
    private func repeatable(_ page: Response, stamp: Int64, day: Int64) -> Response {
        guard signIn == nil else { return page }
        let (store, now) = (store, now)
        return page.repeating(while: Repeatable { store.revision == stamp && now() / 86_400 == day })
    }

    /// `PageTag.counts` of the sidebar as of the last commit, worked out once per commit rather
    /// than for every request of a kept page.
    func sidebarCounts() throws(HTTPError) -> String {
        let revision = store.revision
        if let known = sidebar.withLock({ $0 }), known.revision == revision { return known.counts }
        let counts = PageTag.counts(try mailboxes())
        sidebar.withLock { known in
            if (known?.revision ?? -1) < revision { known = (revision, counts) }
        }
        return counts
    }

    /// Where a list page starts and what it searches: with its mailbox, what its rows are
    /// cached under.
    struct SliceKey: Hashable, Sendable {
        let place: PagePlace
        let search: String
    }

    /// The page of `box` that `state` asks for, read in one read transaction.
    private func render(
        _ box: MailboxID, _ state: ListState, notice: Notice?, now: Int64,
        draft: Draft = Draft(subject: ""), problems: [String] = []
    ) throws(HTTPError) -> [UInt8] {
        try renderPage(box, state, notice: notice, now: now, draft: draft, problems: problems).html
    }

    /// The page and the mailboxes (with their counts) its sidebar shows.
    private func renderPage(
        _ box: MailboxID, _ state: ListState, notice: Notice?, now: Int64,
        draft: Draft = Draft(subject: ""), problems: [String] = []
    ) throws(HTTPError) -> (html: [UInt8], mailboxes: [MailboxSummary]) {
        var (query, searchProblem) = ListCommand.search(of: state)
        let pageSize = pageSize
        // Loaded before reading: what is read is at least this revision of the mailbox.
        let revision = service.revision(of: box)
        let key = SliceKey(place: state.place, search: state.search)
        // A search's rows are read every time (only how many match is kept per revision: see
        // `Mailroom.search`); other lists' slices are kept while their mailbox is unchanged.
        if !state.isSearch, state.allAsOf == nil, let known = slices.value(key, in: box, revision: revision) {
            let mailboxes = try self.mailboxes()
            let html = try finish(box, state, mailboxes, known, allCount: nil, searchProblem: nil,
                                  notice: notice, now: now, draft: draft, problems: problems)
            return (html, mailboxes)
        }
        let (mailboxes, slice, allCount) = try reading { reader throws(StoreError) in
            let mailboxes = try reader.mailboxes()
            var slice: ListSlice
            if let search = query {
                do throws(StoreError) {
                    slice = try service.search(search, in: box, from: state.place, limit: pageSize, reader: reader, revision: revision)
                } catch {
                    guard case .sqlite(_, let message, _) = error else { throw error }
                    // The parser quotes every word, so this is not expected; if it happens, say so.
                    searchProblem = "This search could not be run (\(message)). Try other words."
                    query = nil
                    slice = ListSlice(rows: [], keys: [], hasNewer: false, hasOlder: false, total: 0, revision: try reader.revision())
                }
            } else if searchProblem != nil {
                slice = ListSlice(rows: [], keys: [], hasNewer: false, hasOlder: false, total: 0, revision: try reader.revision())
            } else {
                slice = try reader.page(of: box, from: state.place, limit: pageSize)
            }
            let allCount = try state.allAsOf.map { revision throws(StoreError) in
                if let search = query { return try reader.count(search, in: box, enteredBy: revision) }
                return try reader.count(in: box, enteredBy: revision)
            }
            return (mailboxes, slice, allCount)
        }
        if !state.isSearch {
            slices.store(slice, for: key, in: box, revision: revision)
        }
        let html = try finish(box, state, mailboxes, slice, allCount: allCount, searchProblem: searchProblem,
                              notice: notice, now: now, draft: draft, problems: problems)
        return (html, mailboxes)
    }

    /// The page itself, from rows already read.
    private func finish(
        _ box: MailboxID, _ state: ListState, _ mailboxes: [MailboxSummary], _ slice: ListSlice, allCount: Int?,
        searchProblem: String?, notice: Notice?, now: Int64, draft: Draft, problems: [String]
    ) throws(HTTPError) -> [UInt8] {
        guard let mailbox = mailboxes[box] else { throw HTTPError(.notFound, "There is no mailbox “\(box)”.") }
        // Only edit mode and a confirmation look rows up by id: browsing needs no set of them.
        let shown: Set<MessageID> = state.mode == .inactive ? [] : Set(slice.rows.map(\.id))
        let rows = try rowBatch(for: slice.rows, day: now / 86_400)
        var page = ListPage(
            mailboxes: mailboxes, mailbox: mailbox, slice: slice,
            state: state.reconciled(isEmpty: slice.rows.isEmpty, isPresent: shown.contains),
            notice: notice, now: now, rows: rows, token: token, draft: draft, problems: problems)
        page.allCount = page.state.allAsOf == nil ? nil : allCount
        page.tags = try tags(in: box)
        page.canRelay = canRelay
        page.searchProblem = searchProblem
        let html = page.render()
        // Room for a few pages of every mailbox in about two ways (browsing and editing).
        rowCache.store(rows, limit: 64 * pageSize + 1_024)
        return html
    }

    /// Every change to a list arrives here as a form post and leaves as a 303 to the same list.
    func changeList(_ box: MailboxID, request: Request) throws(HTTPError) -> Response {
        let form = try request.form()
        let state = try ListQuery.state(from: form)

        // Adding is the one change that can fail validation and re-render the form.
        if form["action"] == "add" {
            let draft = Draft(subject: form["subject"] ?? "", body: form["body"] ?? "", author: form["author"] ?? "")
            guard box != .trash else { throw HTTPError(.badRequest, "New messages cannot be added to Trash.") }
            do throws(ServiceError) {
                try service.add(draft, to: box)
            } catch .refused(let message) {
                let found = Self.problems(of: draft)
                let html = try render(box, state, notice: nil, now: now(), draft: draft, problems: found.isEmpty ? [message] : found)
                return Response(status: .unprocessableContent, html: html)
            } catch {
                throw HTTPError(error)
            }
            // The new message is on top: show the first page.
            return .seeOther(Paths.mailbox(box, state.moved(to: .top, start: 1), notice: Notice(.added)))
        }

        // Release… asks where to on a page of its own, with the selection in its address.
        if form["action"] == "release" {
            guard !state.selection.isEmpty || state.allAsOf != nil else {
                return .seeOther(Paths.mailbox(box, state, notice: Notice(.nothingSelected)))
            }
            return .seeOther(Paths.release(box) + "?" + ListQuery.fields(for: state).urlEncoded)
        }
        let command = try ListCommand(form: form)
        let pageSize = pageSize
        if command.changesNothing {
            let viewed = try readingView { (reader: Reader) throws(HTTPError) in
                do throws(ServiceError) {
                    return try command.view(on: reader, in: box, state: state, pageSize: pageSize)
                } catch {
                    throw HTTPError(error)
                }
            }
            if let (next, notice) = viewed { return .seeOther(Paths.mailbox(box, next, notice: notice)) }
        }
        let counted = form["all-count"].flatMap { Int($0) }
        let (next, notice) = try Self.serving { () throws(ServiceError) in
            try service.run(command, in: box, state: state, pageSize: pageSize, counted: counted)
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

extension MailroomApp {
    /// The tags of `box`'s messages with their counts there, read once per change to it.
    func tags(in box: MailboxID) throws(HTTPError) -> [TagSummary] {
        let revision = service.revision(of: box)
        if let known = tagLists.value(0, in: box, revision: revision) { return known }
        let tags = try reading { reader throws(StoreError) in try reader.tags(in: box) }
        tagLists.store(tags, for: 0, in: box, revision: revision)
        return tags
    }
}
