import HTML
import HTTP
import MailroomCore
import MailroomService
import MailroomStore

/// A mailbox's list, one page of it, rendered entirely from one `ListState`.
struct ListPage {
    let mailboxes: [MailboxSummary]
    let mailbox: MailboxSummary
    /// The rows this page shows, with what lies beyond them.
    let slice: ListSlice
    let state: ListState
    /// With "all N" selected: how many that is.
    var allCount: Int?
    /// Why the search could not run, in a sentence, when it could not.
    var searchProblem: String?
    let notice: Notice?
    let now: Int64
    /// Rows are looked up here first, and new ones left here for the next page.
    let rows: RowCache.Batch
    let token: String?
    /// What the person typed into the Add form, kept when it was refused.
    var draft = Draft(subject: "")
    var problems: [String] = []

    private var selectedCount: Int { allCount ?? state.selection.count }
    private var messages: [Message] { slice.rows }
    private var pageIDs: [MessageID] { slice.rows.map(\.id) }

    func render() -> [UInt8] {
        Layout.document(
            title: documentTitle, bodyClass: state.mode == .active ? "list-page editing" : "list-page",
            contentBytes: { rows.bytesServed }
        ) {
            Sidebar(mailboxes: mailboxes, current: mailbox.id).body
            header(.class("bar")) {
                div(.class("bar-title")) {
                    if state.mode == .active {
                        p(.class("bar-context")) { mailbox.name }
                        if allCount == nil {
                            h1(.id("selection-count"), .aria("live", "polite")) { selectionHeading }
                        } else {
                            h1(.id("selection-count"), .class("all-selected"), .aria("live", "polite")) { selectionHeading }
                        }
                    } else {
                        h1 { mailbox.name }
                        p(.class("bar-context")) { unreadSummary }
                    }
                }
                editButton
            }
            main(.id("content")) {
                searchForm
                if let notice {
                    noticeBanner(notice)
                }
                if isTrash && state.mode == .inactive && !mailbox.isEmpty {
                    p(.class("trash-actions")) {
                        a(.class("button destructive"), .id("empty-trash"), .href(Paths.emptyTrash)) { "Empty Trash…" }
                    }
                }
                if mailbox.isEmpty {
                    emptyState
                } else if messages.isEmpty && (state.isSearch || searchProblem != nil) {
                    noResults
                } else if state.mode == .active {
                    editingList
                } else {
                    browsingList
                }
                pager
                if state.mode == .inactive && !isTrash && !state.isSearch {
                    addForm
                }
            }
            // With "all N" selected the server's count is the truth; ticks on the page are not.
            if state.mode == .active && allCount == nil {
                liveCount
            }
        }
    }

    private var isTrash: Bool { mailbox.id == .trash }

    private var documentTitle: String {
        state.mode == .active ? "\(selectionHeading) — \(mailbox.name) — Mailroom" : "\(mailbox.name) — Mailroom"
    }

    private var selectionHeading: String {
        allCount.map { "All \(Formatting.count($0)) Selected" } ?? "\(selectedCount) Selected"
    }

    /// The search field (a GET form: a search is a place, not a change) and Mail's quick filters.
    private var searchForm: Node {
        div(.class("search-bar")) {
            form(.methodGet, .action(here), .role("search"), .class("search"), .id("search")) {
                label(.for("q"), .class("visually-hidden")) { "Search \(mailbox.name)" }
                input(.type(.search), .id("q"), .name("q"), .value(state.search), .placeholder("Search"),
                      .autocomplete("off"), .aria("describedby", "search-help"))
                if state.mode == .active {
                    input(.type(.hidden), .name("mode"), .value("active"))
                }
                button(.type(.submit), .class("button")) { "Search" }
            }
            p(.class("visually-hidden"), .id("search-help")) { Self.searchHelp }
            nav(.class("filters"), .aria("label", "Filters")) {
                // Spaces between the links: words in a text browser, nothing in the flex row.
                filterLink("All", search: "", id: "filter-all")
                " "
                filterLink("Unread", search: "is:unread", id: "filter-unread")
                " "
                filterLink("Flagged", search: "is:flagged", id: "filter-flagged")
            }
            if let searchProblem {
                p(.class("search-problem"), .role("alert"), .id("search-problem")) { searchProblem }
            }
        }
    }

