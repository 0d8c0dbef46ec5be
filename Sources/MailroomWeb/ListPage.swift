import HTML
import MailroomCore

/// The mailbox list, rendered entirely from one `ListState`.
struct ListPage {
    let mailbox: Mailbox
    let state: ListState
    let notice: Notice?
    let now: Int64
    /// What the person typed into the Add form, kept when it was refused.
    var draft = Draft(subject: "")
    var problems: [String] = []

    private var selectedCount: Int { state.selection.count }

    func render() -> [UInt8] {
        Layout.document(title: documentTitle, bodyClass: state.mode == .active ? "list-page editing" : "list-page") {
            header(.class("bar")) {
                div(.class("bar-title")) {
                    if state.mode == .active {
                        p(.class("bar-context")) { "Inbox" }
                        h1(.id("selection-count"), .aria("live", "polite")) { "\(selectedCount) Selected" }
                    } else {
                        h1 { "Inbox" }
                        p(.class("bar-context")) { unreadSummary }
                    }
                }
                editButton
            }
            main(.id("content")) {
                if let notice {
                    p(.class("notice"), .role("status")) { notice.text }
                }
                if mailbox.isEmpty {
                    emptyState
                } else if state.mode == .active {
                    editingList
                } else {
                    browsingList
                }
                if state.mode == .inactive {
                    addForm
                }
            }
        }
    }

    private var documentTitle: String {
        state.mode == .active ? "\(selectedCount) Selected — Inbox — Mailroom" : "Inbox — Mailroom"
    }

    private var unreadSummary: String {
        let unread = mailbox.unreadCount
        let total = mailbox.count == 1 ? "1 message" : "\(mailbox.count) messages"
        return unread == 0 ? total : "\(total), \(unread) unread"
    }

    /// Edit while browsing, Done while editing or confirming; disabled when there is nothing to edit.
    private var editButton: Node {
        if state.mode.isEditing {
            return a(.class("button bar-button"), .id("done"), .href(Paths.inbox(state.done))) { "Done" }
        }
        if mailbox.isEmpty {
            return button(.type(.button), .class("button bar-button"), .id("edit"), .disabled()) { "Edit" }
        }
        return a(.class("button bar-button"), .id("edit"), .href(Paths.inbox(state.editing(mailbox)))) { "Edit" }
    }

    private var emptyState: Node {
        div(.class("empty"), .id("empty")) {
            h2 { "No messages" }
            p { "The Inbox is empty. New messages you add will appear here." }
        }
    }

    // MARK: Browsing (inactive and transient)

    private var browsingList: Node {
        ul(.class("list"), .id("messages"), .aria("label", "Messages")) {
            for message in mailbox.messages {
                if state.mode.pendingRow == message.id {
                    confirmingRow(message)
                } else {
                    browsingRow(message)
                }
            }
        }
    }

    private func browsingRow(_ message: Message) -> Node {
        li(.class(rowClass(message)), .id("message-\(message.id)"), .data("id", message.id.description)) {
            a(.class("row-link"), .href(Paths.message(message.id))) {
                rowSummary(message)
            }
            a(.class("row-delete"), .href(Paths.inbox(state.confirmingDelete(of: message.id))),
              .aria("label", "Delete “\(message.subject)”")) { "Delete" }
        }
    }

    /// The web form of a swipe: the row asks before it deletes.
    private func confirmingRow(_ message: Message) -> Node {
        li(.class(rowClass(message) + " confirming"), .id("message-\(message.id)"), .data("id", message.id.description)) {
            div(.class("row-link")) { rowSummary(message) }
            form(.methodPost, .action(Paths.inbox), .class("confirm")) {
                hiddenStateFields
                button(.type(.submit), .name("delete"), .value(message.id.description), .class("button destructive"),
                       .aria("label", "Confirm delete “\(message.subject)”"), .autofocus()) { "Delete" }
            }
            a(.class("button"), .href(Paths.inbox(state.done))) { "Cancel" }
        }
    }

    // MARK: Editing (active)

    private var editingList: Node {
        form(.methodPost, .action(Paths.inbox), .id("edit-form")) {
            input(.type(.hidden), .name("mode"), .value("active"))
            toolbar
            ul(.class("list editing"), .id("messages"), .aria("label", "Messages")) {
                for (offset, message) in mailbox.messages.enumerated() {
                    editingRow(message, offset: offset)
                }
            }
        }
    }

