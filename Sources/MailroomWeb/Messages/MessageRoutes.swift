import HTTP
import MailroomCore
import MailroomService
import MailroomStore

extension MailroomApp {
    /// Shows a message and, like Mail, marks it read, unless the person just marked it unread.
    func showMessage(_ id: MessageID, request: Request) throws(HTTPError) -> Response {
        let keepUnread = request.query["keep"] == "unread" || request.method == .head || !Self.isOpenedByAPerson(request)
        if !keepUnread, try reading({ reader throws(StoreError) in try reader.place(of: id)?.isUnread }) == true {
            try Self.serving { () throws(ServiceError) in try service.markOpened(id) }
        }
        let (mailboxes, found, details, inline) = try reading { reader throws(StoreError) in
            let details = try reader.mailDetails(id)
            return (try reader.mailboxes(), try reader.message(id), details,
                    details?.attachments.isEmpty == false ? try reader.inlineParts(of: id) : [])
        }
        guard let found, let mailbox = mailboxes[found.mailbox] else { throw Self.noSuchMessage(id) }
        let view = MailView(query: request.query["view"], hasHTML: details?.html != nil)
        let mail = try details.map { details throws(HTTPError) in
            var section = MailSection(
                id: id, details: details, view: view,
                headerBlock: view == .headers ? MailSection.headerBlock(of: try rawBytes(details, of: id)) : nil)
            section.inlineParts = inline
            section.remoteImages = MailHTML.asksForRemoteImages(request)
            section.version = contentTag
            return section
        }
        var page = MessagePage(mailboxes: mailboxes, message: found.message, mailbox: mailbox, notice: Notice(from: request.query), token: token)
        page.mail = mail
        page.canRelay = canRelay
        let id = found.message.id
        page.outbound = try Self.serving { () throws(ServiceError) in try service.outbound(of: id) }
        var response = Response(html: page.render())
        // The page changes with the message's state, its mailbox, the sidebar and what was sent
        // on: checked on every view (no-cache), and not sent again while the same.
        let etag = "\"page-" + Fingerprint.hex(response.body) + "-" + String(response.body.count, radix: 16) + "\""
        if PageTag.matches(request, etag) { response = PageTag.notModified(etag) } else { response.headers.add("ETag", etag) }
        // In the 304 too: a browser puts a 304's fields in place of those it kept, and the site's
        // own policy would stop the page's mail frame from loading.
        if mail?.view == .html && details?.html != nil {
            response.headers.add("Content-Security-Policy", SecurityHeaders.framingPolicy)
        }
        return response
    }

    func changeMessage(_ id: MessageID, request: Request) throws(HTTPError) -> Response {
        let form = try request.form()
        if let action = form["action"], ["mark-read", "mark-unread", "flag", "unflag"].contains(action) {
            return try mark(id, action, shownIn: form["from"].flatMap { MailboxID(slug: $0) })
        }
        guard let box = try reading({ reader throws(StoreError) in try reader.mailbox(of: id) }) else {
            if form["action"] == "delete" { return .seeOther(Paths.inbox(.inactive, notice: Notice(.gone))) }
            throw Self.noSuchMessage(id)
        }
        if let shown = form["from"], MailboxID(slug: shown) != box {
            return .seeOther(Paths.message(id) + "?keep=unread&done=gone")
        }
        switch form["action"] {
        case "save":
            let draft = Draft(subject: form["subject"] ?? "", body: form["body"] ?? "")
            let problems = Self.problems(of: draft)
            guard problems.isEmpty else {
                let (mailboxes, found) = try reading { reader throws(StoreError) in (try reader.mailboxes(), try reader.message(id)) }
                guard let found, let mailbox = mailboxes[found.mailbox] else { throw Self.noSuchMessage(id) }
                let page = MessagePage(
                    mailboxes: mailboxes, message: found.message, mailbox: mailbox, notice: nil, token: token,
                    draft: draft, problems: problems)
                return Response(status: .unprocessableContent, html: page.render())
            }
            do throws(ServiceError) {
                try service.edit(id, with: draft)
            } catch .notFound {
                throw Self.noSuchMessage(id)
            } catch {
                throw HTTPError(error)
            }
            return .seeOther(try revisit(id, notice: "done=saved"))
        case "delete":
            let notice = try Self.serving { () throws(ServiceError) in try service.remove(id, .delete, from: box) }
            return .seeOther(Paths.mailbox(box, notice: notice.count > 0 ? notice : Notice(.gone)))
        case "restore":
            let notice = try Self.serving { () throws(ServiceError) in try service.remove(id, .restore, from: box) }
            return .seeOther(Paths.mailbox(.trash, notice: notice))
        case "archive":
            let notice = try Self.serving { () throws(ServiceError) in try service.remove(id, .move(to: .archive), from: box) }
            return .seeOther(Paths.mailbox(box, notice: notice))
        case "tag", "untag":
            let names = Tag.list(form["tag"] ?? "")
            let adding = form["action"] == "tag"
            var notice = Notice(.needsTag)
            if !names.isEmpty {
                let pageSize = pageSize
                let tally = try Self.serving { () throws(ServiceError) in
                    try service.run(adding ? .tag(names) : .untag(names), on: [id], pageSize: pageSize)
                }
                notice = Notice(adding ? .tagged : .untagged, count: tally.changed, gone: tally.gone, tags: names)
            }
            var query = FormData()
            notice.append(to: &query)
            return .seeOther(try revisit(id, notice: query.urlEncoded))
        case let other?:
            throw HTTPError(.badRequest, "Unknown action “\(other)”.")
        case nil:
            throw HTTPError(.badRequest, "The form says nothing to do: it has no action.")
        }
    }

    /// Mark read or unread, flag or unflag: the commonest post.
    private func mark(_ id: MessageID, _ action: String, shownIn shown: MailboxID?) throws(HTTPError) -> Response {
        let mark: Mailroom.Mark = switch action {
        case "mark-read": .read
        case "mark-unread": .unread
        case "flag": .flag
        default: .unflag
        }
        let marked: Mailroom.Marked
        do throws(ServiceError) {
            marked = try service.mark(id, mark, shownIn: shown)
        } catch .notFound {
            throw Self.noSuchMessage(id)
        } catch {
            throw HTTPError(error)
        }
        switch marked {
        case .gone: throw Self.noSuchMessage(id)
        case .elsewhere: return .seeOther(Paths.message(id) + "?keep=unread&done=gone")
        case .done(let isUnread): return .seeOther(Self.revisit(id, isUnread: isUnread))
        }
    }

    private func revisit(_ id: MessageID, notice: String? = nil) throws(HTTPError) -> String {
        Self.revisit(id, isUnread: try reading { reader throws(StoreError) in try reader.place(of: id)?.isUnread } ?? false,
                     notice: notice)
    }

    /// The message's page after a change: kept unread if it is, with an optional notice.
    private static func revisit(_ id: MessageID, isUnread: Bool, notice: String? = nil) -> String {
        let query = [isUnread ? "keep=unread" : nil, notice].compactMap { $0 }.joined(separator: "&")
        return query.isEmpty ? Paths.message(id) : Paths.message(id) + "?" + query
    }

    static func isOpenedByAPerson(_ request: Request) -> Bool {
        if let site = request.headers["Sec-Fetch-Site"] { return site == "same-origin" || site == "none" }
        guard let referer = request.headers["Referer"], let host = request.headers["Host"] else { return false }
        return referer.hasPrefix("http://" + host + "/")
    }

    static func noSuchMessage(_ id: MessageID) -> HTTPError {
        HTTPError(.notFound, "There is no message \(id); it may have been deleted.")
    }
}
