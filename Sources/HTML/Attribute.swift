/// One attribute of an element; its value is escaped when rendered.
public struct Attribute: Sendable {
    enum Value: Sendable {
        case text(String)
        case present
        case omitted
    }

    let prefix: StaticString
    let name: StaticString
    let value: Value

    public init(_ name: StaticString, _ value: String) {
        self.init(prefix: "", name: name, value: .text(value))
    }

    init(prefix: StaticString = "", name: StaticString, value: Value) {
        self.prefix = prefix
        self.name = name
        self.value = value
    }

    /// A boolean attribute such as `disabled`: written when `isOn`, left out otherwise.
    public static func boolean(_ name: StaticString, _ isOn: Bool = true) -> Attribute {
        Attribute(name: name, value: isOn ? .present : .omitted)
    }

    public static func `class`(_ value: String) -> Attribute { Attribute("class", value) }
    public static func id(_ value: String) -> Attribute { Attribute("id", value) }
    public static func href(_ value: String) -> Attribute { Attribute("href", value) }
    public static func name(_ value: String) -> Attribute { Attribute("name", value) }
    public static func value(_ value: String) -> Attribute { Attribute("value", value) }
    public static func action(_ value: String) -> Attribute { Attribute("action", value) }
    public static func formaction(_ value: String) -> Attribute { Attribute("formaction", value) }
    public static func `for`(_ value: String) -> Attribute { Attribute("for", value) }
    public static func title(_ value: String) -> Attribute { Attribute("title", value) }
    public static func placeholder(_ value: String) -> Attribute { Attribute("placeholder", value) }
    public static func content(_ value: String) -> Attribute { Attribute("content", value) }
    public static func rel(_ value: String) -> Attribute { Attribute("rel", value) }
    public static func role(_ value: String) -> Attribute { Attribute("role", value) }
    public static func lang(_ value: String) -> Attribute { Attribute("lang", value) }
    public static func autocomplete(_ value: String) -> Attribute { Attribute("autocomplete", value) }
    public static func datetime(_ value: String) -> Attribute { Attribute("datetime", value) }
    public static func maxlength(_ value: Int) -> Attribute { Attribute("maxlength", String(value)) }
    public static func rows(_ value: Int) -> Attribute { Attribute("rows", String(value)) }

    public static func type(_ value: InputType) -> Attribute { Attribute("type", value.rawValue) }
    public static let methodPost = Attribute("method", "post")
    public static let methodGet = Attribute("method", "get")

    public static func aria(_ name: StaticString, _ value: String) -> Attribute {
        Attribute(prefix: "aria-", name: name, value: .text(value))
    }

    public static func data(_ name: StaticString, _ value: String) -> Attribute {
        Attribute(prefix: "data-", name: name, value: .text(value))
    }

    public static func disabled(_ isOn: Bool = true) -> Attribute { .boolean("disabled", isOn) }
    public static func checked(_ isOn: Bool = true) -> Attribute { .boolean("checked", isOn) }
    public static func required(_ isOn: Bool = true) -> Attribute { .boolean("required", isOn) }
    public static func hidden(_ isOn: Bool = true) -> Attribute { .boolean("hidden", isOn) }
    public static func autofocus(_ isOn: Bool = true) -> Attribute { .boolean("autofocus", isOn) }
}

/// The `type` of an input or button.
public enum InputType: String, Sendable {
    case text, hidden, checkbox, submit, button, search, password
}