    /// The search field's description, from `SearchQuery.operators`, so it names every one.
    static let searchHelp = "Words match subject, sender and body; word* matches a prefix and \"quoted words\" a phrase; "
        + "any three characters of Japanese, Chinese, Thai or Korean text are found, even inside a word. Narrow with "
        + SearchQuery.operators.map(\.syntax).filter { $0.contains(":") }.joined(separator: ", ")
        + ", or type an address to find mail from or to it."

    private func filterLink(_ title: String, search: String, id: String) -> Node {
        var target = ListState.inactive
        target.search = search
        return a(.class("filter"), .id(id), .href(Paths.mailbox(mailbox.id, target)),
                 .aria("current", state.search == search ? "page" : "false")) { title }
    }

    private var noResults: Node {
        div(.class("empty"), .id("no-results")) {
            h2 { "No results" }
            p { searchProblem == nil ? "No message in \(mailbox.name) matches “\(state.search)”." : "Nothing was searched." }
        }
    }

    /// Whether the list has more rows than this page shows.
    private var isPaged: Bool { slice.hasNewer || slice.hasOlder }

    /// Newest, Newer and Older, by the keys of the rows at this page's edges.
    private var pager: Node {
        guard isPaged, let first = slice.keys.first, let last = slice.keys.last else { return .fragment([]) }
        // Ticks are per page: moving to another page keeps the mode, not the ticks.
        var base = state.mode == .active ? ListState(mode: .active) : ListState.inactive
        base.search = state.search
        return nav(.class("pager"), .id("pager"), .aria("label", "Pages")) {
            if slice.hasNewer {
                a(.class("button"), .id("newest"), .href(Paths.mailbox(mailbox.id, base))) { "Newest" }
                a(.class("button"), .id("newer"), .rel("prev"),
                  .href(Paths.mailbox(mailbox.id, base.moved(to: .above(first), start: state.start - messages.count)))) { "‹ Newer" }
            }
            if slice.hasOlder {
                a(.class("button"), .id("older"), .rel("next"),
                  .href(Paths.mailbox(mailbox.id, base.moved(to: .below(last), start: state.start + messages.count)))) { "Older ›" }
            }
        }
    }

    /// "51–100 of 1,234": which rows these are, in the whole list.
    private var rangeText: String {
        let end = state.start + messages.count - 1
        return "\(Formatting.count(state.start))–\(Formatting.count(end)) of \(Formatting.count(slice.total))"
            + (slice.totalIsAtLeast ? "+" : "")
    }

    private var here: String { Paths.mailbox(mailbox.id) }

    /// What just happened, with Undo right away when messages went to Trash.
    private func noticeBanner(_ notice: Notice) -> Node {
        div(.class("notice"), .role("status"), .id("notice")) {
            span { notice.text(in: mailboxes) }
            if notice.canUndo {
                postForm(here, token: token, .class("undo")) {
                    hiddenStateFields
                    input(.type(.hidden), .name("action"), .value("undo"))
                    if let batch = notice.undoBatch {
                        input(.type(.hidden), .name("batch"), .value(String(batch)))
                    } else {
                        input(.type(.hidden), .name("id"), .value(IDList.encode(notice.undo)))
                    }
                    button(.type(.submit), .class("button"), .id("undo")) { "Undo" }
                }
            }
        }
    }

    private var unreadSummary: String {
        let unread = mailbox.unreadCount
        if state.isSearch {
            let found = slice.total == 1 ? "1 match" : "\(Formatting.count(slice.total))\(slice.totalIsAtLeast ? "+" : "") matches"
            return isPaged ? rangeText + " matches" : found
        }
        let total = isPaged ? rangeText : mailbox.count == 1 ? "1 message" : "\(Formatting.count(mailbox.count)) messages"
        return unread == 0 ? total : "\(total), \(Formatting.count(unread)) unread"
    }

    /// Edit while browsing, Done while editing or confirming; disabled when there is nothing to edit.
    private var editButton: Node {
        if state.mode.isEditing {
            return a(.class("button bar-button"), .id("done"), .href(Paths.mailbox(mailbox.id, state.done))) { "Done" }
        }
        if mailbox.isEmpty {
            return button(.type(.button), .class("button bar-button"), .id("edit"), .disabled()) { "Edit" }
        }
        return a(.class("button bar-button"), .id("edit"), .href(Paths.mailbox(mailbox.id, state.editing(isEmpty: mailbox.isEmpty)))) { "Edit" }
    }

