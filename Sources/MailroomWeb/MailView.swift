import HTML
import MailroomCore
import MailroomStore

/// Which part of a mailed message the page shows: its text (first, always the default), its
/// HTML in a sandboxed frame, or its header block.
enum MailView: String {
    case text, html, headers

    init(query: String?) {
        self = query.flatMap(MailView.init(rawValue:)) ?? .text
    }
}

/// What the message page adds for a message that arrived over SMTP.
struct MailSection {
    let id: MessageID
    let details: MailDetails
    let view: MailView
    /// The header block as received, for the Headers view.
    let headerBlock: String?

    /// From, To, Cc and Date, as the sender's headers give them.
    var addresses: Node {
        element("dl", [.class("mail-addresses"), .id("mail-addresses")]) {
            if !details.fromHeader.isEmpty {
                element("dt", []) { "From" }
                element("dd", []) { details.fromHeader }
            }
            element("dt", []) { "To" }
            element("dd", []) { details.toHeader.isEmpty ? details.envelopeTo.joined(separator: ", ") : details.toHeader }
            if !details.ccHeader.isEmpty {
                element("dt", []) { "Cc" }
                element("dd", []) { details.ccHeader }
            }
            if let sent = details.sentAt {
                element("dt", []) { "Date" }
                element("dd", []) { time(.datetime(Formatting.iso8601(sent))) { Formatting.longDate(sent) } }
            }
        }
    }

    /// Links between the views, and the raw message to download.
    var views: Node {
        element("nav", [.class("mail-views"), .aria("label", "Views of this message"), .id("mail-views")]) {
            viewLink(.text, "Text")
            if details.html != nil { viewLink(.html, "HTML") }
            viewLink(.headers, "Headers")
            a(.class("button"), .href(Paths.rawMail(id)), .id("download-eml")) { "Download .eml" }
        }
    }

    private func viewLink(_ target: MailView, _ label: String) -> Node {
        let href = target == .text ? Paths.message(id) + "?keep=unread" : Paths.message(id) + "?keep=unread&view=" + target.rawValue
        if target == view {
            return a(.class("button current"), .href(href), .aria("current", "page"), .id("view-\(target.rawValue)")) { label }
        }
        return a(.class("button"), .href(href), .id("view-\(target.rawValue)")) { label }
    }

    /// The HTML view's frame, or the header block; nil for the text view, which the page shows.
    var shown: Node? {
        switch view {
        case .text:
            return nil
        case .html where details.html != nil:
            return element("iframe", [
                .class("mail-html"), .id("mail-html"), .title("The message as HTML, with remote content blocked"),
                Attribute("src", Paths.mailHTML(id)), Attribute("sandbox", "allow-popups allow-popups-to-escape-sandbox"),
                Attribute("referrerpolicy", "no-referrer"), Attribute("loading", "lazy"),
            ]) {}
        case .html:
            return p(.class("muted")) { "This message has no HTML part." }
        case .headers:
            return element("pre", [.class("mail-source"), .id("mail-headers"), .aria("label", "Headers as received")]) {
                headerBlock ?? ""
            }
        }
    }

    var attachments: Node {
        section(.class("attachments"), .aria("labelledby", "attachments-title"), .id("attachments")) {
            h2(.id("attachments-title")) { "\(details.attachments.count) Attachment\(details.attachments.count == 1 ? "" : "s")" }
            ul {
                for attachment in details.attachments {
                    li {
                        a(.href(Paths.mailPart(id, attachment.part)), .id("attachment-\(attachment.part)")) {
                            attachment.name ?? "Attachment \(attachment.part + 1)"
                        }
                        span(.class("muted")) { " \(attachment.type), \(Formatting.byteCount(attachment.size))" }
                    }
                }
            }
        }
    }

    /// The lines before the first empty one: the header block, as text.
    static func headerBlock(of raw: [UInt8]) -> String {
        var end = raw.count
        var index = 0
        while index < raw.count {
            if raw[index] == 10 {
                let next = index + 1
                if next < raw.count && raw[next] == 10 { end = next; break }
                if next + 1 < raw.count && raw[next] == 13 && raw[next + 1] == 10 { end = next; break }
            }
            index += 1
        }
        let block = raw[..<min(end, 1 << 20)].filter { $0 != 13 }
        return String(decoding: block, as: UTF8.self)
    }
}
