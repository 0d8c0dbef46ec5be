import MailroomCore
import MailroomStore

/// One press of a button on a list page (or the same fields posted by a script).
public enum ListCommand: Sendable {
    /// The edit form's default button: keeps the ticks as posted and changes nothing else.
    case update
    case edit, done, cancel
    case confirmDelete(MessageID)
    case selectAll, deselectAll
    case markRead, markUnread, flag, unflag
    /// Gives the selection these tags (valid names, at least one), or takes them away.
    case tag([String]), untag([String])
    /// Delete (N), Archive, Move to… and Restore: the selection leaves this mailbox.
    case removeSelected(Removal)
    case delete(MessageID)
    case restore(MessageID)
    case undo([MessageID])
    /// Undo of a delete too big to name its ids in a URL: everything that delete put in Trash.
    case undoBatch(Int64)
    case moveStep(MessageID, MoveStep)
    /// SwiftUI's onMove for scripts: ids in their current places, moved to an offset.
    case move([MessageID], toOffset: Int)

    /// Whether the command changes only what the page shows (its mode and ticks), never a
    /// message: such a post is answered from a read snapshot, without queueing for the writer.
    public var changesNothing: Bool {
        switch self {
        case .update, .edit, .done, .cancel, .confirmDelete, .selectAll, .deselectAll: true
        default: false
        }
    }

    /// The mailboxes the command may change when run in `box`, so that the others' cached
    /// pages stay; nil when it cannot say (a restore sends each message back where it was).
    public func touches(in box: MailboxID) -> Set<MailboxID>? {
        switch self {
        case .update, .edit, .done, .cancel, .confirmDelete, .selectAll, .deselectAll: [box]
        case .markRead, .markUnread, .flag, .unflag, .moveStep, .move, .tag, .untag: [box]
        case .delete, .removeSelected(.delete): [box, .trash]
        case .removeSelected(.move(let target)): [box, target]
        case .removeSelected(.restore), .restore, .undo, .undoBatch: nil
        }
    }

    /// The state a command that changes nothing leads to, read from `reader`; nil for the others.
    public func view(on reader: Reader, in box: MailboxID, state posted: ListState, pageSize: Int) throws(ServiceError) -> (ListState, Notice?)? {
        let state = try Self.reconciled(posted, in: box, reader)
        // "All N" with a search that cannot run is refused here as it is for the changes.
        _ = try Self.everything(of: posted, in: box)
        switch self {
        case .update:
            return (state, nil)
        case .edit:
            let count = try Self.reading { () throws(StoreError) in try Self.count(of: box, reader) }
            return (state.editing(isEmpty: count == 0), nil)
        case .done, .cancel:
            return (state.done, nil)
        case .confirmDelete(let id):
            guard try Self.reading({ () throws(StoreError) in try reader.mailbox(of: id) }) == box else {
                return (state, Notice(.gone))
            }
            return (state.confirmingDelete(of: id), nil)
        case .selectAll:
            let query = Self.search(of: state).0
            let page = try Self.reading { () throws(StoreError) in
                if let query { return try reader.search(query, in: box, from: state.place, limit: pageSize) }
                return try reader.page(of: box, from: state.place, limit: pageSize)
            }
            return (state.selecting(page.rows.map(\.id)), nil)
        case .deselectAll:
            return (state.deselectingAll, nil)
        default:
            return nil
        }
    }

