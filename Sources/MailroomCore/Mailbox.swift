/// What can go wrong when a command names messages or places.
public enum MailboxError: Error, Hashable, Sendable {
    case unknownMessage(MessageID)
    case offset(OffsetError)
    case draft(DraftError)

    public var message: String {
        switch self {
        case .unknownMessage(let id): "There is no message \(id)."
        case .offset(let error): error.message
        case .draft(let error): error.problems.map(\.message).joined(separator: " ")
        }
    }
}

/// The outcome of a command that names several messages, some of which may already be gone.
public struct BulkOutcome: Hashable, Sendable {
    /// The named messages that existed and were acted on, in mailbox order.
    public var applied: [MessageID]
    /// The named messages that no longer exist.
    public var missing: [MessageID]

    public init(applied: [MessageID], missing: [MessageID]) {
        self.applied = applied
        self.missing = missing
    }
}

/// A named, ordered list of messages, newest on top unless someone moved them.
public struct Mailbox: Hashable, Sendable {
    public let id: MailboxID
    public internal(set) var name: String
    public private(set) var messages: [Message]
    /// Each message's position counted from the bottom, as the store counts them: finding a
    /// message by id is a lookup, not a scan of the mailbox (a post names one message among
    /// thousands), and a message put on top moves no other entry. Ids are unique in a mailbox.
    private var positions: [MessageID: Int] = [:]
    private var nextID: Int64

    public init(id: MailboxID = .inbox, name: String = "Inbox", messages: [Message] = []) {
        self.id = id
        self.name = name
        self.messages = messages
        self.nextID = (messages.map(\.id.rawValue).max() ?? 0) + 1
        positions.reserveCapacity(messages.count)
        reindex(above: messages.count)
    }

    public var isEmpty: Bool { messages.isEmpty }
    public var count: Int { messages.count }
    public var ids: [MessageID] { messages.map(\.id) }
    public var unreadCount: Int { messages.count { $0.isUnread } }

    public func message(_ id: MessageID) -> Message? {
        offset(of: id).map { messages[$0] }
    }

    public func offset(of id: MessageID) -> Int? {
        guard let position = positions[id] else { return nil }
        let offset = messages.count - 1 - position
        // Every change keeps the index in step (the tests check it against a scan); were it ever
        // not, a scan answers rather than a wrong row or a trap.
        guard messages.indices.contains(offset), messages[offset].id == id else {
            assertionFailure("the index of \(self.id) is out of step at message \(id)")
            return messages.firstIndex { $0.id == id }
        }
        return offset
    }

    /// Checks `draft` and puts the new, unread message on top.
    ///
    /// Ids come from this mailbox alone; inside a `Library`, add through the library instead.
    @discardableResult
    public mutating func add(_ draft: Draft, at time: Int64) throws(MailboxError) -> Message {
        let message = try Self.newMessage(draft, id: MessageID(nextID), at: time)
        nextID += 1
        insert([message], at: 0)
        return message
    }

    static func newMessage(_ draft: Draft, id: MessageID, at time: Int64) throws(MailboxError) -> Message {
        let valid: Draft
        do { valid = try draft.validated() } catch { throw .draft(error) }
        return Message(id: id, subject: valid.subject, body: valid.body, author: valid.author, createdAt: time)
    }

    /// Replaces a message's subject and body with a checked draft.
    public mutating func edit(_ id: MessageID, with draft: Draft) throws(MailboxError) {
        let valid: Draft
        do { valid = try draft.validated() } catch { throw .draft(error) }
        guard let offset = offset(of: id) else { throw .unknownMessage(id) }
        messages[offset].subject = valid.subject
        messages[offset].body = valid.body
    }

    /// SwiftUI's `onDelete`: offsets refer to the current order.
    public mutating func remove(atOffsets offsets: some Sequence<Int>) throws(MailboxError) {
        let offsets = Array(offsets)
        let removed = offsets.filter(messages.indices.contains).map { messages[$0].id }
        do { try messages.remove(atOffsets: offsets) } catch { throw .offset(error) }
        reindex(above: (offsets.max() ?? -1) + 1, removing: removed)
    }

    /// SwiftUI's `onMove`: `destination` is an offset in the order before the move.
    public mutating func move(fromOffsets source: some Sequence<Int>, toOffset destination: Int) throws(MailboxError) {
        let source = Array(source)
        do { try messages.move(fromOffsets: source, toOffset: destination) } catch { throw .offset(error) }
        reindex(above: max((source.max() ?? -1) + 1, destination))
    }

    /// Deletes the named messages that still exist.
    @discardableResult
    public mutating func delete(_ ids: some Sequence<MessageID>) -> BulkOutcome {
        let found = locate(ids)
        removeMessages(at: found.offsets)
        return found.outcome
    }

