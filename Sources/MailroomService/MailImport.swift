import MailroomCore
import MailroomMail
import MailroomStore

/// What `mailroom import` and `POST /api/v1/import` share: a message read, parsed as SMTP mail
/// is, and stored in the mailbox named, unless it was imported before (`ImportKey`: the same
/// bytes, but for what an mbox export adds).
public enum MailImport {
    /// Parses one message (on the calling thread). Its time in the list is its Date, else `now`.
    /// Its state comes from the caller (a Maildir's flags), else from the `Status: RO` and
    /// `X-Status: F` headers that mbox readers write, else unread.
    public static func prepare(_ raw: [UInt8], sender: String?, isUnread: Bool? = nil, isFlagged: Bool? = nil, now: Int64) -> ImportedMail {
        let mail = Mailroom.incoming(raw, from: sender ?? "", to: [], peer: "import")
        let state = isUnread == nil || isFlagged == nil ? Self.mboxState(raw) : (isUnread: true, isFlagged: false)
        let keys = ImportKey.keys(for: raw)
        return ImportedMail(
            mail: mail, key: keys.key, time: mail.sentAt ?? now,
            isUnread: isUnread ?? state.isUnread, isFlagged: isFlagged ?? state.isFlagged, formerKeys: keys.former)
    }

    /// Why `what` (a file's name, or "The body") is not imported when it is `MailFile.other`, and
    /// `remedy`: how to import it as one message all the same.
    public static func notMail(_ what: String, remedy: String) -> String {
        "\(what) is neither an mbox file (it does not start with a \"From \" line) nor a mail message (it has no "
            + "header such as From: or Subject:), so nothing was imported. \(remedy)"
    }

    /// Stores `messages` at the top of `box`, in order: how many were added and how many skipped.
    public static func store(_ messages: [ImportedMail], in box: MailboxID, _ transaction: Transaction) throws(StoreError) -> (added: Int, skipped: Int) {
        let added = try transaction.importMail(messages, to: box)
        return (added, messages.count - added)
    }

    /// The mailbox called `name` (its name as shown, any case, or its slug: `inbox`, `100`), made
    /// when there is none. Mail cannot be imported into Trash.
    public static func mailbox(named name: String, _ transaction: Transaction) throws(StoreError) -> MailboxID {
        let all = try transaction.mailboxes()
        let wanted = name.lowercased()
        let found = all.first { $0.name.lowercased() == wanted }?.id
            ?? MailboxID(slug: Substring(name)).flatMap { id in all.contains { $0.id == id } ? id : nil }
        if let found {
            guard found != .trash else { throw .refused(.invalidName("Mail cannot be imported into Trash; name another mailbox.")) }
            return found
        }
        return try transaction.createMailbox(named: name)
    }

    /// Read and flag state from the headers mbox readers (mutt, Thunderbird, Evolution) keep.
    static func mboxState(_ raw: [UInt8]) -> (isUnread: Bool, isFlagged: Bool) {
        var isUnread = true
        var isFlagged = false
        var start = 0
        while start < raw.count {
            var end = start
            while end < raw.count && raw[end] != 10 { end += 1 }
            var line = raw[start..<end]
            if line.last == 13 { line = line.dropLast() }
            if line.isEmpty { break }  // the end of the header
            let text = String(decoding: line, as: UTF8.self)
            let lower = text.lowercased()
            if lower.hasPrefix("status:") && text.dropFirst(7).contains("R") { isUnread = false }
            if lower.hasPrefix("x-status:") && text.dropFirst(9).contains("F") { isFlagged = true }
            start = end + 1
        }
        return (isUnread, isFlagged)
    }
}

extension Mailroom {
    /// Stores `messages` at the top of the mailbox called `name` (made when missing), in order,
    /// all in one commit, skipping those imported before: the mailbox, how many were added and
    /// how many skipped.
    public func importMail(_ messages: [ImportedMail], into name: String) throws(ServiceError) -> (mailbox: MailboxID, added: Int, skipped: Int) {
        try performing { transaction throws(ServiceError) in
            try storing { () throws(StoreError) in
                let box = try MailImport.mailbox(named: name, transaction)
                let (added, skipped) = try MailImport.store(messages, in: box, transaction)
                return (box, added, skipped)
            }
        }
    }
}
