/// A page as a test reads it: the raw HTML plus helpers for the parts of the inbox that matter.
struct Page {
    let html: String
    let bytes: [UInt8]
    let tags: [HTMLTag]

    init(html: String) {
        self.html = html
        self.bytes = Array(html.utf8)
        self.tags = HTMLScanner.startTags(in: bytes)
    }

    // MARK: Generic reading

    func tags(_ name: String) -> [HTMLTag] { tags.filter { $0.name == name } }

    func element(id: String) -> HTMLTag? { tags.first { $0["id"] == id } }

    func elements(class name: String) -> [HTMLTag] { tags.filter { $0.classes.contains(name) } }

    /// The visible text inside an element.
    func text(of tag: HTMLTag) -> String {
        HTMLScanner.text(bytes[HTMLScanner.contentRange(of: tag, in: bytes)])
    }

    /// The raw markup inside an element.
    func innerHTML(of tag: HTMLTag) -> String {
        String(decoding: bytes[HTMLScanner.contentRange(of: tag, in: bytes)], as: UTF8.self)
    }

    /// The start tags inside an element.
    func tags(inside tag: HTMLTag) -> [HTMLTag] {
        let range = HTMLScanner.contentRange(of: tag, in: bytes)
        return tags.filter { range.contains($0.start) }
    }

    var title: String? { tags("title").first.map(text(of:)) }

    /// The first `<h1>`'s text.
    var heading: String? { tags("h1").first.map(text(of:)) }

    /// The status line shown after an action, such as "1 message moved to Trash.": the notice's
    /// sentence only, without the label of its Undo button.
    var notice: String? {
        elements(class: "notice").first.map { notice in
            tags(inside: notice).first { $0.name == "span" }.map(text(of:)) ?? text(of: notice)
        }
    }

    /// The notice's Undo form, present right after messages went to Trash.
    var undoForm: HTMLForm? { form(class: "undo") }

    /// Every link target on the page, entity-decoded.
    var links: [String] { tags("a").compactMap { $0["href"] } }

    // MARK: The inbox

    /// The message ids of the rows, top to bottom.
    var rowIDs: [Int] { tags("li").compactMap { $0["data-id"].flatMap { Int($0) } } }

    func row(_ id: Int) -> HTMLTag? { tags("li").first { $0["data-id"] == String(id) } }

    /// A row's classes, such as `row unread flagged selected`; empty when the row is absent.
    func rowClasses(_ id: Int) -> Set<String> { row(id)?.classes ?? [] }

    /// The row's checkbox, present only while editing.
    func checkbox(_ id: Int) -> HTMLTag? {
        tags("input").first { $0["type"] == "checkbox" && $0["name"] == "selected" && $0["value"] == String(id) }
    }

    func isChecked(_ id: Int) -> Bool { checkbox(id)?.has("checked") ?? false }

    /// The ids whose checkbox is rendered ticked, top to bottom.
    var checkedIDs: [Int] {
        tags("input").filter { $0["name"] == "selected" && $0.has("checked") }.compactMap { $0["value"].flatMap { Int($0) } }
    }

    var hasCheckboxes: Bool { tags("input").contains { $0["type"] == "checkbox" } }

    var hasToolbar: Bool { element(id: "toolbar") != nil }

    var isEmptyState: Bool { element(id: "empty") != nil }

    /// The header's Edit or Done control.
    var editButton: HTMLTag? { element(id: "edit") ?? element(id: "done") }

    var editButtonText: String? { editButton.map(text(of:)) }

    var isEditButtonDisabled: Bool { editButton?.has("disabled") ?? false }

    /// The text of a toolbar button, such as "Delete (2)", found by its action.
    func toolbarButtonText(_ action: String) -> String? {
        element(id: "toolbar").flatMap { toolbar in
            tags(inside: toolbar).first { $0.name == "button" && $0["value"] == action }.map(text(of:))
        }
    }

    /// Links that open a message page.
    var messageLinks: [String] { links.filter { $0.hasPrefix("/messages/") } }

    /// A row's "Delete" link, which opens its confirmation (transient mode).
    func deleteLink(ofRow id: Int) -> String? {
        row(id).flatMap { row in tags(inside: row).first { $0.name == "a" && $0.classes.contains("row-delete") }?["href"] }
    }

    /// The ids whose delete confirmation button is showing.
    var confirmingRowIDs: [Int] {
        forms.filter { $0.classes.contains("confirm") }.flatMap { form in
            form.buttons.filter { $0.name == "delete" }.compactMap { Int($0.value) }
        }
    }

    /// The Cancel link of the open confirmation.
    var cancelLink: String? {
        tags("li").first { $0.classes.contains("confirming") }.flatMap { row in
            tags(inside: row).first { $0.name == "a" && text(of: $0) == "Cancel" }?["href"]
        }
    }

    /// The messages listed in the add or edit form's error box.
    var formErrors: [String] {
        guard let box = element(id: "form-errors") else { return [] }
        return tags(inside: box).filter { $0.name == "li" }.map(text(of:))
    }

    /// All the text of the form's error box, whatever its markup.
    var formErrorText: String? { element(id: "form-errors").map(text(of:)) }

    // MARK: The sidebar

    struct SidebarEntry: Equatable, CustomStringConvertible {
        let slug: String
        let name: String
        let href: String
        /// The unread count shown next to the name, nil when none is.
        let unread: Int?
        let isCurrent: Bool

        var description: String { "\(slug)(\(name), \(unread.map(String.init) ?? "-")\(isCurrent ? ", current" : ""))" }
    }

    /// The mailboxes listed in `nav#mailboxes`, in order.
    var sidebar: [SidebarEntry] {
        guard let nav = element(id: "mailboxes"), nav.name == "nav" else { return [] }
        return tags(inside: nav).filter { $0.name == "a" && $0["data-mailbox"] != nil }.map { link in
            let inside = tags(inside: link)
            let name = inside.first { $0.classes.contains("mailbox-name") }.map(text(of:)) ?? ""
            let unread = inside.first { $0.classes.contains("unread-count") }.flatMap { Int(text(of: $0)) }
            return SidebarEntry(
                slug: link["data-mailbox"] ?? "", name: name, href: link["href"] ?? "", unread: unread,
                isCurrent: link["aria-current"] == "page")
        }
    }

    // MARK: Forms

    var forms: [HTMLForm] { tags("form").map { HTMLForm(tag: $0, in: self) } }

    func form(id: String) -> HTMLForm? { forms.first { $0.id == id } }

    func form(class name: String) -> HTMLForm? { forms.first { $0.classes.contains(name) } }
}
