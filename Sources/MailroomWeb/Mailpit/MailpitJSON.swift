import CivilDate
import HTTP
import MailroomCore
import MailroomMail
import MailroomStore

/// Mailpit's JSON shapes, filled from what Mailroom keeps. Names and casing are Mailpit's;
/// lists are always arrays (Mailpit sometimes sends null for an empty one; its clients take []).
enum MailpitJSON {
    /// RFC 3339 with the offset written out, as Python's `fromisoformat` and Go read it.
    static func time(_ seconds: Int64) -> String {
        String(UTCTime(secondsSinceEpoch: seconds).iso8601.dropLast()) + "+00:00"
    }

    static func address(_ address: Address) -> JSON {
        .object([("Name", .string(address.name)), ("Address", .string(address.address))])
    }

    static func addresses(_ list: [Address]) -> JSON {
        .array(list.map(address))
    }

    /// What a message's headers and envelope say of who sent it and to whom. `Bcc` holds the
    /// envelope recipients no header names, as Mailpit adds them.
    struct People {
        var from: Address
        var to: [Address]
        var cc: [Address]
        var bcc: [Address]
        var returnPath: String

        init(_ message: Message, _ mail: MailSummary?) {
            guard let mail else {
                from = Address(name: message.author, address: "")
                to = []
                cc = []
                bcc = []
                returnPath = ""
                return
            }
            from = Address.first(mail.fromHeader)
            to = Address.list(mail.toHeader)
            cc = Address.list(mail.ccHeader)
            let named = Set((to + cc).map { $0.address.lowercased() })
            bcc = mail.envelopeTo.filter { !named.contains($0.lowercased()) }.map { Address(name: "", address: $0) }
            returnPath = mail.envelopeFrom.isEmpty ? from.address : mail.envelopeFrom
        }
    }

    /// The fields a summary and a whole message both begin with.
    private static func identity(_ message: Message, _ mail: MailSummary?, _ people: People) -> [(String, JSON)] {
        [
            ("ID", .string(String(message.id.rawValue))),
            ("MessageID", .string(messageID(mail?.messageID))),
            ("Read", .bool(!message.isUnread)),
            ("From", address(people.from)),
            ("To", addresses(people.to)),
            ("Cc", addresses(people.cc)),
            ("Bcc", addresses(people.bcc)),
            ("ReplyTo", .array([])),
        ]
    }

    /// A row of `messages` in a list or search.
    static func summary(_ message: Message, _ mail: MailSummary?) -> JSON {
        .object(identity(message, mail, People(message, mail)) + [
            ("Subject", .string(message.subject)),
            ("Created", .string(time(message.createdAt))),
            ("Username", .string("")),
            ("Tags", .array(message.tags.map { .string($0) })),
            ("Size", .int(mail?.size ?? message.body.utf8.count)),
            ("Attachments", .int(mail?.attachments ?? 0)),
            ("Snippet", .string(snippet(message.body))),
        ])
    }

    /// Mailpit's list envelope: the mailbox's counts (kept counters), the matches' count, and
    /// where this page starts.
    static func list(
        _ rows: [JSON], inbox: MailboxSummary, matches: Int, unreadMatches: Int, start: Int, tags: [TagSummary]
    ) -> JSON {
        .object([
            ("total", .int(inbox.count)),
            ("unread", .int(inbox.unreadCount)),
            ("count", .int(rows.count)),
            ("messages_count", .int(matches)),
            ("messages_unread", .int(unreadMatches)),
            ("start", .int(start)),
            ("tags", .array(tags.map { .string($0.name) })),
            ("messages", .array(rows)),
        ])
    }

    /// One message in full (`GET /api/v1/message/ID`), as read after it was marked read.
    static func message(
        _ message: Message, _ mail: MailSummary?, details: MailDetails?, inline: Set<Int>
    ) -> JSON {
        let people = People(message, mail)
        let parts = details?.attachments ?? []
        return .object(identity(message, mail, people) + [
            ("ReturnPath", .string(people.returnPath)),
            ("Subject", .string(message.subject)),
            ("ListUnsubscribe", .object([
                ("Header", .string("")), ("Links", .array([])), ("Errors", .string("")), ("HeaderPost", .string("")),
            ])),
            ("Date", .string(time(details?.sentAt ?? message.createdAt))),
            ("Tags", .array(message.tags.map { .string($0) })),
            ("Username", .string("")),
            ("Text", .string(message.body)),
            ("HTML", .string(details?.html ?? "")),
            ("Size", .int(mail?.size ?? message.body.utf8.count)),
            ("Inline", .array(parts.filter { inline.contains($0.part) }.map(attachment))),
            ("Attachments", .array(parts.filter { !inline.contains($0.part) }.map(attachment))),
        ])
    }

    static func attachment(_ part: StoredAttachment) -> JSON {
        let type = part.type.split(separator: ";").first.map { $0.trimmingCharacters(in: " \t") } ?? part.type
        return .object([
            ("PartID", .string(String(part.part))),
            ("FileName", .string(part.name ?? part.contentID ?? "")),
            ("ContentType", .string(type)),
            ("ContentID", .string(part.contentID ?? "")),
            ("Size", .int(part.size)),
        ])
    }

    /// The Message-ID without its angle brackets.
    static func messageID(_ text: String?) -> String {
        guard var text else { return "" }
        if text.hasPrefix("<") { text.removeFirst() }
        if text.hasSuffix(">") { text.removeLast() }
        return text
    }

    /// Up to 200 bytes of the text with its white space run together, `...` when cut. Works on
    /// bytes and stops early: a list reads fifty of these, and a body may be long.
    static func snippet(_ body: String) -> String {
        let start = Formatting.collapsed(body, limit: 200)
        var output = start.bytes
        guard start.truncated else { return String(decoding: output, as: UTF8.self) }
        // Back to the start of a character: never half of one.
        if output.count > 200 { output.removeSubrange(200...) }
        if var start = output.indices.last {
            while start > 0 && output[start] & 0xC0 == 0x80 { start -= 1 }
            let lead = output[start]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            if start + length > output.count { output.removeSubrange(start...) }
        }
        return String(decoding: output, as: UTF8.self) + "..."
    }

    /// A message's header fields as Mailpit's `/headers` gives them: each name in Go's
    /// canonical form (`Message-Id`), its values in order, folded lines joined; names sorted.
    /// Read by the same field reader as the MailHog door's.
    static func headers(_ raw: [UInt8]) -> JSON {
        var grouped: [String: [JSON]] = [:]
        for field in MailHogPart(raw).headers {
            grouped[canonical(Substring(field.name)), default: []] += field.values.map(JSON.string)
        }
        return .object(grouped.keys.sorted().map { ($0, .array(grouped[$0] ?? [])) })
    }

    /// `content-type` → `Content-Type`, `MESSAGE-ID` → `Message-Id`.
    static func canonical(_ name: Substring) -> String {
        var out = ""
        var upper = true
        for character in name.trimmingCharacters(in: " \t") {
            out += upper ? character.uppercased() : character.lowercased()
            upper = character == "-"
        }
        return out
    }
}