    /// Applies the command to mailbox `box` and returns the state its page should show next.
    /// `pageSize` says which rows the posted page showed, for Select All.
    /// `counted` is how many "all N" said, when the page posted it.
    public func apply(
        to transaction: Transaction, in box: MailboxID, state posted: ListState, pageSize: Int, counted: Int? = nil
    ) throws(ServiceError) -> (ListState, Notice?) {
        if let viewed = try view(on: transaction, in: box, state: posted, pageSize: pageSize) { return viewed }
        let state = try Self.reconciled(posted, in: box, transaction)
        switch self {
        case .tag(let names) where names.isEmpty: return (state, Notice(.needsTag))
        case .untag(let names) where names.isEmpty: return (state, Notice(.needsTag))
        default: break
        }
        if let everything = try Self.everything(of: posted, in: box) {
            if let done = try applyToEverything(everything, transaction, counted: counted) {
                return (try Self.reconciled(state.selecting([]), in: box, transaction), done)
            }
        }
        // Bulk actions name exactly the ticks the person saw (or all that the page counted),
        // so the ones gone meanwhile are counted.
        let ticked = try Self.targets(of: posted, in: box, transaction)
        switch self {
        case .update, .edit, .done, .cancel, .confirmDelete, .selectAll, .deselectAll:
            return (state, nil)  // answered by `view` above
        case .removeSelected(let removal):
            guard !ticked.isEmpty else { return (state, Notice(.nothingSelected)) }
            let notice = try removal.apply(to: ticked, from: box, in: transaction)
            return (try Self.reconciled(state.selecting([]), in: box, transaction), notice)
        case .markRead, .markUnread, .flag, .unflag:
            guard !ticked.isEmpty else { return (state, Notice(.nothingSelected)) }
            let (outcome, kind) = try Self.reading { () throws(StoreError) -> (BulkOutcome, Notice.Kind) in
                switch self {
                case .markRead: (try transaction.setUnread(false, for: ticked, in: box), .markedRead)
                case .markUnread: (try transaction.setUnread(true, for: ticked, in: box), .markedUnread)
                case .flag: (try transaction.setFlagged(true, for: ticked, in: box), .flagged)
                default: (try transaction.setFlagged(false, for: ticked, in: box), .unflagged)
                }
            }
            return (state, Notice(kind, count: outcome.applied.count, gone: outcome.missing.count))
        case .tag(let names), .untag(let names):
            guard !ticked.isEmpty else { return (state, Notice(.nothingSelected)) }
            let adding = if case .tag = self { true } else { false }
            let outcome = try Self.reading { () throws(StoreError) in
                adding ? try transaction.addTags(names, to: ticked, in: box) : try transaction.removeTags(names, from: ticked, in: box)
            }
            return (state, Notice(adding ? .tagged : .untagged, count: outcome.applied.count, gone: outcome.missing.count,
                                  tags: names))
        case .delete(let id):
            let notice = try Removal.delete.apply(to: [id], from: box, in: transaction)
            guard notice.count > 0 else { return (try Self.reconciled(state, in: box, transaction), Notice(.gone)) }
            // A confirmed swipe closes; edit mode stays on with the rest of the ticks.
            let next = state.mode == .active ? state : state.done
            return (try Self.reconciled(next, in: box, transaction), notice)
        case .restore(let id):
            let outcome = try Self.reading { () throws(StoreError) in try transaction.restore([id]) }
            let notice = outcome.applied.isEmpty ? Notice(.gone) : Notice(.restored, count: 1)
            return (try Self.reconciled(state, in: box, transaction), notice)
        case .undo(let ids):
            let outcome = try Self.reading { () throws(StoreError) in try transaction.restore(ids) }
            return (try Self.reconciled(state, in: box, transaction),
                    Notice(.restored, count: outcome.applied.count, gone: outcome.missing.count))
        case .undoBatch(let batch):
            let restored = try Self.reading { () throws(StoreError) in try transaction.restore(trashedIn: batch) }
            return (try Self.reconciled(state, in: box, transaction), Notice(.restored, count: restored))
        case .moveStep(let id, let step):
            do {
                try transaction.move(id, by: step, in: box)
            } catch .refused {
                return (state, Notice(.gone))
            } catch {
                throw Self.failure(error)
            }
            return (state, nil)
        case .move(let ids, let offset):
            do {
                try transaction.move(ids, toOffset: offset, in: box)
            } catch .refused(let refusal) {
                throw .refused(refusal.message)
            } catch {
                throw Self.failure(error)
            }
            return (state, nil)
        }
    }

    /// The ids a bulk action acts on: the ticks ("all N" goes through `applyToEverything`).
    private static func targets(of state: ListState, in box: MailboxID, _ transaction: Transaction) throws(ServiceError) -> [MessageID] {
        state.allAsOf == nil ? Array(state.selection) : []
    }

    /// "All N": every message that was in the list at the revision the page counted (and
    /// matched its search). A search that cannot run selects nothing, never the whole mailbox.
    private static func everything(of state: ListState, in box: MailboxID) throws(ServiceError) -> Everything? {
        guard let revision = state.allAsOf else { return nil }
        let (query, problem) = Self.search(of: state)
        if problem != nil { throw .badInput("The search could not be run, so nothing was selected: \(problem ?? "")") }
        return Everything(in: box, asOf: revision, matching: query)
    }

