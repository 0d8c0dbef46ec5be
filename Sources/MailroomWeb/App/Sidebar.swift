import HTML
import MailroomCore

/// Every mailbox with its unread count: a sidebar on wide screens, a row of tabs on a phone.
struct Sidebar {
    let mailboxes: [MailboxSummary]
    let current: MailboxID?
    /// The tags of the current mailbox's messages, with their counts there.
    var tags: [TagSummary] = []

    var body: Node {
        nav(.class("mailboxes"), .id("mailboxes"), .aria("label", "Mailboxes")) {
            ul {
                for mailbox in mailboxes {
                    li {
                        mailboxLink(mailbox)
                    }
                }
                li {
                    a(.class("manage"), .href(Paths.mailboxes), .id("manage-mailboxes")) { "Edit Mailboxes" }
                }
            }
            if let current, !tags.isEmpty {
                tagList(in: current)
            }
        }
    }

    /// Each tag links to the search for it in this mailbox, with how many messages here have it.
    private func tagList(in box: MailboxID) -> Node {
        let name = mailboxes[box]?.name ?? "this mailbox"
        return .fragment([
            h2(.class("tags-heading"), .id("tags-heading")) { "Tags" },
            ul(.class("tag-list"), .id("tags"), .aria("label", "Tags in \(name)")) {
                for tag in tags {
                    li {
                        a(.href(Paths.mailbox(box, search: Tag.search(for: tag.name))), .class("tag-link"), .data("tag", tag.name)) {
                            span(.class("tag-chip")) { tag.name }
                            " "
                            span(.class("tag-count")) { String(tag.count) }
                            span(.class("visually-hidden")) { tag.count == 1 ? " message" : " messages" }
                        }
                    }
                }
            },
        ])
    }

    private func mailboxLink(_ mailbox: MailboxSummary) -> Node {
        let unread = mailbox.unreadCount
        let isCurrent = mailbox.id == current
        return a(.href(Paths.mailbox(mailbox.id)), .class("mailbox-link"), .data("mailbox", mailbox.id.slug),
                 .aria("current", isCurrent ? "page" : "false")) {
            span(.class("mailbox-name")) { mailbox.name }
            if unread > 0 && mailbox.id != .trash {
                // Read as "Inbox 4 unread"; a name on a plain span is not allowed (ARIA 1.2).
                // The space separates the words in a text browser; flex layout drops it on screen.
                " "
                span(.class("unread-count")) { String(unread) }
                span(.class("visually-hidden")) { " unread" }
            }
        }
    }
}
