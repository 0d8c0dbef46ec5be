/// A mailbox's identity. Inbox, Archive and Trash have fixed ids; people's own start at 100.
public struct MailboxID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    public static let inbox = MailboxID(rawValue: 1)
    public static let archive = MailboxID(rawValue: 2)
    public static let trash = MailboxID(rawValue: 3)
    public static let system: [MailboxID] = [.inbox, .archive, .trash]
    public static let firstCustom: Int64 = 100

    public var isSystem: Bool { Self.system.contains(self) }

    /// The path segment: a name for the three built-in mailboxes, the number for the rest.
    public var slug: String {
        switch self {
        case .inbox: "inbox"
        case .archive: "archive"
        case .trash: "trash"
        default: String(rawValue)
        }
    }

    public init?(slug: some StringProtocol) {
        switch slug {
        case "inbox": self = .inbox
        case "archive": self = .archive
        case "trash": self = .trash
        default:
            guard let first = slug.utf8.first, first != UInt8(ascii: "0"),
                  slug.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let value = Int64(slug), value >= Self.firstCustom
            else { return nil }
            self.rawValue = value
        }
    }

    public var description: String { slug }

    public static func < (lhs: MailboxID, rhs: MailboxID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where a trashed message came from, so Undo and Restore can put it back exactly.
public struct Origin: Hashable, Sendable {
    public var mailbox: MailboxID
    /// Its offset in that mailbox when it was trashed, used when `anchor` cannot be found.
    public var offset: Int
    /// The message just below it then (nil at the bottom): it goes back right above that one.
    public var anchor: MessageID?

    public init(mailbox: MailboxID, offset: Int, anchor: MessageID? = nil) {
        self.mailbox = mailbox
        self.offset = offset
        self.anchor = anchor
    }
}
