import Synchronization
private import CLibevent

/// Hands messages to one relay over SMTP, on one event loop: a new connection per message,
/// closed with QUIT once its outcome is known.
///
/// `send` may be called from any thread. The host is looked up on a worker thread, and all
/// else happens on the loop's thread, where `beforeEnd` and `completion` are called too: they
/// must hand any slow work to another thread. Keep the client for as long as its loop runs.
/// The process must ignore SIGPIPE, as mailroom's main does: libevent writes with `writev`, so a
/// relay that hangs up while the client writes would otherwise end the process.
public final class RelayClient: @unchecked Sendable {
    // `loop` and `attempts` are touched only on the loop's thread (see `onLoop`); the loop's
    // `base` is a constant that libevent lets other threads schedule on.
    public let configuration: RelayConfiguration
    let loop: EventLoop
    /// The TLS context, or why there is none; nil when `tls` is `.none`.
    let tls: Result<RelayTLSContext, RelayProtocolError>?
    private var attempts: [UInt64: RelayConnection] = [:]
    private var nextSerial: UInt64 = 0
    private let inFlight = Atomic<Int>(0)

    /// `loop` must be running, or about to.
    init(configuration: RelayConfiguration, loop: EventLoop) {
        self.configuration = configuration
        self.loop = loop
        if configuration.tls == .none {
            tls = nil
        } else {
            do throws(RelayProtocolError) {
                tls = .success(try RelayTLSContext(trustedCertificates: configuration.trustedCertificates))
            } catch {
                tls = .failure(error)
            }
        }
    }

    /// Sends one message over a new connection: the outcome for each recipient, in the order of
    /// `message.recipients`, goes to `completion`, once.
    ///
    /// `beforeEnd` is called when all the text but the final "." line has been written: the
    /// caller records that the message is being sent, then calls the closure it is given with
    /// true to end the data, or false to abandon: every recipient is then deferred as
    /// "abandoned", and the connection is closed without the dot, which makes the relay drop
    /// the text (RSET or QUIT would only be more text). It is not called when the relay
    /// refuses the sender, every recipient, or DATA. A caller that gives no word within
    /// `timeoutSeconds` has abandoned. Trouble while the caller decides is reported only once
    /// it has decided, so `completion` always comes after the word.
    ///
    /// After the final dot: 2xx accepts each recipient taken at RCPT, 4xx defers them, 5xx
    /// refuses them; a connection lost or a wait timed out then is deferred as
    /// "lost after the end of data: …", since nobody knows whether the relay took the message.
    public func send(
        _ message: RelayMessage,
        beforeEnd: @escaping @Sendable (@escaping @Sendable (Bool) -> Void) -> Void,
        completion: @escaping @Sendable ([RelayReply]) -> Void
    ) {
        // Nothing to connect for; the outcome still comes from the loop, like every other.
        if message.recipients.isEmpty || RelayConversation.refusal(of: message) != nil {
            let outcome = RelayConversation.refusal(of: message).map { refusal in
                message.recipients.map { _ in RelayReply.refused(refusal) }
            } ?? []
            inFlight.add(1, ordering: .relaxed)
            let report = { @Sendable in
                completion(outcome)
                self.inFlight.subtract(1, ordering: .relaxed)
            }
            if !onLoop(report) { report() }
            return
        }
        inFlight.add(1, ordering: .relaxed)
        let (host, port) = (configuration.host, configuration.port)
        Workers.shared.submit {
            let addresses = RelayAddresses.resolve(host: host, port: port)
            let scheduled = self.onLoop {
                self.start(message, addresses: addresses, beforeEnd: beforeEnd, completion: completion)
            }
            if !scheduled {
                completion(message.recipients.map { _ in .deferred("The relay client cannot reach its event loop.") })
                self.inFlight.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// Messages sent whose connection has not yet let go of everything (it says QUIT after the
    /// outcome): a server that is stopping waits for these before it stops the loop, or their
    /// connections are cut off where they are.
    public var attemptsInFlight: Int { inFlight.load(ordering: .relaxed) }

    // MARK: On the loop

    private func start(
        _ message: RelayMessage, addresses: Result<[[UInt8]], RelayProtocolError>,
        beforeEnd: @escaping @Sendable (@escaping @Sendable (Bool) -> Void) -> Void,
        completion: @escaping @Sendable ([RelayReply]) -> Void
    ) {
        let trouble: String?
        switch (addresses, tls) {
        case (.failure(let error), _), (_, .failure(let error)?): trouble = error.reason
        default: trouble = loop.isStopping ? "Mailroom is stopping." : nil
        }
        guard let trouble else {
            nextSerial += 1
            let serial = nextSerial
            let connection = RelayConnection(
                client: self, serial: serial, message: message, beforeEnd: beforeEnd, completion: completion)
            attempts[serial] = connection
            if case .success(let list) = addresses { connection.connect(to: list) }
            return
        }
        completion(message.recipients.map { _ in .deferred(trouble) })
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// The caller's word for the attempt `serial`, from any thread.
    func decide(_ serial: UInt64, _ proceed: Bool) {
        _ = onLoop { self.attempts[serial]?.decided(proceed) }
    }

    /// The attempt has reported and let go of everything it held.
    func finished(_ connection: RelayConnection) {
        attempts[connection.serial] = nil
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// Runs `job` on the loop's thread at its next turn. `event_base_once` is safe from any
    /// thread once `evthread_use_pthreads` has run, wakes the loop, and frees its event itself;
    /// false if libevent could not take the job.
    private func onLoop(_ job: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(RelayJob(job)).toOpaque()
        var now = timeval(tv_sec: 0, tv_usec: 0)
        let added = event_base_once(loop.base, -1, Int16(EV_TIMEOUT), { _, _, context in
            guard let context else { return }
            Unmanaged<RelayJob>.fromOpaque(context).takeRetainedValue().run()
        }, box, &now)
        guard added == 0 else {
            Unmanaged<RelayJob>.fromOpaque(box).release()
            return false
        }
        return true
    }
}

/// A closure on its way to a loop's thread.
private final class RelayJob: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}
