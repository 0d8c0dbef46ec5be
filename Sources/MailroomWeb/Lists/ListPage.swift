import HTML
import HTTP
import MailroomCore
import MailroomService
import MailroomStore

/// A mailbox's list, one page of it, rendered entirely from one `ListState`.
struct ListPage {
    let mailboxes: [MailboxSummary]
    let mailbox: MailboxSummary
    /// The tags in this mailbox, with their counts.
    var tags: [TagSummary] = []
    /// Whether Mailroom has a relay, so that Release… is offered.
    var canRelay = false
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

    var selectedCount: Int { allCount ?? state.selection.count }
    var messages: [Message] { slice.rows }
    var pageIDs: [MessageID] { slice.rows.map(\.id) }

    func render() -> [UInt8] {
        Layout.document(
            title: documentTitle, bodyClass: state.mode == .active ? "list-page editing" : "list-page",
            contentBytes: { rows.bytesServed }
        ) {
            Sidebar(mailboxes: mailboxes, current: mailbox.id, tags: tags).body
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

    var isTrash: Bool { mailbox.id == .trash }

    var documentTitle: String {
        state.mode == .active ? "\(selectionHeading) — \(mailbox.name) — Mailroom" : "\(mailbox.name) — Mailroom"
    }

    var selectionHeading: String {
        allCount.map { "All \(Formatting.count($0)) Selected" } ?? "\(selectedCount) Selected"
    }

    /// The search field (a GET form: a search is a place, not a change) and Mail's quick filters.
    var searchForm: Node {
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

    func filterLink(_ title: String, search: String, id: String) -> Node {
        var target = ListState.inactive
        target.search = search
        return a(.class("filter"), .id(id), .href(Paths.mailbox(mailbox.id, target)),
                 .aria("current", state.search == search ? "page" : "false")) { title }
    }

    var noResults: Node {
        div(.class("empty"), .id("no-results")) {
            h2 { "No results" }
            p { searchProblem == nil ? "No message in \(mailbox.name) matches “\(state.search)”." : "Nothing was searched." }
        }
    }

    /// Whether the list has more rows than this page shows.
    var isPaged: Bool { slice.hasNewer || slice.hasOlder }

    /// Newest, Newer and Older, by the keys of the rows at this page's edges.
    var pager: Node {
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
    var rangeText: String {
        let end = state.start + messages.count - 1
        return "\(Formatting.count(state.start))–\(Formatting.count(end)) of \(Formatting.count(slice.total))"
            + (slice.totalIsAtLeast ? "+" : "")
    }

    var here: String { Paths.mailbox(mailbox.id) }

    /// What just happened, with Undo right away when messages went to Trash.
    func noticeBanner(_ notice: Notice) -> Node {
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

    var unreadSummary: String {
        let unread = mailbox.unreadCount
        if state.isSearch {
            let found = slice.total == 1 ? "1 match" : "\(Formatting.count(slice.total))\(slice.totalIsAtLeast ? "+" : "") matches"
            return isPaged ? rangeText + " matches" : found
        }
        let total = isPaged ? rangeText : mailbox.count == 1 ? "1 message" : "\(Formatting.count(mailbox.count)) messages"
        return unread == 0 ? total : "\(total), \(Formatting.count(unread)) unread"
    }

    /// Edit while browsing, Done while editing or confirming; disabled when there is nothing to edit.
    var editButton: Node {
        if state.mode.isEditing {
            return a(.class("button bar-button"), .id("done"), .href(Paths.mailbox(mailbox.id, state.done))) { "Done" }
        }
        if mailbox.isEmpty {
            return button(.type(.button), .class("button bar-button"), .id("edit"), .disabled()) { "Edit" }
        }
        return a(.class("button bar-button"), .id("edit"), .href(Paths.mailbox(mailbox.id, state.editing(isEmpty: mailbox.isEmpty)))) { "Edit" }
    }

    var emptyState: Node {
        div(.class("empty"), .id("empty")) {
            h2 { "No messages" }
            p { isTrash ? "Trash is empty. Deleted messages wait here until you delete them for good."
                : "\(mailbox.name) is empty. Messages added or moved here will appear in this list." }
        }
    }

    var addForm: Node {
        let isOpen = !problems.isEmpty || mailbox.isEmpty
        return element("details", [.class("compose"), .id("compose"), .boolean("open", isOpen)]) {
            element("summary", [.class("button")]) { "New Message" }
            postForm(here, token: token, .id("add-form")) {
                input(.type(.hidden), .name("action"), .value("add"))
                DraftFields(draft: draft, problems: problems, asksForAuthor: true).body
                button(.type(.submit), .class("button primary")) { "Add Message" }
            }
        }
    }
}