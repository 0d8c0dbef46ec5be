/// What a mail says, decoded from its raw bytes: the headers people read, the text to show, the
/// HTML part if there is one, and what is attached. The raw bytes themselves are kept apart.
public struct ParsedMail: Equatable, Sendable {
    public var subject: String
    public var from: [Address]
    public var to: [Address]
    public var cc: [Address]
    /// The Date header, as seconds since 1970; nil when missing or unreadable.
    public var date: Int64?
    /// The Message-ID, without its angle brackets.
    public var messageID: String?
    /// text/plain when the mail has it; else text made from its HTML.
    public var text: String
    public var html: String?
    public var attachments: [Attachment]
    /// The first `X-Tags` header, as Mailpit reads it: tags, separated by commas.
    public var tagsHeader: String?

    public init(subject: String = "", from: [Address] = [], to: [Address] = [], cc: [Address] = [], date: Int64? = nil,
                messageID: String? = nil, text: String = "", html: String? = nil, attachments: [Attachment] = []) {
        self.subject = subject
        self.from = from
        self.to = to
        self.cc = cc
        self.date = date
        self.messageID = messageID
        self.text = text
        self.html = html
        self.attachments = attachments
    }

    /// The name people know the sender by: the first From's name, else its address.
    public var sender: String {
        guard let first = from.first else { return "" }
        return first.name.isEmpty ? first.address : first.name
    }
}

/// One mailbox of an address header: `Ann Example <ann@example.test>`.
public struct Address: Equatable, Sendable {
    public var name: String
    public var address: String

    public init(name: String = "", address: String) {
        self.name = name
        self.address = address
    }
}

/// A part that is not the text shown: a scanner's PDF, an inline image, a forwarded message.
public struct Attachment: Equatable, Sendable {
    /// The file name it was sent with, if any.
    public var name: String?
    /// Its MIME type, such as `application/pdf`.
    public var type: String
    /// Its size once its transfer encoding (base64, quoted-printable) is undone.
    public var size: Int
    /// Its Content-ID without angle brackets, by which HTML refers to it as `cid:`.
    public var contentID: String?
    /// Where its encoded content lies in the raw message; nil when it is not one run of those
    /// bytes (a forwarded message, which is written out anew).
    public var place: Place?

    public init(name: String?, type: String, size: Int, contentID: String? = nil, place: Place? = nil) {
        self.name = name
        self.type = type
        self.size = size
        self.contentID = contentID
        self.place = place
    }

    /// A part's content as it lies in its raw message: `length` bytes from `start` (counted
    /// from 0), which `PartDecoder` turns into the part's bytes a piece at a time.
    public struct Place: Equatable, Sendable {
        public var start: Int
        public var length: Int
        public var encoding: TransferEncoding

        public init(start: Int, length: Int, encoding: TransferEncoding) {
            self.start = start
            self.length = length
            self.encoding = encoding
        }
    }
}

/// A part's Content-Transfer-Encoding, named as MIME names it; a part without one is 7bit.
public enum TransferEncoding: String, Sendable {
    case sevenBit = "7bit"
    case eightBit = "8bit"
    case binary
    case base64
    case quotedPrintable = "quoted-printable"
    case uuencode = "x-uuencode"

    /// Whether the bytes as they lie are the content (nothing to undo).
    public var isIdentity: Bool { self == .sevenBit || self == .eightBit || self == .binary }
}
