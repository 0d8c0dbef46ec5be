import Dispatch
import Glibc
import HTTP
import MailroomService
import Synchronization

/// An HTTP server: one event loop per thread, each with its own listening socket on one port.
public final class Server: Sendable {
    public let configuration: ServerConfiguration
    /// The port actually bound, which differs from the configured one when that was 0.
    public let port: Int
    /// The SMTP port actually bound, when the server takes mail.
    public let mailPort: Int?
    private let sockets: [Int32]
    /// The ports held against a second Mailroom, until the loops have stopped.
    private let claims: [PortClaim]
    private let mailSockets: [Int32]
    private let mail: MailShared?
    private let handler: Handler
    private let errorPage: ErrorHandler
    private let log: AccessLog
    /// The HTTP connections' caps, over every loop.
    private let admission: Admission
    private let refusals: RefusalLog
    private let housekeeping: Housekeeping?
    private let events: EventHub?
    private let mayWait: WaitPredicate
    private let state = Mutex(State())

    private struct State {
        var stoppers: [LoopStopper] = []
        /// The loops running, for clients that send on them (`relayClient`).
        var loops: [RunningLoop] = []
        var threads: [pthread_t] = []
        var started = false
        /// Loops that could not start, reported by their threads.
        var failures: [ServerError] = []
    }

    /// Binds the listening sockets at once, so a busy port is reported before anything runs.
    /// `errorPage` renders refusals such as 414 or 431; by default a plain page of the server's own.
    /// `housekeeping` runs on the first loop, between its requests. Requests for which `mayWait`
    /// holds (by default every POST) are answered on worker threads, never on a loop. What the
    /// server does is counted in `metrics`.
    public init(
        configuration: ServerConfiguration, logRequests: Bool = true, logFormat: LogFormat = .text,
        metrics: Metrics = Metrics(),
        events: EventHub? = nil, housekeeping: Housekeeping? = nil,
        mayWait: @escaping WaitPredicate = { $0.method == .post }, mail service: MailService? = nil,
        errorPage: @escaping ErrorHandler = ErrorPage.response(for:), handler: @escaping Handler
    ) throws(ServerError) {
        let log = AccessLog(isEnabled: logRequests, format: logFormat, metrics: metrics)
        guard LibeventThreads.enabled else { throw ServerError(description: "evthread_use_pthreads failed") }
        let tls = try service?.configuration.tls.map { files throws(ServerError) in try TLSContext(files) }
        let (sockets, port, claim) = try ListeningSocket.open(
            host: configuration.host, port: configuration.port, count: configuration.threads)
        var claims = [claim]
        if let service {
            do {
                let (mailSockets, mailPort, mailClaim) = try ListeningSocket.open(
                    host: service.configuration.host, port: service.configuration.port, count: configuration.mailThreads)
                self.mailSockets = mailSockets
                self.mailPort = mailPort
                claims.append(mailClaim)
            } catch {
                for fd in sockets { close(fd) }
                claim.release()
                throw error
            }
            self.mail = MailShared(service: service, tls: tls, metrics: metrics, log: log.notice)
        } else {
            self.mailSockets = []
            self.mailPort = nil
            self.mail = nil
        }
        self.claims = claims
        self.configuration = configuration
        self.port = port
        self.sockets = sockets
        self.handler = handler
        self.errorPage = errorPage
        self.log = log
        self.admission = Admission(
            maxTotal: configuration.maxConnections, maxPerAddress: configuration.maxConnectionsPerAddress)
        self.refusals = RefusalLog("HTTP", write: log.notice)
        self.events = events
        self.housekeeping = housekeeping
        self.mayWait = mayWait
    }