    private var emptyState: Node {
        div(.class("empty"), .id("empty")) {
            h2 { "No messages" }
            p { isTrash ? "Trash is empty. Deleted messages wait here until you delete them for good."
                : "\(mailbox.name) is empty. Messages added or moved here will appear in this list." }
        }
    }

    // MARK: Browsing (inactive and transient)

    private var browsingList: Node {
        ul(.class("list"), .id("messages"), .aria("label", "Messages"), .data("revision", "\(slice.revision)")) {
            for message in messages {
                if state.mode.pendingRow == message.id {
                    confirmingRow(message)
                } else {
                    rows.row(message, .browsing(mailbox.id)) { browsingRow(message) }
                }
            }
        }
    }

    private func browsingRow(_ message: Message) -> Node {
        li(.class(rowClass(message)), .id("message-\(message.id)"), .data("id", message.id.description)) {
            a(.class("row-link"), .href(Paths.message(message.id))) {
                rowSummary(message)
            }
            " "
            a(.class("row-delete"), .href(Paths.mailbox(mailbox.id, state.confirmingDelete(of: message.id))),
              .aria("label", "Delete “\(message.subject)”")) { "Delete" }
        }
    }

    /// The web form of a swipe: the row asks before it deletes.
    private func confirmingRow(_ message: Message) -> Node {
        li(.class(rowClass(message) + " confirming"), .id("message-\(message.id)"), .data("id", message.id.description)) {
            div(.class("row-link")) { rowSummary(message) }
            postForm(here, token: token, .class("confirm")) {
                hiddenStateFields
                button(.type(.submit), .name("delete"), .value(message.id.description), .class("button destructive"),
                       .aria("label", "Confirm delete “\(message.subject)”"), .autofocus()) {
                    isTrash ? "Delete Permanently" : "Delete"
                }
            }
            a(.class("button"), .href(Paths.mailbox(mailbox.id, state.done))) { "Cancel" }
        }
    }

    // MARK: Editing (active)

    private var editingList: Node {
        postForm(here, token: token, .id("edit-form")) {
            // The form's default button: Enter in the form only brings the page up to date with
            // the ticks, instead of pressing Select All, the first visible button.
            // Empty, so a text browser (which shows hidden elements) has nothing to show either.
            button(.type(.submit), .name("action"), .value("update"), .hidden(), .aria("hidden", "true"), .id("action-update")) {
                ""
            }
            input(.type(.hidden), .name("mode"), .value("active"))
            placeFields
            selectEverything
            ul(.class("list editing"), .id("messages"), .aria("label", "Messages"), .data("revision", "\(slice.revision)")) {
                for (offset, message) in messages.enumerated() {
                    rows.row(message, .editing(
                        mailbox.id, selected: state.selection.contains(message.id),
                        first: isFirst(offset), last: isLast(offset), reorderable: !state.isSearch)) {
                        editingRow(message, offset: offset)
                    }
                }
            }
            // After the rows, as in Mail: tick, then act. Being after the checkboxes also lets
            // CSS counters show the live number of ticks in Delete (N).
            toolbar
        }
    }

    /// The heading's count as CSS sees the ticks right now, laid over the server's own count.
    ///
    /// A CSS counter only counts checkboxes before it in the document, so this copy of the
    /// header's title comes after the list and is moved up over the header by the stylesheet.
    /// Screen readers and browsers without CSS get the server's heading instead.
    private var liveCount: Node {
        div(.class("bar live-title"), .aria("hidden", "true"), .hidden()) {
            div(.class("bar-title")) {
                p(.class("bar-context")) { mailbox.name }
                p(.class("live-count live-selected")) { "" }
            }
        }
    }

