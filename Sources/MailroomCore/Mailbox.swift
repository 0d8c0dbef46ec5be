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
}

/// A named, ordered list of messages, newest on top unless someone moved them.
public struct Mailbox: Hashable, Sendable {
    public let id: MailboxID
    public internal(set) var name: String
    public internal(set) var messages: [Message]
    private var nextID: Int64

    public init(id: MailboxID = .inbox, name: String = "Inbox", messages: [Message] = []) {
        self.id = id
        self.name = name
        self.messages = messages
        self.nextID = (messages.map(\.id.rawValue).max() ?? 0) + 1
    }

    public var isEmpty: Bool { messages.isEmpty }
    public var count: Int { messages.count }
    public var ids: [MessageID] { messages.map(\.id) }
    public var unreadCount: Int { messages.count { $0.isUnread } }

    public func message(_ id: MessageID) -> Message? {
        messages.first { $0.id == id }
    }

    public func offset(of id: MessageID) -> Int? {
        messages.firstIndex { $0.id == id }
    }

    /// Checks `draft` and puts the new, unread message on top.
    ///
    /// Ids come from this mailbox alone; inside a `Library`, add through the library instead.
    @discardableResult
    public mutating func add(_ draft: Draft, at time: Int64) throws(MailboxError) -> Message {
        let message = try Self.newMessage(draft, id: MessageID(nextID), at: time)
        nextID += 1
        messages.insert(message, at: 0)
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
        do { try messages.remove(atOffsets: offsets) } catch { throw .offset(error) }
    }

    /// SwiftUI's `onMove`: `destination` is an offset in the order before the move.
    public mutating func move(fromOffsets source: some Sequence<Int>, toOffset destination: Int) throws(MailboxError) {
        do { try messages.move(fromOffsets: source, toOffset: destination) } catch { throw .offset(error) }
    }

    /// Deletes the named messages that still exist.
    @discardableResult
    public mutating func delete(_ ids: some Sequence<MessageID>) -> BulkOutcome {
        let named = IDSet(ids)
        let outcome = resolve(named)
        if !outcome.applied.isEmpty { messages.removeAll { named.contains($0.id) } }
        return outcome
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
        let named = IDSet(ids)
        let outcome = resolve(named)
        var left = outcome.applied.count
        // Offsets found by `resolve` are not kept: the scan below stops at the last one.
        for offset in messages.indices where left > 0 && named.contains(messages[offset].id) {
            change(&messages[offset])
            left -= 1
        }
        return outcome
    }

    /// The named messages that are here, in mailbox order, and those that are not.
    private func resolve(_ named: IDSet) -> BulkOutcome {
        var applied: [MessageID] = []
        for message in messages where named.contains(message.id) {
            applied.append(message.id)
            if applied.count == named.count { break }
        }
        return BulkOutcome(applied: applied, missing: named.subtracting(applied))
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
