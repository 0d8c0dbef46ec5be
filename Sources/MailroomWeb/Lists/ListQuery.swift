import HTTP
import MailroomCore

/// Reads and writes a list's edit state as form fields: `mode`, `row`, `selected` and `all`,
/// and its page: `older` or `newer` (a row's key) with `at` (the number of the page's first row).
///
/// The same fields travel in the page's URL and in every form it posts, so a reload, the Back
/// button and a post all come back to exactly the state the person saw.
enum ListQuery {
    static func state(from fields: FormData) throws(HTTPError) -> ListState {
        var state = try mode(from: fields)
        state.search = (fields["q"] ?? "")[...].trimmingCharacters(in: " \t\r\n")
        let start = try number(fields["at"], field: "at") ?? 1
        if let key = try number(fields["older"], field: "older") {
            state = state.moved(to: .below(key), start: Int(clamping: start))
        } else if let key = try number(fields["newer"], field: "newer") {
            state = state.moved(to: .above(key), start: Int(clamping: start))
        }
        return state
    }

    private static func mode(from fields: FormData) throws(HTTPError) -> ListState {
        let selected = try IDList.decode(fields.all("selected"), field: "selected")
        switch fields["mode"] ?? "inactive" {
        case "inactive", "":
            return .inactive
        case "active":
            return ListState(mode: .active, selection: selected, allAsOf: try number(fields["all"], field: "all"))
        case "transient":
            guard let row = fields["row"] else {
                throw HTTPError(.badRequest, "mode=transient needs the row whose deletion is being confirmed.")
            }
            return ListState(mode: .transient(try messageID(row, field: "row")))
        case let other:
            throw HTTPError(.badRequest, "Unknown mode “\(other)”: use inactive, transient or active.")
        }
    }

    /// A whole number from a field, or nil when the field is absent.
    private static func number(_ text: String?, field: String) throws(HTTPError) -> Int64? {
        guard let text, !text.isEmpty else { return nil }
        guard let value = Int64(text) else {
            throw HTTPError(.badRequest, "“\(text)” is not a whole number (field \(field)).")
        }
        return value
    }

    static func fields(for state: ListState) -> FormData {
        var fields = FormData()
        if state.isSearch { fields.append("q", state.search) }
        switch state.mode {
        case .inactive:
            break
        case .transient(let row):
            fields.append("mode", "transient")
            fields.append("row", row.description)
        case .active:
            fields.append("mode", "active")
            if !state.selection.isEmpty { fields.append("selected", IDList.encode(state.selection)) }
            if let revision = state.allAsOf { fields.append("all", String(revision)) }
        }
        switch state.place {
        case .top:
            break
        case .below(let key):
            fields.append("older", String(key))
            fields.append("at", String(state.start))
        case .above(let key):
            fields.append("newer", String(key))
            fields.append("at", String(state.start))
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
