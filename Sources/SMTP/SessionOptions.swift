/// Who a session lets send, and what it offers.
public struct SessionOptions: Sendable {
    public enum Authentication: Sendable {
        /// AUTH is not offered; anyone may send.
        case off
        /// AUTH PLAIN and LOGIN against `check`, required before MAIL. Offered only over TLS,
        /// unless `overPlainText` allows it without.
        case passwords(check: @Sendable (_ user: String, _ password: String) -> Bool, overPlainText: Bool)
        /// Every login succeeds (for devices that insist on sending one); none is required.
        case acceptAny
    }

    /// The name the server gives in its greeting and EHLO reply.
    public var hostname: String
    public var limits: SMTPLimits
    /// Whether STARTTLS can be offered (a certificate is configured).
    public var canStartTLS: Bool
    public var authentication: Authentication
    /// Wrong logins counted per client address across sessions; none: only the per-session cap.
    public var throttle: LoginThrottle?

    public init(hostname: String, limits: SMTPLimits = SMTPLimits(), canStartTLS: Bool = false,
                authentication: Authentication = .off, throttle: LoginThrottle? = nil) {
        self.hostname = hostname
        self.limits = limits
        self.canStartTLS = canStartTLS
        self.authentication = authentication
        self.throttle = throttle
    }
}

/// Where wrong logins are counted per client address, so that guessing is slow over every
/// session (and every door) that address opens.
public struct LoginThrottle: Sendable {
    /// Seconds the address must still wait before a login of its may be checked; nil: none.
    public var wait: @Sendable (_ peer: String) -> Int64?
    /// A wrong login from the address, for `user`.
    public var failed: @Sendable (_ peer: String, _ user: String) -> Void

    public init(wait: @escaping @Sendable (String) -> Int64?, failed: @escaping @Sendable (String, String) -> Void) {
        self.wait = wait
        self.failed = failed
    }
}
