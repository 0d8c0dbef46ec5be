/// What the client said about a message besides its text.
public struct Envelope: Equatable, Sendable {
    /// The name the client gave in EHLO or HELO.
    public var client: String
    /// The reverse path; empty for a bounce (`MAIL FROM:<>`).
    public var sender: String
    public var recipients: [String]
    public var eightBit: Bool
    public var utf8: Bool
    /// The user the session logged in as, if it did.
    public var user: String?
}

/// A whole message as received: the text exactly as sent (dot-stuffing undone), and its envelope.
public struct ReceivedMessage: Equatable, Sendable {
    public var envelope: Envelope
    public var text: [UInt8]
}