    private var toolbar: Node {
        let selected = messages.filter { state.selection.contains($0.id) }
        let anyUnread = selected.contains { $0.isUnread }
        let allFlagged = !selected.isEmpty && selected.allSatisfy(\.isFlagged)
        let isEmpty = selected.isEmpty && allCount == nil
        return div(.class("toolbar"), .id("toolbar"), .role("toolbar"), .aria("label", "Selection")) {
            if state.allSelected(of: pageIDs) {
                button(.type(.submit), .name("action"), .value("deselect-all"), .class("button"), .id("action-deselect-all")) {
                    "Deselect All"
                }
            } else {
                button(.type(.submit), .name("action"), .value("select-all"), .class("button"), .id("action-select-all")) {
                    "Select All"
                }
            }
            if anyUnread || isEmpty {
                bulkButton("mark-read", "Mark Read")
            } else {
                bulkButton("mark-unread", "Mark Unread")
            }
            if allFlagged {
                bulkButton("unflag", "Unflag")
            } else {
                bulkButton("flag", "Flag")
            }
            if isTrash {
                bulkButton("restore", "Restore")
            } else if mailbox.id != .archive {
                bulkButton("archive", "Archive")
            }
            moveControl()
            // The server's count is the button's name; the stylesheet paints the live number of
            // ticks over it (Chromium leaves counters out of accessible names: "Delete ()").
            let label = isTrash ? "Delete Permanently" : "Delete"
            if let allCount {
                button(.type(.submit), .name("action"), .value("delete"), .class("button bulk destructive"),
                       .id("action-delete")) { "\(label) (\(Formatting.count(allCount)))" }
            } else {
                button(.type(.submit), .name("action"), .value("delete"), .class("button bulk destructive counted"),
                       .id("action-delete")) {
                    span(.class("server-count")) { "\(label) (\(Formatting.count(selected.count)))" }
                    span(.class("live-count"), .aria("hidden", "true"), .data("label", label)) { "" }
                }
            }
        }
    }

    /// Move to…: a choice of every other mailbox and a button to go.
    private func moveControl() -> Node {
        let targets = mailboxes.filter { $0.id != mailbox.id && $0.id != .trash }
        return span(.class("move-to")) {
            label(.for("move-target"), .class("visually-hidden")) { "Move selected messages to" }
            element("select", [.id("move-target"), .name("target")]) {
                for target in targets {
                    element("option", [.value(target.id.slug)]) { target.name }
                }
            }
            bulkButton("move-to", "Move")
        }
    }

