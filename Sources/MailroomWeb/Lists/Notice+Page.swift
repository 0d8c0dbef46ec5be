import HTTP
import MailroomCore
import MailroomService

extension Notice {
    /// The notice a redirect's URL carries.
    init?(from query: FormData) {
        guard let raw = query["done"], let kind = Kind(rawValue: raw) else { return nil }
        self.init(
            kind, count: Self.number(query["n"]), gone: Self.number(query["gone"]),
            undo: (try? IDList.decode(query.all("undo"), field: "undo")) ?? [],
            undoBatch: query["batch"].flatMap { Int64($0) }, target: query["to"].flatMap { MailboxID(slug: $0) },
            tags: Tag.list(query["tags"] ?? ""),
            recipients: (query["rcpt"] ?? "").split(separator: ",").prefix(RelayPolicy.maximumRecipients).map(String.init))
    }

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
        if !tags.isEmpty { query.append("tags", tags.joined(separator: ",")) }
        if !recipients.isEmpty { query.append("rcpt", recipients.joined(separator: ",")) }
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
        case .tagged: "\(Self.messages(count)) tagged \(Self.names(tags))."
        case .untagged: "\(Self.names(tags)) taken off \(Self.messages(count))."
        case .queued: "\(Self.messages(count)) queued to go out to \(recipients.joined(separator: ", "))."
        case .needsTag: "Write a tag first: letters, digits, spaces, - _ . and @ (commas between several)."
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

    /// Tags in a sentence: “invoices”, “invoices and scans”.
    static func names(_ tags: [String]) -> String {
        let quoted = tags.map { "“\($0)”" }
        guard let last = quoted.last else { return "" }
        return quoted.count == 1 ? last : quoted.dropLast().joined(separator: ", ") + " and " + last
    }

    static func messages(_ count: Int) -> String {
        count == 1 ? "1 message" : "\(count) messages"
    }
}