    /// A bulk action on "all N", in a few statements whatever N is; nil for commands that are
    /// not bulk actions. The notice counts as gone those that "all N" counted and no longer
    /// are there; a delete is undone by its batch.
    private func applyToEverything(_ everything: Everything, _ transaction: Transaction, counted: Int?) throws(ServiceError) -> Notice? {
        try Self.reading { () throws(StoreError) -> Notice? in
            let box = everything.mailbox
            func gone(_ applied: Int) -> Int { max((counted ?? applied) - applied, 0) }
            switch self {
            case .markRead:
                let applied = try transaction.setUnread(false, for: everything)
                return Notice(.markedRead, count: applied, gone: gone(applied))
            case .markUnread:
                let applied = try transaction.setUnread(true, for: everything)
                return Notice(.markedUnread, count: applied, gone: gone(applied))
            case .flag:
                let applied = try transaction.setFlagged(true, for: everything)
                return Notice(.flagged, count: applied, gone: gone(applied))
            case .unflag:
                let applied = try transaction.setFlagged(false, for: everything)
                return Notice(.unflagged, count: applied, gone: gone(applied))
            case .tag(let names):
                let applied = try transaction.addTags(names, to: everything)
                return Notice(.tagged, count: applied, gone: gone(applied), tags: names)
            case .untag(let names):
                let applied = try transaction.removeTags(names, from: everything)
                return Notice(.untagged, count: applied, gone: gone(applied), tags: names)
            case .removeSelected(.delete) where box == .trash:
                let applied = try transaction.deletePermanently(everything)
                return Notice(.destroyed, count: applied, gone: gone(applied))
            case .removeSelected(.delete), .removeSelected(.move(to: .trash)):
                let applied = try transaction.move(everything, to: .trash)
                return Notice(.deleted, count: applied, gone: gone(applied), undoBatch: applied > 0 ? transaction.lastDeletion : nil)
            case .removeSelected(.move(let target)):
                let applied = try transaction.move(everything, to: target)
                return Notice(.moved, count: applied, gone: gone(applied), target: target)
            case .removeSelected(.restore):
                let ids: [MessageID]
                if let query = everything.query {
                    ids = try transaction.ids(matching: query, in: box, enteredBy: everything.revision)
                } else {
                    ids = try transaction.ids(in: box, enteredBy: everything.revision)
                }
                let outcome = try transaction.restore(ids)
                return Notice(.restored, count: outcome.applied.count, gone: gone(outcome.applied.count))
            default:
                return nil
            }
        }
    }

    /// `state` made to fit `box` as it now is: ticks of rows gone are dropped.
    public static func reconciled(_ state: ListState, in box: MailboxID, _ transaction: Reader) throws(ServiceError) -> ListState {
        try reading { () throws(StoreError) in
            let isEmpty = try count(of: box, transaction) == 0
            var present: Set<MessageID> = []
            switch state.mode {
            case .inactive: break
            case .transient(let id): present = Set(try transaction.locate([id], in: box).applied)
            case .active: present = Set(try transaction.locate(state.selection, in: box).applied)
            }
            return state.reconciled(isEmpty: isEmpty, isPresent: present.contains)
        }
    }

    private static func count(of box: MailboxID, _ reader: Reader) throws(StoreError) -> Int {
        try reader.mailboxes()[box]?.count ?? 0
    }

    /// Runs store calls, their refusals and failures said as the service's errors.
    static func reading<Result>(_ body: () throws(StoreError) -> Result) throws(ServiceError) -> Result {
        try storing(body)
    }

    static func failure(_ error: StoreError) -> ServiceError {
        ServiceError(error, doing: ServiceError.changing)
    }

    /// The search a list state asks for, or why it cannot be run; neither for a plain list.
    public static func search(of state: ListState) -> (SearchQuery?, String?) {
        guard state.isSearch else { return (nil, nil) }
        do {
            let query = try SearchQuery(state.search)
            return query.isEmpty ? (nil, nil) : (query, nil)
        } catch {
            return (nil, error.message)
        }
    }
}

/// The ways a selection leaves its mailbox.
public enum Removal: Hashable, Sendable {
    /// Outside Trash, to Trash with Undo; in Trash, the second explicit step: gone for good.
    case delete
    case move(to: MailboxID)
    /// From Trash back to where each message came from.
    case restore

    public func apply(to ids: some Collection<MessageID>, from box: MailboxID, in transaction: Transaction) throws(ServiceError) -> Notice {
        try ListCommand.reading { () throws(StoreError) -> Notice in
            switch self {
            case .delete where box == .trash:
                let outcome = try transaction.deletePermanently(ids)
                return Notice(.destroyed, count: outcome.applied.count, gone: outcome.missing.count)
            // A delete outside Trash (the case above took Trash's), or a move to Trash from elsewhere.
            case .delete,
                 .move(to: .trash) where box != .trash:
                // Moving to Trash is deleting, with Undo; from Trash itself it moves nothing.
                let outcome = try transaction.move(ids, from: box, to: .trash)
                let fits = outcome.applied.count <= Notice.maximumUndoIDs
                return Notice(.deleted, count: outcome.applied.count, gone: outcome.missing.count,
                              undo: fits ? outcome.applied : [], undoBatch: fits ? nil : transaction.lastDeletion)
            case .move(let target):
                let outcome = try transaction.move(ids, from: box, to: target)
                return Notice(.moved, count: outcome.applied.count, gone: outcome.missing.count, target: target)
            case .restore:
                let outcome = try transaction.restore(ids)
                return Notice(.restored, count: outcome.applied.count, gone: outcome.missing.count)
            }
        }
    }
}
