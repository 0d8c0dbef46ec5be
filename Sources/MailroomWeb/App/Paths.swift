import HTTP
import MailroomCore
import MailroomService

/// Every URL the pages link to, built in one place so no page writes a raw URL string.
enum Paths {
    static let inbox = "/mailboxes/inbox"
    static let mailboxes = "/mailboxes"
    static let stylesheet = "/style.css"
    static let script = "/app.js"
    static let emptyTrash = "/mailboxes/trash/empty"
    static let signOut = "/signout"

    /// The sign-in page, which returns to `next` afterwards.
    static func signIn(next: String? = nil) -> String {
        guard let next, next != inbox else { return "/signin" }
        return "/signin?" + FormData([("next", next)]).urlEncoded
    }

    static func message(_ id: MessageID) -> String { "/messages/\(id)" }

    /// A mailed message's HTML part, as the document its sandboxed frame loads.
    static func mailHTML(_ id: MessageID) -> String { "/messages/\(id)/html" }

    /// The folder of a mailed message's attachments: the only place its HTML may load images from.
    static func mailParts(_ id: MessageID) -> String { "/messages/\(id)/parts/" }

    static func mailPart(_ id: MessageID, _ part: Int) -> String { "/messages/\(id)/parts/\(part)" }

    /// A mailed message exactly as it arrived, as a download.
    static func rawMail(_ id: MessageID) -> String { "/messages/\(id)/raw" }

    /// The address of stored bytes (`rawMail`, `mailPart`, `mailHTML`) as Mailroom's own pages
    /// link it: with the database's content tag, which lets the browser keep the answer for good.
    static func stored(_ path: String, version: String) -> String { path + "?v=" + version }

    /// Release… for a list's selection, and Forward… for one message.
    static func release(_ id: MailboxID) -> String { "/mailboxes/\(id.slug)/release" }
    static func forward(_ id: MessageID) -> String { "/messages/\(id)/forward" }

    static func deleteMailbox(_ id: MailboxID) -> String { "/mailboxes/\(id.slug)/delete" }

    /// A mailbox as seen in `state`, with an optional notice about what just happened.
    static func mailbox(_ id: MailboxID, _ state: ListState = .inactive, notice: Notice? = nil) -> String {
        var query = ListQuery.fields(for: state)
        if let notice { notice.append(to: &query) }
        let path = "/mailboxes/\(id.slug)"
        return query.isEmpty ? path : path + "?" + query.urlEncoded
    }

    static func inbox(_ state: ListState, notice: Notice? = nil) -> String {
        mailbox(.inbox, state, notice: notice)
    }

    /// `box`'s list showing what `search` finds.
    static func mailbox(_ id: MailboxID, search: String) -> String {
        var state = ListState.inactive
        state.search = search
        return mailbox(id, state)
    }

    static func mailboxes(notice: Notice?) -> String {
        var query = FormData()
        notice?.append(to: &query)
        return query.isEmpty ? mailboxes : mailboxes + "?" + query.urlEncoded
    }
}
