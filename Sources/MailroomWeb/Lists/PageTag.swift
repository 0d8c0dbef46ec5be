import HTTP
import MailroomCore

/// ETags for list pages: a reload of a page whose mailbox, sidebar counts, address and day are
/// unchanged is a 304.
enum PageTag {
    /// `revision`: the mailbox's own (see `Mailroom.revision(of:)`); `counts`: every mailbox's
    /// name and counts, which the sidebar shows (see `counts(_:)`). Written into one string of
    /// the right size, where an interpolation grows its string piece by piece.
    static func `for`(boot: String, revision: Int, counts: String, target: String, day: Int64) -> String {
        var tag = "W/\""
        tag.reserveCapacity(boot.utf8.count + counts.utf8.count + 64)
        tag += boot
        tag += "-r"
        tag += String(revision)
        tag += "-m"
        tag += counts
        tag += "-d"
        tag += String(day)
        tag += "-"
        tag += Fingerprint.hex(target)
        tag += "\""
        return tag
    }

    /// What stands for every mailbox's name and counts in a tag.
    static func counts(_ mailboxes: [MailboxSummary]) -> String {
        String(UInt(bitPattern: mailboxes.hashValue), radix: 36)
    }

    static func matches(_ request: Request, _ etag: String) -> Bool {
        ETag.ifNoneMatch(request.headers["If-None-Match"], matches: etag)
    }

    static func notModified(_ etag: String) -> Response {
        Response(status: .notModified, headers: Headers([("ETag", etag)]))
    }
}

/// What a kept list page is found by within its mailbox's revision: everything else its tag
/// says (`PageTag.for`), so that a request for a kept page makes no tag.
struct PageKey: Hashable, Sendable {
    let counts: String
    let day: Int64
    let target: String
}

/// A list page kept whole, with the tag it was sent with.
struct KeptPage: Sendable {
    let etag: String
    let response: Response
}
