import HTTP
import MailroomCore

/// Every URL the pages link to, built in one place so no page writes a raw URL string.
enum Paths {
    static let inbox = "/mailboxes/inbox"
    static let mailboxes = "/mailboxes"
    static let stylesheet = "/style.css"
    static let emptyTrash = "/mailboxes/trash/empty"

    static func message(_ id: MessageID) -> String { "/messages/\(id)" }

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

    static func mailboxes(notice: Notice?) -> String {
        var query = FormData()
        notice?.append(to: &query)
        return query.isEmpty ? mailboxes : mailboxes + "?" + query.urlEncoded
    }
}
