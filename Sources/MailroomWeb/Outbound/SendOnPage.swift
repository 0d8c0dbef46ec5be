import HTML
import MailroomCore
import MailroomService

/// Release… (a selection from a list) and Forward… (one message): which mail goes where,
/// asked before anything is queued, with the addresses typed kept when they are refused.
struct SendOnPage {
    let mailboxes: [MailboxSummary]
    let heading: String
    /// Subjects of what will be sent, the first few of them.
    let subjects: [String]
    let count: Int
    let action: String
    /// Fields that say which messages (the list's state, or where the message was shown).
    let fields: [(String, String)]
    let buttonLabel: String
    let cancelPath: String
    let token: String?
    var to = ""
    var problem: String?
    /// The allow-list's patterns, shown so the person knows what will be accepted.
    var allowed: [String] = []

    func render() -> [UInt8] {
        Layout.document(title: "\(heading) — Mailroom", bodyClass: "confirm-page send-on") {
            Sidebar(mailboxes: mailboxes, current: nil).body
            header(.class("bar")) { div(.class("bar-title")) { h1 { heading } } }
            main(.id("content")) {
                div(.class("confirmation")) {
                    p(.id("send-on-what")) {
                        count == 1 ? "This message goes out through the relay, byte for byte as it arrived:"
                            : "These \(count) messages go out through the relay, byte for byte as they arrived:"
                    }
                    ul(.class("send-on-subjects"), .id("send-on-subjects")) {
                        for subject in subjects { li { subject } }
                        if count > subjects.count { li(.class("muted")) { "and \(count - subjects.count) more" } }
                    }
                    if let problem {
                        p(.class("search-problem"), .role("alert"), .id("send-on-problem")) { problem }
                    }
                    postForm(action, token: token, .class("send-on-form"), .id("send-on-form")) {
                        for (name, value) in fields {
                            input(.type(.hidden), .name(name), .value(value))
                        }
                        label(.for("send-on-to")) { "To" }
                        input(.type(.text), .id("send-on-to"), .name("to"), .value(to), .autocomplete("off"),
                              .placeholder("name@example.com, another@example.com"), .maxlength(4_000), .required(),
                              .aria("describedby", "send-on-allowed"))
                        p(.class("muted"), .id("send-on-allowed")) {
                            allowed.isEmpty ? "No address is allowed (--relay-allow-to)."
                                : "Allowed: addresses matching " + allowed.joined(separator: " or ") + "."
                        }
                        button(.type(.submit), .class("button primary"), .id("send-on")) { buttonLabel }
                        " "
                        a(.class("button"), .href(cancelPath), .id("cancel")) { "Cancel" }
                    }
                }
            }
        }
    }
}
