/// One message in a mailbox.
public struct Message: Identifiable, Hashable, Sendable {
    public let id: MessageID
    public var subject: String
    public var body: String
    public var author: String
    /// Seconds since the Unix epoch.
    public var createdAt: Int64
    public var isUnread: Bool
    public var isFlagged: Bool
    /// Set while the message is in Trash: where Undo and Restore put it back.
    public var origin: Origin?

    public init(
        id: MessageID,
        subject: String,
        body: String = "",
        author: String = "",
        createdAt: Int64,
        isUnread: Bool = true,
        isFlagged: Bool = false,
        origin: Origin? = nil
    ) {
        self.id = id
        self.subject = subject
        self.body = body
        self.author = author
        self.createdAt = createdAt
        self.isUnread = isUnread
        self.isFlagged = isFlagged
        self.origin = origin
    }
}
