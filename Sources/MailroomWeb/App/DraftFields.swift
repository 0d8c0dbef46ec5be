import HTML
import MailroomCore

/// The fields of a message being written, for the list's New Message and a message's Edit:
/// its problems first (announced, and focus goes to the subject so they are on screen), then
/// subject, the author when asked for, and body, all as typed.
struct DraftFields {
    let draft: Draft
    let problems: [String]
    var asksForAuthor = false
    var bodyRows = 4

    @HTMLBuilder var body: Node {
        if !problems.isEmpty {
            div(.class("form-errors"), .role("alert"), .id("form-errors")) {
                ul { for problem in problems { li { problem } } }
            }
        }
        label(.for("subject")) { "Subject" }
        input(.type(.text), .id("subject"), .name("subject"), .value(draft.subject),
              .maxlength(Draft.maximumSubjectLength), .autocomplete("off"),
              .aria("invalid", problems.isEmpty ? "false" : "true"), .autofocus(!problems.isEmpty))
        if asksForAuthor {
            label(.for("author")) { "From" }
            input(.type(.text), .id("author"), .name("author"), .value(draft.author),
                  .maxlength(Draft.maximumAuthorLength), .placeholder("Your name (optional)"),
                  .autocomplete("name"))
        }
        label(.for("body")) { "Message" }
        textarea(.id("body"), .name("body"), .rows(bodyRows), .maxlength(Draft.maximumBodyLength), text: draft.body)
    }
}