    private var toolbar: Node {
        let selected = mailbox.messages.filter { state.selection.contains($0.id) }
        let anyUnread = selected.contains { $0.isUnread }
        let allFlagged = !selected.isEmpty && selected.allSatisfy(\.isFlagged)
        let isEmpty = selected.isEmpty
        return div(.class("toolbar"), .id("toolbar"), .role("toolbar"), .aria("label", "Selection")) {
            if state.allSelected(in: mailbox) {
                button(.type(.submit), .name("action"), .value("deselect-all"), .class("button")) { "Deselect All" }
            } else {
                button(.type(.submit), .name("action"), .value("select-all"), .class("button")) { "Select All" }
            }
            if anyUnread || isEmpty {
                bulkButton("mark-read", "Mark Read", disabled: isEmpty)
            } else {
                bulkButton("mark-unread", "Mark Unread", disabled: isEmpty)
            }
            if allFlagged {
                bulkButton("unflag", "Unflag", disabled: isEmpty)
            } else {
                bulkButton("flag", "Flag", disabled: isEmpty)
            }
            bulkButton("delete", "Delete (\(selected.count))", disabled: isEmpty, extraClass: " destructive")
        }
    }

    /// Disabled in look and for assistive technology, yet still focusable and pressable:
    /// ticks made since the page loaded are only known to the browser.
    private func bulkButton(_ action: String, _ text: String, disabled: Bool, extraClass: String = "") -> Node {
        button(.type(.submit), .name("action"), .value(action), .class("button bulk" + extraClass),
               .id("action-\(action)"), .aria("disabled", disabled ? "true" : "false")) { text }
    }

    private func editingRow(_ message: Message, offset: Int) -> Node {
        let id = message.id.description
        let isSelected = state.selection.contains(message.id)
        return li(.class(rowClass(message) + (isSelected ? " selected" : "")), .id("message-\(id)"), .data("id", id)) {
            label(.class("row-select")) {
                input(.type(.checkbox), .name("selected"), .value(id), .checked(isSelected),
                      .aria("label", "Select “\(message.subject)”"))
                rowSummary(message)
            }
            span(.class("row-tools")) {
                button(.type(.submit), .name("move-up"), .value(id), .class("button icon"), .disabled(offset == 0),
                       .aria("label", "Move “\(message.subject)” up")) { "↑" }
                button(.type(.submit), .name("move-down"), .value(id), .class("button icon"),
                       .disabled(offset == mailbox.count - 1),
                       .aria("label", "Move “\(message.subject)” down")) { "↓" }
                button(.type(.submit), .name("delete"), .value(id), .class("button destructive"),
                       .aria("label", "Delete “\(message.subject)”")) { "Delete" }
            }
        }
    }

    // MARK: Shared pieces

    private func rowClass(_ message: Message) -> String {
        "row" + (message.isUnread ? " unread" : "") + (message.isFlagged ? " flagged" : "")
    }

    private func rowSummary(_ message: Message) -> Node {
        span(.class("row-main")) {
            span(.class("row-top")) {
                span(.class("marks")) {
                    if message.isUnread { span(.class("unread-dot"), .title("Unread")) { span(.class("visually-hidden")) { "Unread" } } }
                    if message.isFlagged { span(.class("flag-mark"), .title("Flagged")) { span(.class("visually-hidden")) { "Flagged" } } }
                }
                strong(.class("author")) { message.author.isEmpty ? "Anonymous" : message.author }
                time(.datetime(Formatting.iso8601(message.createdAt))) {
                    Formatting.shortDate(message.createdAt, now: now)
                }
            }
            span(.class("subject")) { message.subject }
            if !message.body.isEmpty {
                span(.class("preview")) { Formatting.preview(message.body) }
            }
        }
    }

    /// The current state as hidden fields, so a post returns to it.
    private var hiddenStateFields: Node {
        .fragment(ListQuery.fields(for: state).fields.map { field in
            input(.type(.hidden), .name(field.name), .value(field.value))
        })
    }

    private var addForm: Node {
        let isOpen = !problems.isEmpty || mailbox.isEmpty
        return element("details", [.class("compose"), .id("compose"), .boolean("open", isOpen)]) {
            element("summary", [.class("button")]) { "New Message" }
            form(.methodPost, .action(Paths.inbox), .id("add-form")) {
                input(.type(.hidden), .name("action"), .value("add"))
                if !problems.isEmpty {
                    div(.class("form-errors"), .role("alert"), .id("form-errors")) {
                        ul { for problem in problems { li { problem } } }
                    }
                }
                label(.for("subject")) { "Subject" }
                input(.type(.text), .id("subject"), .name("subject"), .value(draft.subject),
                      .maxlength(Draft.maximumSubjectLength), .autocomplete("off"),
                      .aria("invalid", problems.isEmpty ? "false" : "true"))
                label(.for("author")) { "From" }
                input(.type(.text), .id("author"), .name("author"), .value(draft.author),
                      .maxlength(Draft.maximumAuthorLength), .placeholder("Your name (optional)"),
                      .autocomplete("name"))
                label(.for("body")) { "Message" }
                textarea(.id("body"), .name("body"), .rows(4), .maxlength(Draft.maximumBodyLength), text: draft.body)
                button(.type(.submit), .class("button primary")) { "Add Message" }
            }
        }
    }
}
