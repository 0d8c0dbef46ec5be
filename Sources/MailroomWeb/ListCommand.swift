import HTTP
import MailroomCore

/// One press of a button on the list page (or the same fields posted by a script).
enum ListCommand {
    case edit, done, cancel
    case confirmDelete(MessageID)
    case selectAll, deselectAll
    case deleteSelected, markRead, markUnread, flag, unflag
    case delete(MessageID)
    case moveStep(MessageID, MoveStep)
    /// SwiftUI's onMove for scripts: ids in their current places, moved to an offset.
    case move([MessageID], toOffset: Int)

    init(form: FormData) throws(HTTPError) {
        // Per-row buttons name their row in the value; toolbar buttons say what they do.
        if let id = form["delete"] {
            self = .delete(try ListQuery.messageID(id, field: "delete")); return
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
        case "edit": self = .edit
        case "done": self = .done
        case "cancel": self = .cancel
        case "select-all": self = .selectAll
        case "deselect-all": self = .deselectAll
        case "delete": self = .deleteSelected
        case "mark-read": self = .markRead
        case "mark-unread": self = .markUnread
        case "flag": self = .flag
        case "unflag": self = .unflag
        case "move":
            let ids = try form.all("id").map { text throws(HTTPError) in try ListQuery.messageID(text, field: "id") }
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

    /// Applies the command and returns the state the page should show next.
    func apply(to mailbox: inout Mailbox, in state: ListState) throws(HTTPError) -> (ListState, Notice?) {
        let state = state.reconciled(with: mailbox)
        switch self {
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
        case .deleteSelected:
            guard !state.selection.isEmpty else { return (state, Notice(.nothingSelected)) }
            let outcome = mailbox.delete(state.selection)
            return (state.reconciled(with: mailbox), Notice(.deleted, count: outcome.applied.count, gone: outcome.missing.count))
        case .markRead, .markUnread, .flag, .unflag:
            guard !state.selection.isEmpty else { return (state, Notice(.nothingSelected)) }
            let (outcome, kind): (BulkOutcome, Notice.Kind) = switch self {
            case .markRead: (mailbox.setUnread(false, for: state.selection), .markedRead)
            case .markUnread: (mailbox.setUnread(true, for: state.selection), .markedUnread)
            case .flag: (mailbox.setFlagged(true, for: state.selection), .flagged)
            default: (mailbox.setFlagged(false, for: state.selection), .unflagged)
            }
            return (state, Notice(kind, count: outcome.applied.count, gone: outcome.missing.count))
        case .delete(let id):
            let outcome = mailbox.delete([id])
            guard !outcome.applied.isEmpty else { return (state.reconciled(with: mailbox), Notice(.gone)) }
            // A confirmed swipe closes; edit mode stays on with the rest of the ticks.
            let next = state.mode == .active ? state : state.done
            return (next.reconciled(with: mailbox), Notice(.deleted, count: 1))
        case .moveStep(let id, let step):
            do {
                try mailbox.move(id, by: step)
            } catch {
                return (state, Notice(.gone))
            }
            return (state, nil)
        case .move(let ids, let offset):
            do {
                try mailbox.move(ids, toOffset: offset)
            } catch {
                throw HTTPError(.badRequest, error.message)
            }
            return (state, nil)
        }
    }
}
