import HTTP
import MailroomCore

/// What the page says about the action that led to it, carried in the redirect's URL.
struct Notice: Hashable, Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case added, deleted, markedRead = "marked-read", markedUnread = "marked-unread"
        case flagged, unflagged, saved, nothingSelected = "nothing-selected", gone
        case moved, restored, destroyed, emptied
        case created, renamed, removed, routed
    }

    var kind: Kind
    /// How many messages the action changed.
    var count: Int = 0
    /// How many of the named messages had already been deleted or moved elsewhere.
    var gone: Int = 0
    /// The messages that Undo would put back.
    var undo: [MessageID] = []
    /// Too many to name: the delete whose messages Undo puts back (see `Transaction.lastDeletion`).
    var undoBatch: Int64?
    /// The most ids an Undo names in its URL; a bigger delete is undone by its batch.
    static let maximumUndoIDs = 200
    /// Where messages were moved to.
    var target: MailboxID?

    init(_ kind: Kind, count: Int = 0, gone: Int = 0, undo: [MessageID] = [], undoBatch: Int64? = nil, target: MailboxID? = nil) {
        self.kind = kind
        self.count = count
        self.gone = gone
        self.undo = undo
        self.undoBatch = undoBatch
        self.target = target
    }

    init?(from query: FormData) {
        guard let raw = query["done"], let kind = Kind(rawValue: raw) else { return nil }
        self.kind = kind
        self.count = Self.number(query["n"])
        self.gone = Self.number(query["gone"])
        self.undo = (try? IDList.decode(query.all("undo"), field: "undo")) ?? []
        self.target = query["to"].flatMap { MailboxID(slug: $0) }
        self.undoBatch = query["batch"].flatMap { Int64($0) }
    }

    /// Whether the notice offers Undo.
    var canUndo: Bool { !undo.isEmpty || undoBatch != nil }

    private static func number(_ text: String?) -> Int {
        text.flatMap { Int($0) }.map { min(max($0, 0), 100_000_000) } ?? 0
    }

    func append(to query: inout FormData) {
        query.append("done", kind.rawValue)
        if count > 0 { query.append("n", String(count)) }
        if gone > 0 { query.append("gone", String(gone)) }
        if let target { query.append("to", target.slug) }
        if !undo.isEmpty { query.append("undo", IDList.encode(undo)) }
        if let undoBatch { query.append("batch", String(undoBatch)) }
    }

    /// The sentence shown, with mailbox names looked up in `mailboxes`.
    func text(in mailboxes: [MailboxSummary]) -> String {
        let main: String = switch kind {
        case .added: "Message added."
        case .deleted: "\(Self.messages(count)) moved to Trash."
        case .markedRead: "\(Self.messages(count)) marked as read."
        case .markedUnread: "\(Self.messages(count)) marked as unread."
        case .flagged: "\(Self.messages(count)) flagged."
        case .unflagged: "\(Self.messages(count)) unflagged."
        case .saved: "Changes saved."
        case .nothingSelected: "Select one or more messages first."
        case .gone: "That message was already deleted or moved."
        case .moved: "\(Self.messages(count)) moved to \(target.flatMap { mailboxes[$0]?.name } ?? "another mailbox")."
        case .restored: "\(Self.messages(count)) put back."
        case .destroyed: "\(Self.messages(count)) deleted permanently."
        case .emptied: "Trash emptied: \(Self.messages(count)) deleted permanently."
        case .created: "Mailbox created."
        case .renamed: "Mailbox renamed."
        case .routed: "Addresses saved."
        case .removed: "Mailbox deleted; its \(Self.messages(count)) moved to Trash."
        }
        guard gone > 0, kind != .gone else { return main }
        return main + " \(gone == 1 ? "1 was" : "\(gone) were") already gone."
    }

    static func messages(_ count: Int) -> String {
        count == 1 ? "1 message" : "\(count) messages"
    }
}
