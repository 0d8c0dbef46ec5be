import HTML
import HTTP
import MailroomCore
import MailroomService
import MailroomStore

/// The rows: as links while browsing, with a confirmation in place of a swipe, and the parts
/// every row shares.
extension ListPage {
    // MARK: Browsing (inactive and transient)

    var browsingList: Node {
        let pending = state.mode.pendingRow
        let browsing = RowCache.Variant.browsing(mailbox.id)
        return ul(.class("list"), .id("messages"), .aria("label", "Messages"), .data("revision", "\(slice.revision)")) {
            rows.rows(of: messages, variant: { $1 == pending ? nil : browsing }) { offset in
                messages[offset].id == pending ? confirmingRow(messages[offset]) : browsingRow(messages[offset])
            }
        }
    }

    func browsingRow(_ message: Message) -> Node {
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
    func confirmingRow(_ message: Message) -> Node {
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

    // MARK: Shared pieces

    func rowClass(_ message: Message) -> String {
        "row" + (message.isUnread ? " unread" : "") + (message.isFlagged ? " flagged" : "")
    }

    /// The parts are separated by spaces, which the flex and block layout drop on screen, so a
    /// text browser, a copy and paste or a screen reader's reading get words, not
    /// "UnreadMailroom07:47Welcome".
    func rowSummary(_ message: Message) -> Node {
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
            if !message.tags.isEmpty {
                " "
                tagChips(message.tags)
            }
            if let details = rows.details(of: message.id) {
                " "
                mailDetails(details)
            }
        }
    }

    /// A row's tags, as plain chips: the row is a link or a checkbox's label already.
    func tagChips(_ tags: [String]) -> Node {
        span(.class("row-tags")) {
            span(.class("visually-hidden")) { "Tags: " }
            for (index, tag) in tags.enumerated() {
                if index > 0 { " " }
                span(.class("tag-chip")) { tag }
            }
        }
    }

    /// A mailed message's recipient, size and attachment mark, on a quieter line of its own
    /// under the sender and subject (which a phone thus still shows first).
    func mailDetails(_ details: RowDetails) -> Node {
        span(.class("row-details")) {
            if let recipient = details.recipient {
                span(.class("recipient")) { "To \(recipient)" }
                " "
            }
            span(.class("size")) { Formatting.size(details.size) }
            if details.isRelayed {
                " "
                span(.class("relayed"), .title("Passed on to the relay as it arrived")) { "Relayed" }
            }
            if details.hasAttachments {
                " "
                // A picture with a name: the glyph for the eye, "Has attachments" for screen readers.
                span(.class("clip"), .role("img"), .aria("label", "Has attachments"), .title("Has attachments")) { "📎" }
            }
        }
    }

    /// Whether the row at `offset` on this page is the top of the whole list.
    func isFirst(_ offset: Int) -> Bool { offset == 0 && !slice.hasNewer }

    /// Whether the row at `offset` on this page is the bottom of the whole list.
    func isLast(_ offset: Int) -> Bool { offset == messages.count - 1 && !slice.hasOlder }
}
