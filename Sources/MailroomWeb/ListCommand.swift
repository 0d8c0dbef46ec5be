import HTTP
import MailroomCore

/// One press of a button on a list page (or the same fields posted by a script).
enum ListCommand {
    /// The edit form's default button: keeps the ticks as posted and changes nothing else.
    case update
    case edit, done, cancel
    case confirmDelete(MessageID)
    case selectAll, deselectAll
    case markRead, markUnread, flag, unflag
    /// Delete (N), Archive, Move to… and Restore: the selection leaves this mailbox.
    case removeSelected(Removal)
    case delete(MessageID)
    case restore(MessageID)
    case undo([MessageID])
    case moveStep(MessageID, MoveStep)
    /// SwiftUI's onMove for scripts: ids in their current places, moved to an offset.
    case move([MessageID], toOffset: Int)

    init(form: FormData) throws(HTTPError) {
        // Per-row buttons name their row in the value; toolbar buttons say what they do.
        if let id = form["delete"] {
            self = .delete(try ListQuery.messageID(id, field: "delete")); return
        }
        if let id = form["restore"] {
            self = .restore(try ListQuery.messageID(id, field: "restore")); return
        }
        if let id = form["move-up"] {
            self = .moveStep(try ListQuery.messageID(id, field: "move-up"), .up); return
        }
        if let id = form["move-down"] {
            self = .moveStep(try ListQuery.messageID(id, field: "move-down"), .down); return
        }
        if let id = form["confirm-delete"] {
            self = .confirmDelete(try ListQuery.messageID(id, field: "confirm-delete")); return
        }
        switch form["action"] {
        case "update": self = .update
        case "edit": self = .edit
        case "done": self = .done
        case "cancel": self = .cancel
        case "select-all": self = .selectAll
        case "deselect-all": self = .deselectAll
        case "delete": self = .removeSelected(.delete)
        case "mark-read": self = .markRead
        case "mark-unread": self = .markUnread
        case "flag": self = .flag
        case "unflag": self = .unflag
        case "archive": self = .removeSelected(.move(to: .archive))
        case "restore": self = .removeSelected(.restore)
        case "move-to":
            guard let slug = form["target"], let target = MailboxID(slug: slug) else {
                throw HTTPError(.badRequest, "Move to… needs a mailbox in “target”.")
            }
            self = .removeSelected(.move(to: target))
        case "undo":
            let ids = try Self.ids(form, "id")
            guard !ids.isEmpty else { throw HTTPError(.badRequest, "Undo needs the ids to put back in “id”.") }
            self = .undo(ids)
        case "move":
            let ids = try Self.ids(form, "id")
            guard let text = form["to"], let offset = Int(text) else {
                throw HTTPError(.badRequest, "Move needs a destination offset in “to”.")
            }
            guard !ids.isEmpty else { throw HTTPError(.badRequest, "Move needs at least one “id”.") }
            self = .move(ids, toOffset: offset)
        case let other?:
            throw HTTPError(.badRequest, "Unknown action “\(other)”.")
        case nil:
            throw HTTPError(.badRequest, "The form says nothing to do: it has no action.")
        }
    }

    private static func ids(_ form: FormData, _ field: String) throws(HTTPError) -> [MessageID] {
        try IDList.decode(form.all(field), field: field)
    }

