import MailroomCore
import MailroomStore

/// What people do to one message or one mailbox by name, as the service's calls: each runs in
/// the group commit and answers only once durable, its refusals said as `ServiceError`.
extension Mailroom {
    /// Adds a message typed into a list's form at the top of `box`.
    @discardableResult
    public func add(_ draft: Draft, to box: MailboxID) throws(ServiceError) -> MessageID {
        let time = now()
        return try performing(touching: [box]) { transaction throws(ServiceError) in
            try storing { () throws(StoreError) in try transaction.add(draft, to: box, at: time).id }
        }
    }

    /// Replaces a message's subject and body.
    public func edit(_ id: MessageID, with draft: Draft) throws(ServiceError) {
        try performing { transaction throws(ServiceError) in
            try naming { () throws(StoreError) in try transaction.edit(id, with: draft) }
        }
    }

    /// A new mailbox of people's own; a name in use or not allowed is refused.
    public func createMailbox(named name: String) throws(ServiceError) -> MailboxID {
        try performing { transaction throws(ServiceError) in
            try storing { () throws(StoreError) in try transaction.createMailbox(named: name) }
        }
    }

    public func renameMailbox(_ id: MailboxID, to name: String) throws(ServiceError) {
        try performing { transaction throws(ServiceError) in
            try naming { () throws(StoreError) in try transaction.renameMailbox(id, to: name) }
        }
    }

    /// The addresses whose mail is routed to `id`.
    public func setAddresses(_ patterns: [String], for id: MailboxID) throws(ServiceError) {
        try performing { transaction throws(ServiceError) in
            try naming { () throws(StoreError) in try transaction.setAddresses(patterns, for: id) }
        }
    }

    /// Deletes everything in Trash for good; how many messages that was.
    public func emptyTrash() throws(ServiceError) -> Int {
        try performing(touching: [.trash]) { transaction throws(ServiceError) in
            try storing { () throws(StoreError) in try transaction.emptyTrash() }
        }
    }

    /// Removes a mailbox of people's own, its messages to Trash; how many went there.
    public func deleteMailbox(_ id: MailboxID) throws(ServiceError) -> Int {
        try performing { transaction throws(ServiceError) in
            try naming { () throws(StoreError) in try transaction.deleteMailbox(id) }
        }
    }

    /// Marks a message read because a person opened it, wherever it is now.
    public func markOpened(_ id: MessageID) throws(ServiceError) {
        try performing { transaction throws(ServiceError) in
            try storing { () throws(StoreError) in
                if let box = try transaction.mailbox(of: id) { try transaction.setUnread(false, for: [id], in: box) }
            }
        }
    }

    /// Deletes, restores or moves one message from `box`, as its page's buttons do.
    public func remove(_ id: MessageID, _ removal: Removal, from box: MailboxID) throws(ServiceError) -> Notice {
        try performing(touching: ListCommand.removeSelected(removal).touches(in: box)) { transaction throws(ServiceError) in
            try removal.apply(to: [id], from: box, in: transaction)
        }
    }

    /// What a message's own page can set on it.
    public enum Mark: Sendable {
        case read, unread, flag, unflag
    }

    /// How marking went.
    public enum Marked: Sendable, Equatable {
        /// The message is no longer anywhere.
        case gone
        /// It has moved out of the mailbox the page showed it in, so nothing was changed.
        case elsewhere
        case done(isUnread: Bool)
    }

    /// Marks `id` (finding it, checking it is still where the page showed it, and the change,
    /// all in one transaction): the commonest change made from a message's page.
    public func mark(_ id: MessageID, _ mark: Mark, shownIn shown: MailboxID?) throws(ServiceError) -> Marked {
        try performing { transaction throws(ServiceError) -> Marked in
            try naming { () throws(StoreError) -> Marked in
                guard let place = try transaction.place(of: id) else { return .gone }
                if let shown, shown != place.mailbox { return .elsewhere }
                switch mark {
                case .read: try transaction.setUnread(false, for: [id], in: place.mailbox)
                case .unread: try transaction.setUnread(true, for: [id], in: place.mailbox)
                case .flag: try transaction.setFlagged(true, for: [id], in: place.mailbox)
                case .unflag: try transaction.setFlagged(false, for: [id], in: place.mailbox)
                }
                return .done(isUnread: try transaction.place(of: id)?.isUnread ?? false)
            }
        }
    }
}
