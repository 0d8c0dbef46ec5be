/// One message as it is stored: its fields, its mailbox and its place there.
public struct StoredMessage: Hashable, Sendable {
    public var message: Message
    public var mailbox: MailboxID
    /// Counted from the bottom of the mailbox, so a new message on top moves no other row.
    public var position: Int

    public init(message: Message, mailbox: MailboxID, position: Int) {
        self.message = message
        self.mailbox = mailbox
        self.position = position
    }
}

/// The rows that differ between two libraries: what a store must write to turn one into the other.
public struct Changes: Hashable, Sendable {
    public var savedMailboxes: [Mailbox.Header] = []
    public var deletedMailboxes: [MailboxID] = []
    public var savedMessages: [StoredMessage] = []
    public var deletedMessages: [MessageID] = []
    public var nextMessageID: Int64
    public var nextMailboxID: Int64

    public var isEmpty: Bool {
        savedMailboxes.isEmpty && deletedMailboxes.isEmpty && savedMessages.isEmpty && deletedMessages.isEmpty
    }
}

extension Mailbox {
    /// A mailbox without its messages, as its own row.
    public struct Header: Hashable, Sendable {
        public var id: MailboxID
        public var name: String
    }

    public var header: Header { Header(id: id, name: name) }
}

extension Library {
    /// The rows that changed since `old`. Mailboxes whose messages are untouched share their
    /// storage with `old` and compare in constant time; in a changed mailbox, rows are compared
    /// position by position from the bottom (where positions are counted), so a new message on
    /// top costs one row, and only rows that differ are hashed.
    public func changes(since old: Library) -> Changes {
        var changes = Changes(nextMessageID: nextMessageID, nextMailboxID: nextMailboxID)
        let oldByID = Dictionary(old.mailboxes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newIDs = Set(mailboxes.map(\.id))

        var left: [MessageID] = []          // ids whose old row differs from the new row at its place
        var saved: [MessageID: StoredMessage] = [:]
        for mailbox in mailboxes {
            let previous = oldByID[mailbox.id]
            if previous?.header != mailbox.header { changes.savedMailboxes.append(mailbox.header) }
            let before = previous?.messages ?? []
            let after = mailbox.messages
            // Not `before != after`: that would walk a changed mailbox once more before the rows do.
            guard !before.sharesStorage(with: after) else { continue }
            // Position p (from the bottom) is index count-1-p in each array. Rows are compared
            // where they lie, field by field, without copying them.
            for position in 0..<max(before.count, after.count) {
                let oldIndex = before.count - 1 - position
                let newIndex = after.count - 1 - position
                if oldIndex >= 0 && newIndex >= 0 && Message.sameRow(before, oldIndex, after, newIndex) { continue }
                if oldIndex >= 0 { left.append(before[oldIndex].id) }
                if newIndex >= 0 {
                    saved[after[newIndex].id] = StoredMessage(message: after[newIndex], mailbox: mailbox.id, position: position)
                }
            }
        }
        for mailbox in old.mailboxes where !newIDs.contains(mailbox.id) {
            changes.deletedMailboxes.append(mailbox.id)
            left.append(contentsOf: mailbox.ids)
        }
        changes.savedMessages = saved.values.sorted { $0.message.id < $1.message.id }
        // A row that left its place and is not saved anywhere else is gone.
        changes.deletedMessages = Set(left).filter { saved[$0] == nil }.sorted()
        return changes
    }
}

extension Message {
    /// Whether two stored rows are equal, read in place (no copy, no reference counting).
    @inline(__always)
    static func sameRow(_ lhs: [Message], _ i: Int, _ rhs: [Message], _ j: Int) -> Bool {
        lhs[i].id == rhs[j].id && lhs[i].isUnread == rhs[j].isUnread && lhs[i].isFlagged == rhs[j].isFlagged
            && lhs[i].createdAt == rhs[j].createdAt && lhs[i].origin == rhs[j].origin && lhs[i].hasSameText(as: rhs[j])
    }
}

extension Array {
    /// Whether both are the same stored array, as an untouched copy is: then they are equal
    /// without a look at any element.
    fileprivate func sharesStorage(with other: [Element]) -> Bool {
        count == other.count
            && withUnsafeBufferPointer { mine in other.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress } }
    }
}
