import HTML
import MailroomCore
import MailroomStore

/// Which part of a mailed message the page shows: its HTML in a sandboxed frame (the default
/// when it has one), its text (the default when it has none), or its header block.
enum MailView: String {
    case text, html, headers

    /// The view `query` names, else the HTML when the message has one, else its text.
    init(query: String?, hasHTML: Bool) {
        self = query.flatMap(MailView.init(rawValue:)) ?? (hasHTML ? .html : .text)
    }
}

/// What the message page adds for a message that arrived over SMTP.
struct MailSection {
    let id: MessageID
    let details: MailDetails
    let view: MailView
    /// The header block as received, for the Headers view.
    let headerBlock: String?
    /// The parts the HTML shows inline (its `cid:` pictures): reachable, but not listed.
    var inlineParts: Set<Int> = []
    /// Whether the person asked, for this message and this view, to see its remote images.
    var remoteImages = false
    /// The database's content tag: links to stored bytes carry it, so that the browser may keep
    /// what they name for good (see `StoredContent`).
    var version = ""

    /// The attachments the list shows: every part but those the HTML shows inline.
    var listedAttachments: [StoredAttachment] {
        details.attachments.filter { !inlineParts.contains($0.part) }
    }

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
                element("dd", []) { time(.datetime(Formatting.iso8601(sent)), .data("style", "full")) { Formatting.longDate(sent) } }
            }
        }
    }

    /// Links between the views, and the raw message to download. Each names its view, so Text
    /// stays Text even for a message that opens on its HTML.
    var views: Node {
        element("nav", [.class("mail-views"), .aria("label", "Views of this message"), .id("mail-views")]) {
            if details.html != nil { viewLink(.html, "HTML") }
            viewLink(.text, "Text")
            viewLink(.headers, "Headers")
            a(.class("button"), .href(Paths.stored(Paths.rawMail(id), version: version)), .id("download-eml")) { "Download .eml" }
        }
    }

    private func viewLink(_ target: MailView, _ label: String) -> Node {
        let href = Paths.message(id) + "?keep=unread&view=" + target.rawValue
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
        case .html:
            guard let html = details.html else { return p(.class("muted")) { "This message has no HTML part." } }
            let frame = element("iframe", [
                .class("mail-html"), .id("mail-html"),
                .title(remoteImages ? "The message as HTML, with remote images shown" : "The message as HTML, with remote content blocked"),
                Attribute("src", Paths.stored(Paths.mailHTML(id), version: version) + (remoteImages ? "&" + MailHTML.remoteImagesQuery : "")),
                Attribute("sandbox", "allow-popups allow-popups-to-escape-sandbox"),
                Attribute("referrerpolicy", "no-referrer"), Attribute("loading", "lazy"),
            ]) {}
            guard MailHTML.refersToRemoteContent(html) else { return frame }
            return .fragment([remoteNotice, frame])
        case .headers:
            return element("pre", [.class("mail-source"), .id("mail-headers"), .aria("label", "Headers as received")]) {
                headerBlock ?? ""
            }
        }
    }

    /// Says that remote images were blocked and offers them, for this message only, on the
    /// person's own click: a link to this same view (a way of looking, so a GET), which works
    /// with the script off. Once shown, offers the way back.
    private var remoteNotice: Node {
        let base = Paths.message(id) + "?keep=unread&view=html"
        return p(.class("remote-notice"), .id("remote-notice")) {
            if remoteImages {
                span { "Remote images in this message are shown." }
                " "
                a(.class("button"), .href(base), .id("block-remote-images")) { "Block remote images" }
            } else {
                span { "Remote images in this message were blocked." }
                " "
                a(.class("button"), .href(base + "&" + MailHTML.remoteImagesQuery), .id("load-remote-images")) {
                    "Load remote images"
                }
            }
        }
    }

    var attachments: Node {
        let listed = listedAttachments
        return section(.class("attachments"), .aria("labelledby", "attachments-title"), .id("attachments")) {
            h2(.id("attachments-title")) { "\(listed.count) Attachment\(listed.count == 1 ? "" : "s")" }
            ul {
                for attachment in listed {
                    li {
                        a(.href(Paths.stored(Paths.mailPart(id, attachment.part), version: version)), .id("attachment-\(attachment.part)")) {
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
