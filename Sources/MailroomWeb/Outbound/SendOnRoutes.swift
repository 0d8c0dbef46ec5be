import HTTP
import MailroomCore
import MailroomService
import MailroomStore

/// Release… from a list's edit mode and Forward… from a message: a page that asks where to,
/// then the mail queued for the relay and a notice on the page the person came from.
extension MailroomApp {
    /// How many subjects the page lists before "and N more".
    static let shownSubjects = 10

    /// `GET /mailboxes/BOX/release?…`: the selection the list posted, and where to send it.
    func showRelease(_ box: MailboxID, request: Request) throws(HTTPError) -> Response {
        let state = try ListQuery.state(from: request.query)
        return Response(html: try releasePage(box, state, to: "", problem: nil))
    }

    /// `POST /mailboxes/BOX/release`: queues the selection (its ticks, or all N as counted) and
    /// goes back to the list, still editing, with what was queued.
    func release(_ box: MailboxID, request: Request) throws(HTTPError) -> Response {
        let form = try request.form()
        let state = try ListQuery.state(from: form)
        let to = form["to"] ?? ""
        let tally: Mailroom.Tally
        do throws(ServiceError) {
            if let revision = state.allAsOf {
                tally = try service.release(matching: state.search, in: box, asOf: revision, to: to, cause: "release")
            } else {
                tally = try service.release(Array(state.selection), to: to, cause: "release")
            }
        } catch .refused(let message), .badInput(let message), .tooLarge(let message) {
            let html = try releasePage(box, state, to: to, problem: message)
            return Response(status: .unprocessableContent, html: html)
        } catch {
            throw HTTPError(error)
        }
        let recipients = (try? relayPolicy().recipients(in: to)) ?? []
        let notice = Notice(.queued, count: tally.changed, gone: tally.gone, recipients: recipients)
        return .seeOther(Paths.mailbox(box, state, notice: notice))
    }

    /// `GET /messages/ID/forward`.
    func showForward(_ id: MessageID) throws(HTTPError) -> Response {
        Response(html: try forwardPage(id, to: "", problem: nil))
    }

    /// `POST /messages/ID/forward`: queued, then back to the message with what was queued.
    func forward(_ id: MessageID, request: Request) throws(HTTPError) -> Response {
        let form = try request.form()
        let to = form["to"] ?? ""
        let tally: Mailroom.Tally
        do throws(ServiceError) {
            tally = try service.release([id], to: to, cause: "forward")
        } catch .refused(let message), .badInput(let message), .tooLarge(let message) {
            return Response(status: .unprocessableContent, html: try forwardPage(id, to: to, problem: message))
        } catch {
            throw HTTPError(error)
        }
        guard tally.changed == 1 else { throw Self.noSuchMessage(id) }
        var query = FormData()
        Notice(.queued, count: 1, recipients: (try? relayPolicy().recipients(in: to)) ?? []).append(to: &query)
        return .seeOther(Paths.message(id) + "?keep=unread&" + query.urlEncoded)
    }

    /// The relay's rules, when Mailroom has a relay: what the pages offer depends on it.
    func relayPolicy() throws(ServiceError) -> RelayPolicy {
        try service.currentRelay()
    }

    var canRelay: Bool { (try? service.currentRelay()) != nil }

    private func releasePage(_ box: MailboxID, _ state: ListState, to: String, problem: String?) throws(HTTPError) -> [UInt8] {
        let mailboxes = try mailboxes()
        guard mailboxes[box] != nil else { throw HTTPError(.notFound, "There is no mailbox “\(box)”.") }
        let (count, subjects) = try reading { reader throws(StoreError) -> (Int, [String]) in
            if let revision = state.allAsOf {
                let query = state.isSearch ? (try? SearchQuery(state.search)) : nil
                if let query {
                    let page = try reader.search(query, in: box, from: .top, limit: Self.shownSubjects)
                    return (try reader.count(query, in: box, enteredBy: revision), page.rows.map(\.subject))
                }
                let page = try reader.page(of: box, from: .top, limit: Self.shownSubjects)
                return (try reader.count(in: box, enteredBy: revision), page.rows.map(\.subject))
            }
            var subjects: [String] = []
            var count = 0
            for id in state.selection.sorted(by: { $0.rawValue > $1.rawValue }) {
                guard let found = try reader.message(id), found.mailbox == box else { continue }
                count += 1
                if subjects.count < Self.shownSubjects { subjects.append(found.message.subject) }
            }
            return (count, subjects)
        }
        guard count > 0 else { throw HTTPError(.badRequest, "Select one or more messages to release first.") }
        var fields = ListQuery.fields(for: state).fields.map { ($0.name, $0.value) }
        if !fields.contains(where: { $0.0 == "mode" }) { fields.insert(("mode", "active"), at: 0) }
        var page = SendOnPage(
            mailboxes: mailboxes, heading: count == 1 ? "Release 1 Message" : "Release \(Formatting.count(count)) Messages",
            subjects: subjects, count: count, action: Paths.release(box), fields: fields, buttonLabel: "Release",
            cancelPath: Paths.mailbox(box, state), token: token)
        page.to = to
        page.problem = problem
        page.allowed = (try? relayPolicy().allowedRecipients) ?? []
        return page.render()
    }

    private func forwardPage(_ id: MessageID, to: String, problem: String?) throws(HTTPError) -> [UInt8] {
        let mailboxes = try mailboxes()
        guard let found = try reading({ reader throws(StoreError) in try reader.message(id) }) else { throw Self.noSuchMessage(id) }
        var page = SendOnPage(
            mailboxes: mailboxes, heading: "Forward “\(found.message.subject)”", subjects: [found.message.subject], count: 1,
            action: Paths.forward(id), fields: [], buttonLabel: "Forward", cancelPath: Paths.message(id) + "?keep=unread", token: token)
        page.to = to
        page.problem = problem
        page.allowed = (try? relayPolicy().allowedRecipients) ?? []
        return page.render()
    }
}
