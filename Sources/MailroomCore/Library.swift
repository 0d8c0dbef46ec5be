/// What can go wrong with a command on the whole library.
public enum LibraryError: Error, Hashable, Sendable {
    case unknownMailbox(MailboxID)
    case systemMailbox(MailboxID)
    case invalidName(String)
    case mailbox(MailboxError)

    public var message: String {
        switch self {
        case .unknownMailbox(let id): "There is no mailbox \(id)."
        case .systemMailbox: "Inbox, Archive and Trash cannot be renamed or deleted."
        case .invalidName(let reason): reason
        case .mailbox(let error): error.message
        }
    }
}

/// Every mailbox and message: the whole state that Mailroom stores.
///
/// A value: a command runs on a copy, and the copy replaces the original only once it is stored.
public struct Library: Hashable, Sendable {
    /// Inbox, Archive and Trash first, then people's own mailboxes in the order they were made.
    public private(set) var mailboxes: [Mailbox]
    /// The next message id; ids are never reused, even after a permanent delete.
    public private(set) var nextMessageID: Int64
    public private(set) var nextMailboxID: Int64

    public static let maximumNameLength = 40

    public init(mailboxes: [Mailbox] = [], nextMessageID: Int64 = 1, nextMailboxID: Int64 = MailboxID.firstCustom) {
        var all: [Mailbox] = []
        let names: [MailboxID: String] = [.inbox: "Inbox", .archive: "Archive", .trash: "Trash"]
        for id in MailboxID.system {
            all.append(mailboxes.first { $0.id == id } ?? Mailbox(id: id, name: names[id] ?? "", messages: []))
        }
        all += mailboxes.filter { !$0.id.isSystem }.sorted { $0.id < $1.id }
        self.mailboxes = all
        let highestMessage = all.flatMap(\.messages).map(\.id.rawValue).max() ?? 0
        self.nextMessageID = max(nextMessageID, highestMessage + 1)
        let highestMailbox = all.map(\.id.rawValue).max() ?? 0
        self.nextMailboxID = max(nextMailboxID, highestMailbox + 1, MailboxID.firstCustom)
    }

    /// A library whose Inbox holds `inbox`'s messages.
    public init(inbox: Mailbox) {
        self.init(mailboxes: [Mailbox(id: .inbox, name: "Inbox", messages: inbox.messages)])
    }

    public subscript(id: MailboxID) -> Mailbox? {
        mailboxes.first { $0.id == id }
    }

    /// The mailbox that holds message `id`, if any does.
    public func mailbox(of id: MessageID) -> MailboxID? {
        mailboxes.first { $0.offset(of: id) != nil }?.id
    }

    /// Messages in every mailbox, Trash included.
    public var messageCount: Int { mailboxes.reduce(0) { $0 + $1.count } }

    public func message(_ id: MessageID) -> Message? {
        for mailbox in mailboxes {
            if let message = mailbox.message(id) { return message }
        }
        return nil
    }

    // MARK: Messages

    /// Checks `draft` and puts the new, unread message on top of `mailbox`.
    @discardableResult
    public mutating func add(_ draft: Draft, to mailbox: MailboxID, at time: Int64) throws(LibraryError) -> Message {
        let index = try index(of: mailbox)
        let message: Message
        do {
            message = try Mailbox.newMessage(draft, id: MessageID(nextMessageID), at: time)
        } catch {
            throw .mailbox(error)
        }
        nextMessageID += 1
        mailboxes[index].insert([message], at: 0)
        return message
    }

    /// Runs a command that stays inside one mailbox: edit, mark, flag, reorder.
    public mutating func update<Result>(
        _ mailbox: MailboxID, _ change: (inout Mailbox) throws(MailboxError) -> Result
    ) throws(LibraryError) -> Result {
        let index = try index(of: mailbox)
        do {
            return try change(&mailboxes[index])
        } catch {
            throw .mailbox(error)
        }
    }

    /// Moves the named messages of `source` to the top of `destination`, keeping their order.
    /// Moving into Trash remembers where each came from; moving out of it forgets.
    @discardableResult
    public mutating func move(
        _ ids: some Sequence<MessageID>, from source: MailboxID, to destination: MailboxID
    ) throws(LibraryError) -> BulkOutcome {
        let from = try index(of: source)
        let to = try index(of: destination)
        let (offsets, outcome) = mailboxes[from].locate(ids)
        guard from != to else { return outcome }
        let moving = offsets.map { offset in
            var moved = mailboxes[from].messages[offset]
            let anchor = mailboxes[from].messages.dropFirst(offset + 1).first?.id
            moved.origin = destination == .trash
                ? (moved.origin ?? Origin(mailbox: source, offset: offset, anchor: anchor)) : nil
            return moved
        }
        mailboxes[from].removeMessages(at: offsets)
        mailboxes[to].insert(moving, at: 0)
        return outcome
    }