    /// Applies the command to mailbox `box` and returns the state its page should show next.
    func apply(to library: inout Library, in box: MailboxID, state posted: ListState) throws(HTTPError) -> (ListState, Notice?) {
        guard let mailbox = library[box] else { throw HTTPError(.notFound, "There is no mailbox “\(box)”.") }
        let state = posted.reconciled(with: mailbox)
        // Bulk actions name exactly the ticks the person saw, so the ones gone meanwhile are counted.
        let ticked = posted.selection
        switch self {
        case .update:
            return (state, nil)
        case .edit:
            return (state.editing(mailbox), nil)
        case .done, .cancel:
            return (state.done, nil)
        case .confirmDelete(let id):
            guard mailbox.message(id) != nil else { return (state, Notice(.gone)) }
            return (state.confirmingDelete(of: id), nil)
        case .selectAll:
            return (state.selecting(mailbox.ids), nil)
        case .deselectAll:
            return (state.deselectingAll, nil)
        case .removeSelected(let removal):
            guard !ticked.isEmpty else { return (state, Notice(.nothingSelected)) }
            let notice = try removal.apply(to: ticked, from: box, in: &library)
            return (state.reconciled(with: library[box] ?? Mailbox()), notice)
        case .markRead, .markUnread, .flag, .unflag:
            guard !ticked.isEmpty else { return (state, Notice(.nothingSelected)) }
            let (outcome, kind) = try checked { () throws(LibraryError) in
                try library.update(box) { mailbox -> (BulkOutcome, Notice.Kind) in
                    switch self {
                    case .markRead: (mailbox.setUnread(false, for: ticked), .markedRead)
                    case .markUnread: (mailbox.setUnread(true, for: ticked), .markedUnread)
                    case .flag: (mailbox.setFlagged(true, for: ticked), .flagged)
                    default: (mailbox.setFlagged(false, for: ticked), .unflagged)
                    }
                }
            }
            return (state, Notice(kind, count: outcome.applied.count, gone: outcome.missing.count))
        case .delete(let id):
            let notice = try Removal.delete.apply(to: [id], from: box, in: &library)
            guard notice.count > 0 else { return (state.reconciled(with: library[box] ?? Mailbox()), Notice(.gone)) }
            // A confirmed swipe closes; edit mode stays on with the rest of the ticks.
            let next = state.mode == .active ? state : state.done
            return (next.reconciled(with: library[box] ?? Mailbox()), notice)
        case .restore(let id):
            let outcome = library.restore([id])
            let notice = outcome.applied.isEmpty ? Notice(.gone) : Notice(.restored, count: 1)
            return (state.reconciled(with: library[box] ?? Mailbox()), notice)
        case .undo(let ids):
            let outcome = library.restore(ids)
            return (state.reconciled(with: library[box] ?? Mailbox()),
                    Notice(.restored, count: outcome.applied.count, gone: outcome.missing.count))
        case .moveStep(let id, let step):
            do {
                try library.update(box) { mailbox throws(MailboxError) in try mailbox.move(id, by: step) }
            } catch {
                return (state, Notice(.gone))
            }
            return (state, nil)
        case .move(let ids, let offset):
            do {
                try library.update(box) { mailbox throws(MailboxError) in try mailbox.move(ids, toOffset: offset) }
            } catch {
                throw HTTPError(.badRequest, error.message)
            }
            return (state, nil)
        }
    }

}

/// The ways a selection leaves its mailbox.
enum Removal {
    /// Outside Trash, to Trash with Undo; in Trash, the second explicit step: gone for good.
    case delete
    case move(to: MailboxID)
    /// From Trash back to where each message came from.
    case restore

    func apply(to ids: some Collection<MessageID>, from box: MailboxID, in library: inout Library) throws(HTTPError) -> Notice {
        switch self {
        case .delete where box == .trash:
            let outcome = library.deletePermanently(ids)
            return Notice(.destroyed, count: outcome.applied.count, gone: outcome.missing.count)
        case .delete:
            let outcome = try checked { () throws(LibraryError) in try library.move(ids, from: box, to: .trash) }
            return Notice(.deleted, count: outcome.applied.count, gone: outcome.missing.count, undo: outcome.applied)
        case .move(let target) where target == .trash && box != .trash:
            // Moving to Trash is deleting, with Undo; from Trash itself it moves nothing.
            return try Removal.delete.apply(to: ids, from: box, in: &library)
        case .move(let target):
            let outcome = try checked { () throws(LibraryError) in try library.move(ids, from: box, to: target) }
            return Notice(.moved, count: outcome.applied.count, gone: outcome.missing.count, target: target)
        case .restore:
            let outcome = library.restore(ids)
            return Notice(.restored, count: outcome.applied.count, gone: outcome.missing.count)
        }
    }
}

/// Runs a library command, turning its error into a 400 that names the problem.
func checked<Result>(_ body: () throws(LibraryError) -> Result) throws(HTTPError) -> Result {
    do {
        return try body()
    } catch {
        throw HTTPError(.badRequest, error.message)
    }
}
