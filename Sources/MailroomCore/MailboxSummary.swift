/// A mailbox as sidebars, headings and menus show it: its name and counts, without its messages.
public struct MailboxSummary: Hashable, Sendable {
    public var id: MailboxID
    public var name: String
    public var count: Int
    public var unreadCount: Int

    public init(id: MailboxID, name: String, count: Int, unreadCount: Int) {
        self.id = id
        self.name = name
        self.count = count
        self.unreadCount = unreadCount
    }

    public var isEmpty: Bool { count == 0 }
}

extension Array where Element == MailboxSummary {
    public subscript(id: MailboxID) -> MailboxSummary? {
        first { $0.id == id }
    }
}

extension Library {
    /// Every mailbox's name and counts, in the library's order.
    public var summaries: [MailboxSummary] {
        mailboxes.map { MailboxSummary(id: $0.id, name: $0.name, count: $0.count, unreadCount: $0.unreadCount) }
    }
}