    /// Never marked disabled by the server: ticks made since the page loaded are known only to
    /// the browser, so pressing the button may well act (with none ticked it says so). The
    /// stylesheet dims it while no box is ticked; the script marks it for assistive technology.
    private func bulkButton(_ action: String, _ text: String) -> Node {
        button(.type(.submit), .name("action"), .value(action), .class("button bulk"), .id("action-\(action)")) { text }
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
                if isTrash {
                    button(.type(.submit), .name("restore"), .value(id), .class("button"),
                           .aria("label", "Restore “\(message.subject)”")) { "Restore" }
                } else if !state.isSearch {
                    // A search shows matches newest first, not the mailbox's own order.
                    moveButtons(message, offset: offset)
                }
                button(.type(.submit), .name("delete"), .value(id), .class("button destructive"),
                       .aria("label", isTrash ? "Delete “\(message.subject)” permanently" : "Delete “\(message.subject)”")) {
                    isTrash ? "Delete Permanently" : "Delete"
                }
            }
        }
    }

    private func moveButtons(_ message: Message, offset: Int) -> Node {
        let id = message.id.description
        return .fragment([
                button(.type(.submit), .name("move-up"), .value(id), .class("button icon"), .disabled(isFirst(offset)),
                       .aria("label", "Move “\(message.subject)” up")) { "↑" },
                button(.type(.submit), .name("move-down"), .value(id), .class("button icon"),
                       .disabled(isLast(offset)),
                       .aria("label", "Move “\(message.subject)” down")) { "↓" },
        ])
    }

    // MARK: Shared pieces

    private func rowClass(_ message: Message) -> String {
        "row" + (message.isUnread ? " unread" : "") + (message.isFlagged ? " flagged" : "")
    }

    /// The parts are separated by spaces, which the flex and block layout drop on screen, so a
    /// text browser, a copy and paste or a screen reader's reading get words, not
    /// "UnreadMailroom07:47Welcome".
    private func rowSummary(_ message: Message) -> Node {
        span(.class("row-main")) {
            span(.class("row-top")) {
                span(.class("marks")) {
                    if message.isUnread { span(.class("unread-dot"), .title("Unread")) { span(.class("visually-hidden")) { "Unread" } } }
                    if message.isUnread && message.isFlagged { " " }
                    if message.isFlagged { span(.class("flag-mark"), .title("Flagged")) { span(.class("visually-hidden")) { "Flagged" } } }
                }
                " "
                strong(.class("author")) { message.author.isEmpty ? "Anonymous" : message.author }
                " "
                time(.datetime(Formatting.iso8601(message.createdAt))) {
                    Formatting.shortDate(message.createdAt, now: now)
                }
            }
            " "
            span(.class("subject")) { message.subject }
            if !message.body.isEmpty {
                " "
                span(.class("preview")) { Formatting.preview(message.body) }
            }
            if let details = rows.details(of: message.id) {
                " "
                mailDetails(details)
            }
        }
    }

    /// A mailed message's recipient, size and attachment mark, on a quieter line of its own
    /// under the sender and subject (which a phone thus still shows first).
    private func mailDetails(_ details: RowDetails) -> Node {
        span(.class("row-details")) {
            if let recipient = details.recipient {
                span(.class("recipient")) { "To \(recipient)" }
                " "
            }
            span(.class("size")) { Formatting.size(details.size) }
            if details.hasAttachments {
                " "
                // A picture with a name: the glyph for the eye, "Has attachments" for screen readers.
                span(.class("clip"), .role("img"), .aria("label", "Has attachments"), .title("Has attachments")) { "📎" }
            }
        }
    }

    /// Whether the row at `offset` on this page is the top of the whole list.
    private func isFirst(_ offset: Int) -> Bool { offset == 0 && !slice.hasNewer }

    /// Whether the row at `offset` on this page is the bottom of the whole list.
    private func isLast(_ offset: Int) -> Bool { offset == messages.count - 1 && !slice.hasOlder }

    /// Gmail's line: once the page is ticked, the whole list is one press away; once it is
    /// selected, the line says so and offers the way back.
    private var selectEverything: Node {
        guard isPaged, state.allSelected(of: pageIDs) || allCount != nil else { return .fragment([]) }
        return p(.class("select-everything"), .id("select-everything")) {
            if let allCount {
                span { state.isSearch
                    ? "All \(Formatting.count(allCount)) messages that match this search are selected. "
                    : "All \(Formatting.count(allCount)) messages in \(mailbox.name) are selected. " }
                a(.href(Paths.mailbox(mailbox.id, state.deselectingAll)), .id("clear-selection")) { "Clear selection" }
            } else {
                span { "All \(messages.count) on this page are selected. " }
                a(.href(Paths.mailbox(mailbox.id, state.selectingAll(pageIDs, asOf: slice.revision))), .id("select-all-everything")) {
                    if state.isSearch {
                        slice.totalIsAtLeast ? "Select all messages that match this search"
                            : "Select all \(Formatting.count(slice.total)) messages that match this search"
                    } else {
                        "Select all \(Formatting.count(slice.total)) messages in \(mailbox.name)"
                    }
                }
            }
        }
    }

    /// The page's place in the list (and "all N"), so the edit form's posts return to it.
    private var placeFields: Node {
        let fields = ListQuery.fields(for: state).fields.filter { $0.name != "mode" && $0.name != "selected" }
        return .fragment(fields.map { field in
            input(.type(.hidden), .name(field.name), .value(field.value))
        } + [
            // How many "all N" said, so the notice can tell how many were already gone.
            allCount.map { input(.type(.hidden), .name("all-count"), .value(String($0))) } ?? .fragment([]),
        ])
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
            postForm(here, token: token, .id("add-form")) {
                input(.type(.hidden), .name("action"), .value("add"))
                if !problems.isEmpty {
                    div(.class("form-errors"), .role("alert"), .id("form-errors")) {
                        ul { for problem in problems { li { problem } } }
                    }
                }
                label(.for("subject")) { "Subject" }
                // A refused form is at the end of the list: focus brings it and its problems on screen.
                input(.type(.text), .id("subject"), .name("subject"), .value(draft.subject),
                      .maxlength(Draft.maximumSubjectLength), .autocomplete("off"),
                      .aria("invalid", problems.isEmpty ? "false" : "true"), .autofocus(!problems.isEmpty))
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
