import HTML
import MailroomCore
import MailroomService

/// Create, rename and delete people's own mailboxes.
struct MailboxesPage {
    let mailboxes: [MailboxSummary]
    let notice: Notice?
    let token: String?
    /// Offers Sign Out when Mailroom has a password.
    var signsOut = false
    /// A refused name, kept with its problem; `target` nil means the create form.
    var refused: (target: MailboxID?, name: String, problem: String)?
    /// The addresses each mailbox receives mail for.
    var addresses: [MailboxID: [String]] = [:]
    /// Refused addresses, kept as typed with their problem.
    var refusedAddresses: (target: MailboxID, typed: String, problem: String)?

    func render() -> [UInt8] {
        Layout.document(title: "Mailboxes — Mailroom", bodyClass: "mailboxes-page") {
            Sidebar(mailboxes: mailboxes, current: nil).body
            header(.class("bar")) {
                div(.class("bar-title")) { h1 { "Mailboxes" } }
                a(.class("button bar-button"), .href(Paths.inbox), .id("done")) { "Done" }
            }
            main(.id("content")) {
                if let notice {
                    div(.class("notice"), .role("status"), .id("notice")) { span { notice.text(in: mailboxes) } }
                }
                // Built-in mailboxes have no form of their own to show a refusal in.
                if let target = refused?.target, target.isSystem {
                    problem(for: target)
                }
                ul(.class("list mailbox-list"), .id("mailbox-list")) {
                    for mailbox in mailboxes {
                        li(.class("row"), .data("mailbox", mailbox.id.slug)) {
                            if mailbox.id.isSystem {
                                a(.class("row-link"), .href(Paths.mailbox(mailbox.id))) {
                                    span(.class("row-main")) {
                                        span(.class("subject")) { mailbox.name }
                                        span(.class("preview")) { Notice.messages(mailbox.count) }
                                    }
                                }
                            } else {
                                renameForm(mailbox)
                                a(.class("button destructive"), .href(Paths.deleteMailbox(mailbox.id)),
                                  .aria("label", "Delete mailbox “\(mailbox.name)”")) { "Delete…" }
                            }
                        }
                    }
                }
                postForm(Paths.mailboxes, token: token, .class("compose open"), .id("create-mailbox")) {
                    h2 { "New Mailbox" }
                    input(.type(.hidden), .name("action"), .value("create"))
                    problem(for: nil)
                    label(.for("mailbox-name")) { "Name" }
                    input(.type(.text), .id("mailbox-name"), .name("name"), .maxlength(Library.maximumNameLength),
                          .value(refused?.target == nil ? refused?.name ?? "" : ""), .autocomplete("off"),
                          .aria("invalid", isRefused(nil) ? "true" : "false"), .autofocus(isRefused(nil)))
                    button(.type(.submit), .class("button primary")) { "Create Mailbox" }
                }
                section(.class("compose open"), .id("routing"), .aria("labelledby", "routing-title")) {
                    h2(.id("routing-title")) { "Mail Addresses" }
                    p(.class("muted")) {
                        "Mail over SMTP goes to each mailbox that one of its recipients names: an address listed "
                            + "here (exact, or *@domain for a whole domain), or a local part or +tag equal to the "
                            + "mailbox’s name (alerts@… or ops+alerts@… for “Alerts”). Everything else goes to the Inbox."
                    }
                    for mailbox in mailboxes where mailbox.id != .trash {
                        addressForm(mailbox)
                    }
                }
                if signsOut {
                    postForm(Paths.signOut, token: token, .id("signout-form")) {
                        button(.type(.submit), .class("button"), .id("signout")) { "Sign Out" }
                    }
                }
            }
        }
    }

    private func renameForm(_ mailbox: MailboxSummary) -> Node {
        let fieldID = "name-\(mailbox.id.slug)"
        let typed = refused?.target == mailbox.id ? refused?.name ?? mailbox.name : mailbox.name
        return postForm(Paths.mailboxes, token: token, .class("rename")) {
            input(.type(.hidden), .name("action"), .value("rename"))
            input(.type(.hidden), .name("mailbox"), .value(mailbox.id.slug))
            problem(for: mailbox.id)
            label(.for(fieldID), .class("visually-hidden")) { "Name of mailbox “\(mailbox.name)”" }
            input(.type(.text), .id(fieldID), .name("name"), .value(typed), .maxlength(Library.maximumNameLength),
                  .aria("invalid", isRefused(mailbox.id) ? "true" : "false"), .autofocus(isRefused(mailbox.id)))
            button(.type(.submit), .class("button")) { "Rename" }
            a(.class("button"), .href(Paths.mailbox(mailbox.id))) { "Open" }
        }
    }

    private func addressForm(_ mailbox: MailboxSummary) -> Node {
        let fieldID = "addresses-\(mailbox.id.slug)"
        let refusal = refusedAddresses?.target == mailbox.id ? refusedAddresses : nil
        let typed = refusal?.typed ?? (addresses[mailbox.id] ?? []).joined(separator: ", ")
        return postForm(Paths.mailboxes, token: token, .class("addresses"), .id("route-\(mailbox.id.slug)")) {
            input(.type(.hidden), .name("action"), .value("addresses"))
            input(.type(.hidden), .name("mailbox"), .value(mailbox.id.slug))
            if let refusal {
                div(.class("form-errors"), .role("alert"), .id("form-errors")) { p { refusal.problem } }
            }
            label(.for(fieldID)) { "\(mailbox.name) receives" }
            input(.type(.text), .id(fieldID), .name("addresses"), .value(typed), .maxlength(2_000), .autocomplete("off"),
                  .placeholder("scanner@office.test, *@ci.example.test"),
                  .aria("invalid", refusal == nil ? "false" : "true"), .autofocus(refusal != nil))
            button(.type(.submit), .class("button")) { "Save" }
        }
    }

    /// Whether the name typed for `target` (nil: the create form) was refused.
    private func isRefused(_ target: MailboxID?) -> Bool {
        refused.map { $0.target == target } ?? false
    }

    private func problem(for target: MailboxID?) -> Node {
        guard let refused, refused.target == target else { return .empty }
        return div(.class("form-errors"), .role("alert"), .id("form-errors")) { p { refused.problem } }
    }
}
