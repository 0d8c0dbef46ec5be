import HTML
import MailroomCore
import MailroomService
import MailroomStore

/// One message in full, with its actions and a form to edit it.
struct MessagePage {
    let mailboxes: [MailboxSummary]
    let message: Message
    /// The mailbox the message is in, for the back link and the actions it offers.
    let mailbox: MailboxSummary
    let notice: Notice?
    let token: String?
    /// What the person typed into the edit form, kept when it was refused.
    var draft: Draft?
    var problems: [String] = []
    /// What a message that arrived over SMTP adds: addresses, views, attachments.
    var mail: MailSection?
    /// Whether Mailroom has a relay, so that Forward… is offered.
    var canRelay = false
    /// Where the message was sent on to, and how each went.
    var outbound: [OutboundRow] = []

    func render() -> [UInt8] {
        let shown = draft ?? Draft(subject: message.subject, body: message.body)
        return Layout.document(title: "\(message.subject) — Mailroom", bodyClass: "message-page") {
            Sidebar(mailboxes: mailboxes, current: mailbox.id).body
            header(.class("bar")) {
                a(.class("button bar-button back"), .href(Paths.mailbox(mailbox.id)), .id("back")) { "‹ \(mailbox.name)" }
                postForm(Paths.message(message.id), token: token, .class("bar-actions")) {
                    input(.type(.hidden), .name("from"), .value(mailbox.id.slug))
                    if message.isUnread {
                        button(.type(.submit), .name("action"), .value("mark-read"), .class("button")) { "Mark Read" }
                    } else {
                        button(.type(.submit), .name("action"), .value("mark-unread"), .class("button")) { "Mark Unread" }
                    }
                    if message.isFlagged {
                        button(.type(.submit), .name("action"), .value("unflag"), .class("button")) { "Unflag" }
                    } else {
                        button(.type(.submit), .name("action"), .value("flag"), .class("button")) { "Flag" }
                    }
                    if mailbox.id == .trash {
                        button(.type(.submit), .name("action"), .value("restore"), .class("button")) { "Restore" }
                    } else if mailbox.id != .archive {
                        button(.type(.submit), .name("action"), .value("archive"), .class("button")) { "Archive" }
                    }
                    button(.type(.submit), .name("action"), .value("delete"), .class("button destructive")) {
                        mailbox.id == .trash ? "Delete Permanently" : "Delete"
                    }
                }
            }
            main(.id("content")) {
                if let notice {
                    div(.class("notice"), .role("status"), .id("notice")) { span { notice.text(in: mailboxes) } }
                }
                element("article", [.class("message" + (message.isFlagged ? " flagged" : "")), .id("message")]) {
                    h1(.class("message-subject")) { message.subject }
                    p(.class("message-meta")) {
                        strong(.class("author")) { message.author.isEmpty ? "Anonymous" : message.author }
                        " · "
                        time(.datetime(Formatting.iso8601(message.createdAt)), .data("style", "full")) { Formatting.longDate(message.createdAt) }
                        if message.isFlagged { " · Flagged" }
                        if message.isUnread { " · Unread" }
                    }
                    tagSection
                    if let mail {
                        mail.addresses
                        mail.views
                    }
                    if let shown = mail?.shown {
                        shown
                    } else {
                        messageBody
                    }
                    if let mail, !mail.listedAttachments.isEmpty {
                        mail.attachments
                    }
                    if canRelay {
                        p(.class("forward")) { a(.class("button"), .href(Paths.forward(message.id)), .id("forward")) { "Forward…" } }
                    }
                    if !outbound.isEmpty {
                        outboundHistory
                    }
                }
                if mail == nil {
                    editForm(shown)
                }
            }
        }
    }

    /// The message's tags, each a link to the search for it in this mailbox, and a form to
    /// give it a tag or take one off.
    private var tagSection: Node {
        div(.class("message-tags"), .id("message-tags")) {
            if !message.tags.isEmpty {
                ul(.class("tag-list"), .aria("label", "Tags")) {
                    for tag in message.tags {
                        li {
                            a(.href(Paths.mailbox(mailbox.id, search: Tag.search(for: tag))), .class("tag-chip")) { tag }
                        }
                    }
                }
            }
            postForm(Paths.message(message.id), token: token, .class("tag-form"), .id("tag-form")) {
                input(.type(.hidden), .name("from"), .value(mailbox.id.slug))
                label(.for("message-tag"), .class("visually-hidden")) { "Tag" }
                input(.type(.text), .id("message-tag"), .name("tag"), .placeholder("Tag"), .autocomplete("off"), .maxlength(200))
                button(.type(.submit), .name("action"), .value("tag"), .class("button")) { "Tag" }
                if !message.tags.isEmpty {
                    button(.type(.submit), .name("action"), .value("untag"), .class("button")) { "Untag" }
                }
            }
        }
    }

    /// Each recipient this message was sent on to: when, why, and what the relay said.
    private var outboundHistory: Node {
        element("section", [.class("outbound"), .id("outbound"), .aria("labelledby", "outbound-heading")]) {
            h2(.id("outbound-heading")) { "Sent on" }
            ul(.class("outbound-list")) {
                for row in outbound {
                    li(.class("outbound-row " + row.state.rawValue), .data("state", row.isDeferred ? "deferred" : row.state.rawValue)) {
                        strong { row.recipient }
                        " · "
                        span(.class("outbound-state")) { Self.describe(row) }
                        " · "
                        time(.datetime(Formatting.iso8601(row.updatedAt))) { Formatting.longDate(row.updatedAt) }
                        if !row.reply.isEmpty {
                            " "
                            span(.class("outbound-reply muted")) { row.reply }
                        }
                    }
                }
            }
        }
    }

    static func describe(_ row: OutboundRow) -> String {
        let why = switch row.cause {
        case "forward": "forwarded"
        case "relay": "relayed on arrival"
        default: "released"
        }
        return switch row.state {
        case .queued where row.attempts > 0: "\(why), deferred after \(row.attempts) tr\(row.attempts == 1 ? "y" : "ies"); next try at "
            + Formatting.longDate(row.nextAttempt)
        case .queued: "\(why), queued"
        case .sending: "\(why), being sent"
        case .sent: "\(why), sent"
        case .failed: "\(why), failed"
        }
    }

    private var messageBody: Node {
        div(.class("message-body")) {
            if message.body.isEmpty {
                p(.class("muted")) { "No message body." }
            } else {
                for paragraph in message.body.split(separator: "\n", omittingEmptySubsequences: false) {
                    p { String(paragraph) }
                }
            }
        }
    }

    private func editForm(_ shown: Draft) -> Node {
        element("details", [.class("compose"), .id("edit-message"), .boolean("open", !problems.isEmpty)]) {
            element("summary", [.class("button")]) { "Edit Message" }
            postForm(Paths.message(message.id), token: token, .id("save-form")) {
                input(.type(.hidden), .name("from"), .value(mailbox.id.slug))
                input(.type(.hidden), .name("action"), .value("save"))
                DraftFields(draft: shown, problems: problems, bodyRows: 8).body
                button(.type(.submit), .class("button primary")) { "Save" }
            }
        }
    }
}
