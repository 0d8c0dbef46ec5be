import HTTP
import MailroomService
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
    /// Sessions open at once from one address (Postfix's `smtpd_client_connection_count_limit`
    /// is 50 too); one more is told 421 and closed. 0: no cap.
    public var maxConnectionsPerAddress: Int = 50
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

/// What every loop's SMTP sessions share: the service, the TLS context and the session caps.
final class MailShared: Sendable {
    let service: MailService
    let tls: TLSContext?
    let metrics: Metrics
    let admission: Admission
    let refusals: RefusalLog

    init(service: MailService, tls: TLSContext?, metrics: Metrics, log: @escaping @Sendable (String) -> Void) {
        self.service = service
        self.tls = tls
        self.metrics = metrics
        self.admission = Admission(
            maxTotal: service.configuration.maxConnections,
            maxPerAddress: service.configuration.maxConnectionsPerAddress)
        self.refusals = RefusalLog("SMTP", write: log)
    }

    /// Counts a new session in, unless a cap refuses it (counted as refused).
    func admit(_ peer: String) -> Admission.Verdict {
        let verdict = admission.admit(peer)
        if verdict == .admitted {
            metrics.smtpOpenSessions.wrappingAdd(1, ordering: .relaxed)
            metrics.smtpSessions.wrappingAdd(1, ordering: .relaxed)
        } else {
            metrics.smtpSessionsRefused.wrappingAdd(1, ordering: .relaxed)
            refusals.refused(verdict, peer: peer, limits: admission)
        }
        return verdict
    }

    /// What a session refused by `verdict` is told before it is closed.
    func refusal(_ verdict: Admission.Verdict) -> [UInt8] {
        let hostname = service.configuration.session.hostname
        switch verdict {
        case .addressFull:
            return Reply(421, "4.7.0", "\(hostname) has too many connections from your address; try again later.").bytes
        default:
            return Session.busy(hostname: hostname).bytes
        }
    }

    func leave(_ peer: String) {
        admission.leave(peer)
        metrics.smtpOpenSessions.wrappingSubtract(1, ordering: .relaxed)
    }
}
