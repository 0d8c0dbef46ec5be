/// What sends queued mail on: a relay client on the server's loops. The queue knows only this,
/// so the service stays free of sockets.
public protocol OutboundSender: Sendable {
    /// Sends `mail` to its recipients. `beforeEnd` is called once everything but the end of the
    /// data has been taken, and is given a closure to call with true (send the end) or false
    /// (give up); `completion` gets one reply per recipient, in order.
    func send(
        _ mail: OutboundEnvelope,
        beforeEnd: @escaping @Sendable (@escaping @Sendable (Bool) -> Void) -> Void,
        completion: @escaping @Sendable ([OutboundReply]) -> Void)
}

/// One message on its way out.
public struct OutboundEnvelope: Sendable {
    public var sender: String
    public var recipients: [String]
    public var bytes: [UInt8]

    public init(sender: String, recipients: [String], bytes: [UInt8]) {
        self.sender = sender
        self.recipients = recipients
        self.bytes = bytes
    }
}

/// What the relay said of one recipient.
public enum OutboundReply: Sendable, Equatable {
    /// 2xx: the relay has it.
    case accepted(String)
    /// 4xx, or no answer at all (a connection refused or lost, a timeout, TLS that failed):
    /// worth another try, unless the end of the data had gone out (then it is in doubt).
    case deferred(String)
    /// 5xx: final.
    case refused(String)

    /// The reply's text, or why there was none.
    public var text: String {
        switch self {
        case .accepted(let text), .deferred(let text), .refused(let text): text
        }
    }

    /// Whether the text is an SMTP reply (three digits first) rather than a reason of Mailroom's.
    var isServerReply: Bool {
        let digits = text.utf8.prefix(3)
        return digits.count == 3 && digits.allSatisfy { $0 >= 48 && $0 <= 57 }
    }
}
