import HTTP
import SMTP
import Synchronization

/// The SMTP listener that runs beside the HTTP one, on the same event loops.
public struct MailConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port; `Server.mailPort` tells which.
    public var port: Int
    public var session: SessionOptions
    /// Sessions open at once, over every loop; one more is told 421 and closed.
    public var maxConnections: Int
    /// Seconds a session may be silent before it is told 421 and closed.
    public var idleSeconds: Int
    /// Seconds a session may last in all, however busy.
    public var sessionSeconds: Int
    /// A certificate chain and its key, both PEM files: STARTTLS is offered when set.
    public var tls: TLSFiles?

    public init(host: String = "127.0.0.1", port: Int = 2525, session: SessionOptions, maxConnections: Int = 200,
                idleSeconds: Int = 300, sessionSeconds: Int = 1_800, tls: TLSFiles? = nil) {
        self.host = host
        self.port = port
        self.session = session
        self.maxConnections = maxConnections
        self.idleSeconds = idleSeconds
        self.sessionSeconds = sessionSeconds
        self.tls = tls
    }
}

public struct TLSFiles: Sendable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}

/// What storing a message came to: the name it was stored under, or the reply that refuses it.
public enum DeliveryOutcome: Sendable {
    case stored(String)
    case refused(Reply)
}

/// Stores one received message durably and says how that went, by calling `done` once (on any
/// thread, never before returning). It must not wait for the commit: it runs on an event loop
/// for a small message and on a worker thread for a large one. `peer` is the client's numeric
/// address.
public typealias MailDelivery = @Sendable (
    _ message: ReceivedMessage, _ peer: String, _ done: @escaping @Sendable (DeliveryOutcome) -> Void
) -> Void

/// The SMTP side of a server: where it listens, and what it does with each message.
public struct MailService: Sendable {
    public var configuration: MailConfiguration
    public var deliver: MailDelivery

    public init(configuration: MailConfiguration, deliver: @escaping MailDelivery) {
        self.configuration = configuration
        self.deliver = deliver
    }
}

/// What every loop's SMTP sessions share: the service, the TLS context and the session count.
final class MailShared: Sendable {
    let service: MailService
    let tls: TLSContext?
    let metrics: Metrics

    init(service: MailService, tls: TLSContext?, metrics: Metrics) {
        self.service = service
        self.tls = tls
        self.metrics = metrics
    }

    /// Counts a new session in; false (and counted as refused) when the limit is reached.
    func admit() -> Bool {
        let now = metrics.smtpOpenSessions.wrappingAdd(1, ordering: .relaxed).newValue
        guard now <= service.configuration.maxConnections else {
            metrics.smtpOpenSessions.wrappingSubtract(1, ordering: .relaxed)
            metrics.smtpSessionsRefused.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        metrics.smtpSessions.wrappingAdd(1, ordering: .relaxed)
        return true
    }

    func leave() {
        metrics.smtpOpenSessions.wrappingSubtract(1, ordering: .relaxed)
    }
}
