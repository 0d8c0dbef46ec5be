import MailroomCore

/// What a command did, as the page after it says it (carried in the redirect's URL there).
public struct Notice: Hashable, Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        case added, deleted, markedRead = "marked-read", markedUnread = "marked-unread"
        case flagged, unflagged, tagged, untagged, needsTag = "needs-tag", queued, saved, nothingSelected = "nothing-selected", gone
        case moved, restored, destroyed, emptied
        case created, renamed, removed, routed
    }

    public var kind: Kind
    /// How many messages the action changed.
    public var count: Int = 0
    /// How many of the named messages had already been deleted or moved elsewhere.
    public var gone: Int = 0
    /// The messages that Undo would put back.
    public var undo: [MessageID] = []
    /// Too many to name: the delete whose messages Undo puts back (see `Transaction.lastDeletion`).
    public var undoBatch: Int64?
    /// The most ids an Undo names in its URL; a bigger delete is undone by its batch.
    public static let maximumUndoIDs = 200
    /// Where messages were moved to.
    public var target: MailboxID?
    /// The tags given or taken away.
    public var tags: [String]
    /// Where mail was queued to go.
    public var recipients: [String]

    public init(
        _ kind: Kind, count: Int = 0, gone: Int = 0, undo: [MessageID] = [], undoBatch: Int64? = nil, target: MailboxID? = nil,
        tags: [String] = [], recipients: [String] = []
    ) {
        self.kind = kind
        self.count = count
        self.gone = gone
        self.undo = undo
        self.undoBatch = undoBatch
        self.target = target
        self.tags = tags
        self.recipients = recipients
    }

    /// Whether the notice offers Undo.
    public var canUndo: Bool { !undo.isEmpty || undoBatch != nil }
}
