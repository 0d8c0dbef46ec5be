import HTTP
import MailroomCore

/// Every URL the pages link to, built in one place so no page writes a raw URL string.
enum Paths {
    static let inbox = "/mailboxes/inbox"
    static let stylesheet = "/style.css"

    static func message(_ id: MessageID) -> String { "/messages/\(id)" }

    /// The inbox as seen in `state`, with an optional notice about what just happened.
    static func inbox(_ state: ListState, notice: Notice? = nil) -> String {
        var query = ListQuery.fields(for: state)
        if let notice { notice.append(to: &query) }
        return query.isEmpty ? inbox : inbox + "?" + query.urlEncoded
    }
}
