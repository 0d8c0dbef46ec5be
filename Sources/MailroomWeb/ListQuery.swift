import HTTP
import MailroomCore

/// Reads and writes a list's edit state as form fields: `mode`, `row` and `selected`.
///
/// The same fields travel in the page's URL and in every form it posts, so a reload, the Back
/// button and a post all come back to exactly the state the person saw.
enum ListQuery {
    static func state(from fields: FormData) throws(HTTPError) -> ListState {
        let selected = try IDList.decode(fields.all("selected"), field: "selected")
        switch fields["mode"] ?? "inactive" {
        case "inactive", "":
            return .inactive
        case "active":
            return ListState(mode: .active, selection: selected)
        case "transient":
            guard let row = fields["row"] else {
                throw HTTPError(.badRequest, "mode=transient needs the row whose deletion is being confirmed.")
            }
            return ListState(mode: .transient(try messageID(row, field: "row")))
        case let other:
            throw HTTPError(.badRequest, "Unknown mode “\(other)”: use inactive, transient or active.")
        }
    }

    static func fields(for state: ListState) -> FormData {
        var fields = FormData()
        switch state.mode {
        case .inactive:
            break
        case .transient(let row):
            fields.append("mode", "transient")
            fields.append("row", row.description)
        case .active:
            fields.append("mode", "active")
            if !state.selection.isEmpty { fields.append("selected", IDList.encode(state.selection)) }
        }
        return fields
    }

    static func messageID(_ text: String, field: String) throws(HTTPError) -> MessageID {
        guard let id = MessageID(text) else {
            throw HTTPError(.badRequest, "“\(text)” is not a message id (field \(field)).")
        }
        return id
    }
}
