import HTML
import MailroomCore

/// A page of its own that asks before something is destroyed or removed.
struct ConfirmPage {
    let mailboxes: [MailboxSummary]
    let heading: String
    let explanation: String
    let action: String
    let confirmLabel: String
    let cancelPath: String
    let token: String?

    func render() -> [UInt8] {
        Layout.document(title: "\(heading) — Mailroom", bodyClass: "confirm-page") {
            Sidebar(mailboxes: mailboxes, current: nil).body
            header(.class("bar")) { div(.class("bar-title")) { h1 { heading } } }
            main(.id("content")) {
                div(.class("confirmation")) {
                    p(.id("confirm-question")) { explanation }
                    postForm(action, token: token, .class("confirm")) {
                        input(.type(.hidden), .name("confirm"), .value("yes"))
                        button(.type(.submit), .class("button destructive"), .id("confirm")) { confirmLabel }
                        a(.class("button"), .href(cancelPath), .id("cancel")) { "Cancel" }
                    }
                }
            }
        }
    }
}
