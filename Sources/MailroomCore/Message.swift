/// One message in a mailbox.
public struct Message: Identifiable, Hashable, Sendable {
    public let id: MessageID
    /// Seconds since the Unix epoch.
    public var createdAt: Int64
    public var isUnread: Bool
    public var isFlagged: Bool
    /// Set while the message is in Trash: where Undo and Restore put it back.
    public var origin: Origin?
    /// Its tags, sorted as lists show them (`Tag.sorted`).
    public var tags: [String]
    // The words share one box: saving a change copies the whole mailbox it touched, and each
    // copied message then costs one reference count (and one release later) instead of three.
    // Seen by other modules' inlined code only (see `==`).
    @usableFromInline private(set) var text: Text

    public var subject: String {
        get { text.subject }
        set { text = Text(subject: newValue, body: text.body, author: text.author) }
    }

    public var body: String {
        get { text.body }
        set { text = Text(subject: text.subject, body: newValue, author: text.author) }
    }

    public var author: String {
        get { text.author }
        set { text = Text(subject: text.subject, body: text.body, author: newValue) }
    }

    public init(
        id: MessageID,
        subject: String,
        body: String = "",
        author: String = "",
        createdAt: Int64,
        isUnread: Bool = true,
        isFlagged: Bool = false,
        origin: Origin? = nil,
        tags: [String] = []
    ) {
        self.id = id
        self.text = Text(subject: subject, body: body, author: author)
        self.createdAt = createdAt
        self.isUnread = isUnread
        self.isFlagged = isFlagged
        self.origin = origin
        self.tags = tags
    }

    /// Whether the words are the same; a copied message shares them, which is checked first.
    @inlinable func hasSameText(as other: Message) -> Bool {
        text === other.text
            || (text.subject == other.text.subject && text.body == other.text.body && text.author == other.text.author)
    }

    /// Inlined where it is used: a page compares each of its rows with the row cache's copy, and
    /// inlined, the comparison reads both messages where they are kept instead of copies of them.
    @inlinable public static func == (lhs: Message, rhs: Message) -> Bool {
        lhs.id == rhs.id && lhs.createdAt == rhs.createdAt && lhs.isUnread == rhs.isUnread
            && lhs.isFlagged == rhs.isFlagged && lhs.origin == rhs.origin && lhs.tags == rhs.tags && lhs.hasSameText(as: rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(subject)
        hasher.combine(body)
        hasher.combine(author)
        hasher.combine(createdAt)
        hasher.combine(isUnread)
        hasher.combine(isFlagged)
        hasher.combine(origin)
        hasher.combine(tags)
    }
}

/// A message's words, never changed once made: changing one makes a new box.
@usableFromInline final class Text: Sendable {
    @usableFromInline let subject: String
    @usableFromInline let body: String
    @usableFromInline let author: String

    init(subject: String, body: String, author: String) {
        self.subject = subject
        self.body = body
        self.author = author
    }
}
