/// A form as a browser would submit it: its successful controls, which a test may change the way
/// a person would (ticking a box, typing into a field), and the buttons that can submit it.
struct HTMLForm {
    struct Button {
        let name: String
        let value: String
        let text: String
        let isDisabled: Bool
    }

    let id: String?
    let classes: Set<String>
    let action: String
    let method: String
    /// Name/value pairs in document order, as they would be sent without a button.
    private(set) var fields: [(name: String, value: String)] = []
    /// The checkboxes that exist, ticked or not, so a test cannot tick something the page lacks.
    private(set) var checkboxes: [(name: String, value: String)] = []
    private(set) var buttons: [Button] = []
    /// The options of every `<select>`, so a test cannot choose one the page lacks.
    private(set) var choices: [(name: String, value: String)] = []

    init(tag: HTMLTag, in page: Page) {
        id = tag["id"]
        classes = tag.classes
        action = tag["action"] ?? ""
        method = (tag["method"] ?? "get").uppercased()
        for control in page.tags(inside: tag) {
            guard let name = control["name"] else { continue }
            switch control.name {
            case "input":
                switch control["type"] ?? "text" {
                case "checkbox", "radio":
                    checkboxes.append((name, control["value"] ?? "on"))
                    if control.has("checked") { fields.append((name, control["value"] ?? "on")) }
                case "submit", "button", "reset", "image":
                    continue
                default:
                    fields.append((name, control["value"] ?? ""))
                }
            case "select":
                // As in browsers, the selected option, or else the first, is sent.
                let options = page.tags(inside: control).filter { $0.name == "option" }
                for option in options { choices.append((name, option["value"] ?? page.text(of: option))) }
                if let chosen = options.first(where: { $0.has("selected") }) ?? options.first {
                    fields.append((name, chosen["value"] ?? page.text(of: chosen)))
                }
            case "textarea":
                // As in browsers, one newline right after <textarea> is not part of the value.
                var text = page.innerHTML(of: control)
                if text.hasPrefix("\n") { text.removeFirst() }
                fields.append((name, HTMLScanner.decodeEntities(text)))
            case "button":
                buttons.append(Button(
                    name: name, value: control["value"] ?? "", text: page.text(of: control),
                    isDisabled: control.has("disabled")))
            default:
                continue
            }
        }
    }

    func values(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    /// The ids named by the field `name`, each value a compact id list such as `1,3-4`, in order;
    /// nil when a value is not such a list.
    func ids(_ name: String) -> [Int]? {
        var ids: [Int] = []
        for value in values(name) {
            guard let decoded = URLQuery.ids(inList: value) else { return nil }
            ids += decoded
        }
        return ids
    }

    /// Ticks a checkbox, as a click in the browser does before anything is sent.
    mutating func tick(_ value: String, name: String = "selected") throws {
        guard checkboxes.contains(where: { $0.name == name && $0.value == value }) else {
            throw TestFailure("no checkbox \(name)=\(value) in form \(id ?? action)")
        }
        guard !fields.contains(where: { $0.name == name && $0.value == value }) else { return }
        fields.append((name, value))
    }

    mutating func tick(_ id: Int) throws { try tick(String(id)) }

    mutating func untick(_ id: Int, name: String = "selected") {
        fields.removeAll { $0.name == name && $0.value == String(id) }
    }

    /// Chooses an option of a `<select>`, as a person does before pressing a button.
    mutating func choose(_ value: String, in name: String) throws {
        guard choices.contains(where: { $0.name == name && $0.value == value }) else {
            throw TestFailure("no option \(value) in select \(name) of form \(id ?? action)")
        }
        guard let index = fields.firstIndex(where: { $0.name == name }) else {
            throw TestFailure("no select named \(name) in form \(id ?? action)")
        }
        fields[index].value = value
    }

    /// The values a `<select>` offers, in order.
    func options(_ name: String) -> [String] { choices.filter { $0.name == name }.map(\.value) }

    /// Types into a text field or text area, replacing what it held.
    mutating func fill(_ name: String, with value: String) throws {
        guard let index = fields.firstIndex(where: { $0.name == name }) else {
            throw TestFailure("no field named \(name) in form \(id ?? action)")
        }
        fields[index].value = value
    }

    /// The fields sent when `button` (name, value) is pressed; nil presses no button (Enter in a field).
    func submission(pressing button: (String, String)?) throws -> [(String, String)] {
        guard let (name, value) = button else { return fields.map { ($0.name, $0.value) } }
        guard let found = buttons.first(where: { $0.name == name && $0.value == value }) else {
            throw TestFailure("no button \(name)=\(value) in form \(id ?? action)")
        }
        guard !found.isDisabled else { throw TestFailure("button \(name)=\(value) is disabled: a browser cannot press it") }
        return fields.map { ($0.name, $0.value) } + [(name, value)]
    }
}
