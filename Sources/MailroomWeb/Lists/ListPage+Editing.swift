import HTML
import HTTP
import MailroomCore
import MailroomService
import MailroomStore

/// Edit mode: the checkboxes, the toolbar and the fields that carry the selection.
extension ListPage {
    // MARK: Editing (active)

    var editingList: Node {
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
                rows.rows(of: messages, variant: { offset, id in
                    .editing(mailbox.id, selected: state.selection.contains(id),
                             first: isFirst(offset), last: isLast(offset), reorderable: !state.isSearch)
                }) { offset in
                    editingRow(messages[offset], offset: offset)
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
    var liveCount: Node {
        div(.class("bar live-title"), .aria("hidden", "true"), .hidden()) {
            div(.class("bar-title")) {
                p(.class("bar-context")) { mailbox.name }
                p(.class("live-count live-selected")) { "" }
            }
        }
    }

    var toolbar: Node {
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
            tagControl()
            if canRelay {
                bulkButton("release", "Release…")
            }
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
    func moveControl() -> Node {
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

    /// Tag and Untag: a name (known ones offered as the person types) and a button for each.
    func tagControl() -> Node {
        span(.class("tag-control")) {
            label(.for("tag-name"), .class("visually-hidden")) { "Tag to add to or take off the selected messages" }
            input(.type(.text), .id("tag-name"), .name("tag"), .placeholder("Tag"), .autocomplete("off"),
                  Attribute("list", "known-tags"), .maxlength(200))
            element("datalist", [.id("known-tags")]) {
                for tag in tags {
                    element("option", [.value(tag.name)]) { "" }
                }
            }
            bulkButton("tag", "Tag")
            bulkButton("untag", "Untag")
        }
    }

    /// Never marked disabled by the server: ticks made since the page loaded are known only to
    /// the browser, so pressing the button may well act (with none ticked it says so). The
    /// stylesheet dims it while no box is ticked; the script marks it for assistive technology.
    func bulkButton(_ action: String, _ text: String) -> Node {
        button(.type(.submit), .name("action"), .value(action), .class("button bulk"), .id("action-\(action)")) { text }
    }

    func editingRow(_ message: Message, offset: Int) -> Node {
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

    func moveButtons(_ message: Message, offset: Int) -> Node {
        let id = message.id.description
        return .fragment([
                button(.type(.submit), .name("move-up"), .value(id), .class("button icon"), .disabled(isFirst(offset)),
                       .aria("label", "Move “\(message.subject)” up")) { "↑" },
                button(.type(.submit), .name("move-down"), .value(id), .class("button icon"),
                       .disabled(isLast(offset)),
                       .aria("label", "Move “\(message.subject)” down")) { "↓" },
        ])
    }


    /// Gmail's line: once the page is ticked, the whole list is one press away; once it is
    /// selected, the line says so and offers the way back.
    var selectEverything: Node {
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
    var placeFields: Node {
        let fields = ListQuery.fields(for: state).fields.filter { $0.name != "mode" && $0.name != "selected" }
        return .fragment(fields.map { field in
            input(.type(.hidden), .name(field.name), .value(field.value))
        } + [
            // How many "all N" said, so the notice can tell how many were already gone.
            allCount.map { input(.type(.hidden), .name("all-count"), .value(String($0))) } ?? .fragment([]),
        ])
    }

    /// The current state as hidden fields, so a post returns to it.
    var hiddenStateFields: Node {
        .fragment(ListQuery.fields(for: state).fields.map { field in
            input(.type(.hidden), .name(field.name), .value(field.value))
        })
    }
}
