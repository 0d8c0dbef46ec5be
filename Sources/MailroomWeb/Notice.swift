import HTTP

/// What the page says about the action that led to it, carried in the redirect's URL.
struct Notice: Hashable, Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case added, deleted, markedRead = "marked-read", markedUnread = "marked-unread"
        case flagged, unflagged, saved, nothingSelected = "nothing-selected", gone
    }

    var kind: Kind
    /// How many messages the action changed.
    var count: Int = 0
    /// How many of the named messages had already been deleted elsewhere.
    var gone: Int = 0

    init(_ kind: Kind, count: Int = 0, gone: Int = 0) {
        self.kind = kind
        self.count = count
        self.gone = gone
    }

    init?(from query: FormData) {
        guard let raw = query["done"], let kind = Kind(rawValue: raw) else { return nil }
        self.kind = kind
        self.count = query["n"].flatMap { Int($0) }.map { min(max($0, 0), 1_000_000) } ?? 0
        self.gone = query["gone"].flatMap { Int($0) }.map { min(max($0, 0), 1_000_000) } ?? 0
    }

    func append(to query: inout FormData) {
        query.append("done", kind.rawValue)
        if count > 0 { query.append("n", String(count)) }
        if gone > 0 { query.append("gone", String(gone)) }
    }

    var text: String {
        let main: String = switch kind {
        case .added: "Message added."
        case .deleted: "\(Self.messages(count)) deleted."
        case .markedRead: "\(Self.messages(count)) marked as read."
        case .markedUnread: "\(Self.messages(count)) marked as unread."
        case .flagged: "\(Self.messages(count)) flagged."
        case .unflagged: "\(Self.messages(count)) unflagged."
        case .saved: "Changes saved."
        case .nothingSelected: "Select one or more messages first."
        case .gone: "That message was already deleted."
        }
        guard gone > 0, kind != .gone else { return main }
        return main + " \(gone == 1 ? "1 was" : "\(gone) were") already gone."
    }

    private static func messages(_ count: Int) -> String {
        count == 1 ? "1 message" : "\(count) messages"
    }
}