    /// Starts every loop on its own thread and returns once all of them are ready.
    public func start() throws(ServerError) {
        let ready = DispatchSemaphore(value: 0)
        var threads: [pthread_t] = []
        // Mail takes the last loops: the first one also runs housekeeping.
        let firstMailLoop = sockets.count - mailSockets.count
        for (index, socket) in sockets.enumerated() {
            let mailSocket = index >= firstMailLoop ? mailSockets[index - firstMailLoop] : nil
            let job = LoopJob(
                socket: socket, mail: mail.flatMap { shared in mailSocket.map { ($0, shared) } }, configuration: configuration, handler: handler, mayWait: mayWait, errorPage: errorPage,
                log: log, admission: admission, refusals: refusals, housekeeping: index == 0 ? housekeeping : nil, events: events,
                onReady: { loop in
                    let running = RunningLoop(loop)
                    self.state.withLock { state in
                        state.stoppers.append(running.loop.stopper)
                        state.loops.append(running)
                    }
                    ready.signal()
                },
                onFailure: { error in
                    self.state.withLock { $0.failures.append(error) }
                    ready.signal()
                })
            switch startThread({ job.run() }) {
            case .success(let thread): threads.append(thread)
            case .failure(let error): throw ServerError(description: "pthread_create failed: \(error.status)")
            }
        }
        for _ in threads { ready.wait() }
        state.withLock { $0.threads = threads; $0.started = true }
        if let failure = state.withLock({ $0.failures.first }) {
            stop()
            throw failure
        }
    }

    /// A client that sends mail to `configuration`'s relay on the first loop; nil before the
    /// loops have started.
    public func relayClient(_ configuration: RelayConfiguration) -> RelayClient? {
        state.withLock { $0.loops.first }.map { RelayClient(configuration: configuration, loop: $0.loop) }
    }

    /// A client that makes webhook calls on the first loop; nil before the loops have started.
    public func webhookClient(trustedCertificates: String?, timeoutSeconds: Int) -> WebhookClient? {
        state.withLock { $0.loops.first }.map {
            WebhookClient(loop: $0.loop, trustedCertificates: trustedCertificates, timeoutSeconds: timeoutSeconds)
        }
    }

    /// Stops every loop after the callbacks it is running, and waits for their threads.
    public func stop() {
        let (stoppers, threads) = state.withLock { state in
            defer { state.stoppers = []; state.threads = []; state.loops = [] }
            return (state.stoppers, state.threads)
        }
        for stopper in stoppers { stopper.stop() }
        for thread in threads { pthread_join(thread, nil) }
        for claim in claims { claim.release() }
    }
}

/// What one loop thread needs, handed over as a retained object.
private final class LoopJob: @unchecked Sendable {
    let socket: Int32
    let mail: (socket: Int32, shared: MailShared)?
    let configuration: ServerConfiguration
    let handler: Handler
    let mayWait: WaitPredicate
    let errorPage: ErrorHandler
    let log: AccessLog
    let admission: Admission
    let refusals: RefusalLog
    let housekeeping: Housekeeping?
    let events: EventHub?
    let onReady: @Sendable (EventLoop) -> Void
    let onFailure: @Sendable (ServerError) -> Void

    init(
        socket: Int32, mail: (socket: Int32, shared: MailShared)?, configuration: ServerConfiguration, handler: @escaping Handler, mayWait: @escaping WaitPredicate,
        errorPage: @escaping ErrorHandler, log: AccessLog, admission: Admission, refusals: RefusalLog,
        housekeeping: Housekeeping?, events: EventHub?,
        onReady: @escaping @Sendable (EventLoop) -> Void, onFailure: @escaping @Sendable (ServerError) -> Void
    ) {
        self.socket = socket
        self.mail = mail
        self.configuration = configuration
        self.handler = handler
        self.mayWait = mayWait
        self.errorPage = errorPage
        self.log = log
        self.admission = admission
        self.refusals = refusals
        self.housekeeping = housekeeping
        self.events = events
        self.onReady = onReady
        self.onFailure = onFailure
    }

    func run() {
        let loop: EventLoop
        do {
            loop = try EventLoop(
                socket: socket, configuration: configuration, handler: handler, mayWait: mayWait, errorPage: errorPage,
                log: log, admission: admission, refusals: refusals, housekeeping: housekeeping, events: events, mail: mail)
        } catch {
            onFailure(error)
            return
        }
        onReady(loop)
        loop.run()
    }
}

/// A loop that has started, held for clients that send on it: its base is safe to schedule on
/// from any thread (libevent's locking is on), and the rest is touched only on its own thread.
final class RunningLoop: @unchecked Sendable {
    let loop: EventLoop

    init(_ loop: EventLoop) {
        self.loop = loop
    }
}