    /// Moves one message up (towards the top) or down by one place.
    public mutating func move(_ id: MessageID, by step: MoveStep) throws(MailboxError) {
        guard let offset = offset(of: id) else { throw .unknownMessage(id) }
        switch step {
        case .up where offset > 0:
            try move(fromOffsets: [offset], toOffset: offset - 1)
        case .down where offset < messages.count - 1:
            try move(fromOffsets: [offset], toOffset: offset + 2)
        case .up, .down:
            break // Already at the edge: like a disabled button, nothing to do.
        }
    }

    /// Moves the named messages, found by id in the current order, to `destination`.
    public mutating func move(_ ids: some Sequence<MessageID>, toOffset destination: Int) throws(MailboxError) {
        var offsets: [Int] = []
        for id in ids {
            guard let offset = offset(of: id) else { throw .unknownMessage(id) }
            offsets.append(offset)
        }
        try move(fromOffsets: offsets, toOffset: destination)
    }

    @discardableResult
    public mutating func setUnread(_ isUnread: Bool, for ids: some Sequence<MessageID>) -> BulkOutcome {
        update(ids) { $0.isUnread = isUnread }
    }

    @discardableResult
    public mutating func setFlagged(_ isFlagged: Bool, for ids: some Sequence<MessageID>) -> BulkOutcome {
        update(ids) { $0.isFlagged = isFlagged }
    }

    private mutating func update(_ ids: some Sequence<MessageID>, _ change: (inout Message) -> Void) -> BulkOutcome {
        let found = locate(ids)
        for offset in found.offsets { change(&messages[offset]) }
        return found.outcome
    }

    // MARK: Shared with the library

    /// Where the named messages are, top first, and which of them are here (in mailbox order)
    /// and which are not (ascending).
    func locate(_ ids: some Sequence<MessageID>) -> (offsets: [Int], outcome: BulkOutcome) {
        var offsets: [Int] = []
        var missing: [MessageID] = []
        for id in ids {
            if let offset = offset(of: id) { offsets.append(offset) } else { missing.append(id) }
        }
        offsets = offsets.sortedWithoutDuplicates()
        let outcome = BulkOutcome(applied: offsets.map { messages[$0].id }, missing: missing.sortedWithoutDuplicates())
        return (offsets, outcome)
    }

    /// Puts `new` in order at `offset`, pushing the messages from there on down.
    mutating func insert(_ new: [Message], at offset: Int) {
        messages.insert(contentsOf: new, at: offset)
        reindex(above: offset + new.count)
    }

    /// Takes out the messages at `offsets`, which are ascending and valid, keeping the rest in order.
    mutating func removeMessages(at offsets: [Int]) {
        guard let first = offsets.first, let last = offsets.last else { return }
        let removed = offsets.map { messages[$0].id }
        // In place, sliding the rest up: rebuilding the array would retain every message kept.
        var skipped = 0
        for offset in first..<messages.count {
            if skipped < offsets.count && offsets[skipped] == offset {
                skipped += 1
            } else {
                messages.swapAt(offset - skipped, offset)
            }
        }
        messages.removeLast(offsets.count)
        reindex(above: last + 1 - offsets.count, removing: removed)
    }

    /// Takes out every message.
    mutating func removeAll() {
        messages = []
        positions = [:]
    }

    /// Forgets `removed`, then records again the positions of the messages above offset `end`,
    /// after a change that left every message from there down where it was (counted from the
    /// bottom), so a change costs what it moved rather than the whole mailbox.
    private mutating func reindex(above end: Int, removing removed: [MessageID] = []) {
        for id in removed { positions[id] = nil }
        // From the bottom up, so that should an id appear twice, the upper one is found, as a scan would.
        for offset in (0..<max(0, min(end, messages.count))).reversed() {
            positions[messages[offset].id] = messages.count - 1 - offset
        }
    }
}

extension Array where Element: Comparable {
    /// Ascending, each element once.
    fileprivate func sortedWithoutDuplicates() -> [Element] {
        guard count > 1 else { return self }
        var result: [Element] = []
        for element in sorted() where result.last != element { result.append(element) }
        return result
    }
}

extension Mailbox {
    // Two mailboxes are equal when they show the same thing; the private id counter used by
    // stand-alone `add` is bookkeeping, not content.
    public static func == (lhs: Mailbox, rhs: Mailbox) -> Bool {
        lhs.id == rhs.id && lhs.name == rhs.name && lhs.messages == rhs.messages
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(name)
        hasher.combine(messages)
    }
}

/// One step of a row's Move up / Move down buttons.
public enum MoveStep: String, Hashable, Sendable {
    case up, down
}