    /// Puts trashed messages back where they were: each right above the message that was below
    /// it, so a delete followed by Undo leaves every mailbox exactly as it was, and restoring only
    /// some of the messages deleted together still puts each between its old neighbours.
    @discardableResult
    public mutating func restore(_ ids: some Sequence<MessageID>) -> BulkOutcome {
        let trash = trashIndex
        let (offsets, outcome) = mailboxes[trash].locate(ids)
        let returning = offsets.map { mailboxes[trash].messages[$0] }
        let trashed = Dictionary(
            mailboxes[trash].messages.compactMap { message in message.origin.map { (message.id, $0) } },
            uniquingKeysWith: { first, _ in first })
        mailboxes[trash].removeMessages(at: offsets)
        // Trash holds the latest delete on top, each delete in its old order, so walking it from
        // the top undoes the deletes from the latest back.
        for var message in returning {
            let origin = message.origin ?? Origin(mailbox: .inbox, offset: 0)
            message.origin = nil
            let target = mailboxes.firstIndex { $0.id == origin.mailbox && $0.id != .trash } ?? inboxIndex
            let offset = placeForRestoring(origin, in: mailboxes[target], trashed: trashed)
            mailboxes[target].insert([message], at: offset)
        }
        return outcome
    }

    /// Right above the anchor, or above that one's anchor while anchors are themselves in Trash;
    /// at the old offset when no anchor is found (or the old mailbox is gone).
    private func placeForRestoring(_ origin: Origin, in mailbox: Mailbox, trashed: [MessageID: Origin]) -> Int {
        let fallback = min(max(origin.offset, 0), mailbox.count)
        guard mailbox.id == origin.mailbox else { return fallback }
        var anchor = origin.anchor
        var visited: Set<MessageID> = []
        while let current = anchor, visited.insert(current).inserted {
            if let offset = mailbox.offset(of: current) { return offset }
            guard let next = trashed[current], next.mailbox == origin.mailbox else { break }
            anchor = next.anchor
        }
        return fallback
    }

    /// Destroys the named messages, but only those already in Trash.
    @discardableResult
    public mutating func deletePermanently(_ ids: some Sequence<MessageID>) -> BulkOutcome {
        let trash = trashIndex
        return mailboxes[trash].delete(ids)
    }

    /// Destroys everything in Trash and says how many messages that was.
    @discardableResult
    public mutating func emptyTrash() -> Int {
        let trash = trashIndex
        let count = mailboxes[trash].count
        mailboxes[trash].removeAll()
        return count
    }

    // MARK: Mailboxes

    /// Makes a new mailbox of one's own, at the end of the list.
    @discardableResult
    public mutating func createMailbox(named name: String) throws(LibraryError) -> MailboxID {
        let name = try checkedName(name, renaming: nil)
        let id = MailboxID(rawValue: nextMailboxID)
        nextMailboxID += 1
        mailboxes.append(Mailbox(id: id, name: name, messages: []))
        return id
    }

    public mutating func renameMailbox(_ id: MailboxID, to name: String) throws(LibraryError) {
        guard !id.isSystem else { throw .systemMailbox(id) }
        let index = try index(of: id)
        mailboxes[index].name = try checkedName(name, renaming: id)
    }

    /// Removes one of people's own mailboxes; its messages go to Trash, from where Restore
    /// brings them to the Inbox.
    @discardableResult
    public mutating func deleteMailbox(_ id: MailboxID) throws(LibraryError) -> Int {
        guard !id.isSystem else { throw .systemMailbox(id) }
        let index = try index(of: id)
        let count = mailboxes[index].count
        try move(mailboxes[index].ids, from: id, to: .trash)
        mailboxes.remove(at: index)
        return count
    }

    // The initializer guarantees the built-in mailboxes, and nothing removes them.
    private var trashIndex: Int {
        guard let index = mailboxes.firstIndex(where: { $0.id == .trash }) else { preconditionFailure("no Trash") }
        return index
    }

    private var inboxIndex: Int {
        guard let index = mailboxes.firstIndex(where: { $0.id == .inbox }) else { preconditionFailure("no Inbox") }
        return index
    }

    private func index(of id: MailboxID) throws(LibraryError) -> Int {
        guard let index = mailboxes.firstIndex(where: { $0.id == id }) else { throw .unknownMailbox(id) }
        return index
    }

    private func checkedName(_ name: String, renaming id: MailboxID?) throws(LibraryError) -> String {
        try Self.checkedName(name, renaming: id, among: mailboxes.map { ($0.id, $0.name) })
    }

    /// `name` trimmed, when it may name a mailbox beside `existing` (`renaming` is the mailbox
    /// being renamed, whose own name does not count as taken).
    public static func checkedName(
        _ name: String, renaming id: MailboxID?, among existing: [(id: MailboxID, name: String)]
    ) throws(LibraryError) -> String {
        let trimmed = name.trimmed
        guard !trimmed.isEmpty else { throw .invalidName("A mailbox needs a name.") }
        guard trimmed.count <= Self.maximumNameLength else {
            throw .invalidName("Mailbox names are at most \(Self.maximumNameLength) characters.")
        }
        let taken = existing.contains { $0.id != id && $0.name.lowercased() == trimmed.lowercased() }
        guard !taken else { throw .invalidName("There is already a mailbox called “\(trimmed)”.") }
        return trimmed
    }
}
