import MailroomCore

/// One message brought in from an mbox file or a Maildir, read and parsed, ready to store.
public struct ImportedMail: Sendable {
    public var mail: IncomingMail
    /// What it is known by (`ImportKey` in MailroomMail: the SHA-256 of its bytes less what an
    /// mbox export adds): a message already imported is skipped.
    public var key: [UInt8]
    /// Keys an older import may have kept the same message under: a message kept with one of
    /// them is skipped too (see `ImportKey.formerKeys` in MailroomMail).
    public var formerKeys: [[UInt8]]
    public var time: Int64
    public var isUnread: Bool
    public var isFlagged: Bool
    /// Its text as kept, when the body is kept in its raw bytes alone (`Transaction.bodyInRaw`):
    /// worked out by whoever makes the value (for `mailroom import`, the reading thread). Such a
    /// text is not held twice in memory either: `mail.text` is then empty, since the raw bytes
    /// hold it. nil: the body has its own row, indexed with the batch in one statement.
    let keptOnce: PreparedText?
    public var size: Int { mail.raw.count }

    public init(mail: IncomingMail, key: [UInt8], time: Int64, isUnread: Bool, isFlagged: Bool, formerKeys: [[UInt8]] = []) {
        self.mail = mail
        self.key = key
        self.formerKeys = formerKeys
        self.time = time
        self.isUnread = isUnread
        self.isFlagged = isFlagged
        keptOnce = Transaction.bodyInRaw(mail).map { PreparedText(mail, bodyInRaw: $0) }
        if keptOnce != nil { self.mail.text = "" }
    }
}

/// A message that arrived over SMTP, parsed, ready to be stored in one or more mailboxes.
public struct IncomingMail: Sendable {
    public var subject: String
    /// The sender's name as the list shows it.
    public var sender: String
    /// The text to show: text/plain, or text made from the HTML.
    public var text: String
    public var html: String?
    public var envelopeFrom: String
    public var envelopeTo: [String]
    public var fromHeader: String
    public var toHeader: String
    public var ccHeader: String
    public var sentAt: Int64?
    public var messageID: String?
    public var attachments: [StoredAttachment]
    /// The client's numeric address.
    public var peer: String
    /// The message exactly as received.
    public var raw: [UInt8]
    /// The tags it comes with (valid names, each once): from its `X-Tags`, its `+tag`
    /// addresses, the rules it matched.
    public var tags: [String] = []
    /// `raw` compressed ahead (`Store.packAhead`); nil: compressed when it is stored.
    public var packed: PackedRaw?
    /// `html` compressed ahead (`PackedHTML`); nil: compressed when it is stored, if it is to be.
    public var packedHTML: [UInt8]?
    /// Its text as the store keeps and indexes it, worked out ahead (`prepareText`); nil: worked
    /// out when it is stored.
    public private(set) var prepared: PreparedText?

    /// Works out ahead, on the calling thread rather than the one writer, where the text is kept
    /// and what the indexes and the list row are given of it.
    public mutating func prepareText() {
        prepared = PreparedText(self)
    }

    public init(subject: String, sender: String, text: String, html: String?, envelopeFrom: String, envelopeTo: [String],
                fromHeader: String, toHeader: String, ccHeader: String, sentAt: Int64?, messageID: String?,
                attachments: [StoredAttachment], peer: String, raw: [UInt8]) {
        self.subject = subject
        self.sender = sender
        self.text = text
        self.html = html
        self.envelopeFrom = envelopeFrom
        self.envelopeTo = envelopeTo
        self.fromHeader = fromHeader
        self.toHeader = toHeader
        self.ccHeader = ccHeader
        self.sentAt = sentAt
        self.messageID = messageID
        self.attachments = attachments
        self.peer = peer
        self.raw = raw
    }
}

/// A mail's text as the store keeps it: in its raw mail when it is the raw body
/// (`Transaction.bodyInRaw`), else in its own row; and what the word index and the list row's
/// preview are given of it.
public struct PreparedText: Sendable {
    let bodyInRaw: Range<Int>?
    let indexedBody: String
    let preview: String

    init(_ mail: IncomingMail) {
        self.init(mail, bodyInRaw: Transaction.bodyInRaw(mail))
    }

    /// With where the text is in the raw bytes already found.
    init(_ mail: IncomingMail, bodyInRaw: Range<Int>?) {
        self.bodyInRaw = bodyInRaw
        indexedBody = SearchText.searchable(mail.text)
        preview = Rank.preview(of: mail.text)
    }
}

/// One attachment as listed: its place among the message's attachments, counted from 0.
public struct StoredAttachment: Equatable, Sendable {
    public var part: Int
    public var name: String?
    public var type: String
    public var size: Int
    public var contentID: String?
    /// Where its encoded content lies in the raw mail; nil for a part stored before places
    /// were kept, or one that is not a run of the raw bytes (a forwarded message).
    public var place: Place?

    public init(part: Int, name: String?, type: String, size: Int, contentID: String?, place: Place? = nil) {
        self.part = part
        self.name = name
        self.type = type
        self.size = size
        self.contentID = contentID
        self.place = place
    }

    /// `length` bytes of the raw mail from `start` (counted from 0), in the transfer encoding
    /// named `encoding` (`base64`, `quoted-printable`, `7bit`, ...).
    public struct Place: Equatable, Sendable {
        public var start: Int
        public var length: Int
        public var encoding: String

        public init(start: Int, length: Int, encoding: String) {
            self.start = start
            self.length = length
            self.encoding = encoding
        }
    }
}

/// One message as `mailroom export` writes it: the bytes it arrived as, or (posted through the
/// page) what it is made of.
public struct ExportedMessage: Sendable {
    public var id: MessageID
    /// Where it sits in its mailbox: the next page starts after it.
    public var rank: Int64
    public var createdAt: Int64
    public var subject: String
    public var author: String
    public var body: String
    /// The message exactly as received; nil for a message posted through the page.
    public var raw: [UInt8]?
    public var envelopeFrom: String?
    /// Its tags, sorted.
    public var tags: [String] = []
}

/// What the message page shows of a mailed message besides its text.
public struct MailDetails: Equatable, Sendable {
    /// Names the raw bytes, shared by every copy of the message.
    public var raw: Int64
    public var envelopeFrom: String
    public var envelopeTo: [String]
    public var fromHeader: String
    public var toHeader: String
    public var ccHeader: String
    public var sentAt: Int64?
    public var messageID: String?
    public var html: String?
    public var size: Int
    public var peer: String
    public var attachments: [StoredAttachment]
}
