/// What one SMTP session may send; each broken limit has its own reply.
public struct SMTPLimits: Sendable, Equatable {
    /// A command line, CRLF included (RFC 5321 4.5.3.1.4: 512). Longer is 500 5.5.6.
    public var maxCommandLineBytes: Int
    /// A line of message text, CRLF included. RFC 5321 allows 1,000; mail from scanners and
    /// scripts is often longer, so Mailroom takes lines up to this many bytes and refuses longer
    /// ones with 500 5.5.6 once the message has been read to its end.
    public var maxTextLineBytes: Int
    /// A message's size as received, announced as SIZE. Larger is 552 5.3.4.
    public var maxMessageBytes: Int
    /// Recipients of one message. More is 452 4.5.3, and the ones accepted still count.
    public var maxRecipients: Int

    public init(maxCommandLineBytes: Int = 512, maxTextLineBytes: Int = 65_536,
                maxMessageBytes: Int = 25 << 20, maxRecipients: Int = 100) {
        self.maxCommandLineBytes = maxCommandLineBytes
        self.maxTextLineBytes = maxTextLineBytes
        self.maxMessageBytes = maxMessageBytes
        self.maxRecipients = maxRecipients
    }
}
