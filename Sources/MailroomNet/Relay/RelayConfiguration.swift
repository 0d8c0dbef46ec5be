import MailroomService

/// When the relay client encrypts the connection with STARTTLS.
public enum RelayTLS: String, Sendable {
    /// STARTTLS whenever the relay offers it, with the certificate chain and host name verified;
    /// plain text when it does not offer it.
    case verify
    /// STARTTLS must be offered and must verify; otherwise the attempt is deferred.
    case require
    /// Never STARTTLS.
    case none
}

/// The name and password the relay client logs in with (AUTH PLAIN, or LOGIN).
public struct RelayLogin: Sendable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

/// Where and how outbound mail is handed on: one relay host, reached over SMTP.
public struct RelayConfiguration: Sendable {
    /// A name or address: what is connected to, and the name the certificate must carry.
    public var host: String
    public var port: Int
    public var tls: RelayTLS
    /// A PEM file of certificate authorities trusted beside the system's own.
    public var trustedCertificates: String?
    /// Sent only over TLS, unless `tls` is `.none`.
    public var login: RelayLogin?
    /// The name given in EHLO.
    public var heloName: String
    /// How long each wait lasts: for the connection, for each reply, and for the caller's word
    /// before the end of the data.
    public var timeoutSeconds: Int

    public init(
        host: String, port: Int, tls: RelayTLS = .verify, trustedCertificates: String? = nil,
        login: RelayLogin? = nil, heloName: String = "mailroom", timeoutSeconds: Int = 60
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.trustedCertificates = trustedCertificates
        self.login = login
        self.heloName = heloName
        self.timeoutSeconds = timeoutSeconds
    }
}

/// One message to hand to the relay, with its envelope: the outbound queue's own. `bytes` is
/// the message as stored, lines ending in LF or CRLF; the client sends it with CRLF line ends
/// and dot-stuffed.
public typealias RelayMessage = OutboundEnvelope

/// What became of one recipient: the outbound queue's own words for it.
public typealias RelayReply = OutboundReply
