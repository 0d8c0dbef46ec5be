import HTTP
import MailroomCore
import MailroomService

extension ListCommand {
    /// The command a list page's form (or a script posting the same fields) asks for.
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
        case "tag", "untag":
            // No name left is answered on the page, edit mode and ticks kept (`Notice.Kind.needsTag`).
            let names = Tag.list(form["tag"] ?? "")
            self = form["action"] == "tag" ? .tag(names) : .untag(names)
        case "archive": self = .removeSelected(.move(to: .archive))
        case "restore": self = .removeSelected(.restore)
        case "move-to":
            guard let slug = form["target"], let target = MailboxID(slug: slug) else {
                throw HTTPError(.badRequest, "Move to… needs a mailbox in “target”.")
            }
            self = .removeSelected(.move(to: target))
        case "undo" where form["batch"] != nil:
            guard let text = form["batch"], let batch = Int64(text) else {
                throw HTTPError(.badRequest, "Undo needs a whole number in “batch”.")
            }
            self = .undoBatch(batch)
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
}
