import Synchronization
private import CLibevent

/// Hands messages to one relay over SMTP, on one event loop. A connection that has carried a
/// message cleanly is kept for the next one (as Postfix's own `smtp` client keeps its
/// connections): parked for `idleSeconds`, then closed with QUIT, and not reused once it is
/// `reuseLimit` old.
///
/// `send` may be called from any thread. The host is looked up on a worker thread, and all
/// else happens on the loop's thread, where `beforeEnd` and `completion` are called too: they
/// must hand any slow work to another thread. Keep the client for as long as its loop runs.
/// The process must ignore SIGPIPE, as mailroom's main does: libevent writes with `writev`, so a
/// relay that hangs up while the client writes would otherwise end the process.
public final class RelayClient: @unchecked Sendable {
    // `loop`, `connections`, `carrying` and `parked` are touched only on the loop's thread (see
    // `onLoop`); the loop's `base` is a constant that libevent lets other threads schedule on.
    public let configuration: RelayConfiguration
    let loop: EventLoop
    /// The TLS context, or why there is none; nil when `tls` is `.none`.
    let tls: Result<RelayTLSContext, RelayProtocolError>?
    /// Every open connection, which this keeps alive until it closes.
    private var connections: [ObjectIdentifier: RelayConnection] = [:]
    /// The connection carrying each message under way, by serial.
    private var carrying: [UInt64: RelayConnection] = [:]
    /// Connections waiting for a message, the most recently used last.
    private var parked: [RelayConnection] = []
    private var nextSerial: UInt64 = 0
    private var isQuitting = false
    private let inFlight = Atomic<Int>(0)
    private let open = Atomic<Int>(0)

    /// How long a connection waits for the next message.
    static let idleSeconds = 2
    /// How long a connection carries messages before it is let go.
    static let reuseLimit = Duration.seconds(300)
    /// Connections kept waiting at most.
    static let parkedLimit = 64

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
        let transaction = RelayTransaction(serial: 0, message: message, beforeEnd: beforeEnd, completion: completion)
        let scheduled = onLoop {
            self.nextSerial += 1
            var numbered = transaction
            numbered.serial = self.nextSerial
            self.begin(numbered)
        }
        if !scheduled { unreachable(transaction) }
    }

    /// On the loop: a parked connection carries `transaction`, or a new one is made.
    private func begin(_ transaction: RelayTransaction) {
        while let connection = parked.popLast() {
            guard connection.isReusable else {
                connection.quit()
                continue
            }
            carrying[transaction.serial] = connection
            connection.carry(transaction)
            return
        }
        startAfresh(transaction)
    }

    /// On the loop: `transaction` on a new connection, once the host is looked up (on a worker
    /// thread, since a name may take long to resolve).
    func startAfresh(_ transaction: RelayTransaction) {
        let (host, port) = (configuration.host, configuration.port)
        Workers.shared.submit {
            let addresses = RelayAddresses.resolve(host: host, port: port)
            if !self.onLoop({ self.start(transaction, addresses: addresses) }) { self.unreachable(transaction) }
        }
    }

    private func unreachable(_ transaction: RelayTransaction) {
        transaction.completion(transaction.message.recipients.map { _ in .deferred("The relay client cannot reach its event loop.") })
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// Messages sent whose outcome is not yet known.
    public var attemptsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Open connections, carrying or parked: a server that is stopping calls `quit()` and
    /// waits for these to close before it stops the loop, or they are cut off where they are.
    public var connectionsOpen: Int { open.load(ordering: .relaxed) }

    /// From now on no connection is parked, and those parked say QUIT; a message under way
    /// finishes first. From any thread.
    public func quit() {
        _ = onLoop {
            self.isQuitting = true
            let waiting = self.parked
            self.parked = []
            for connection in waiting { connection.quit() }
        }
    }

    // MARK: On the loop

    private func start(_ transaction: RelayTransaction, addresses: Result<[[UInt8]], RelayProtocolError>) {
        let trouble: String?
        switch (addresses, tls) {
        case (.failure(let error), _), (_, .failure(let error)?): trouble = error.reason
        default: trouble = loop.isStopping ? "Mailroom is stopping." : nil
        }
        guard let trouble else {
            let connection = RelayConnection(client: self, transaction: transaction)
            connections[ObjectIdentifier(connection)] = connection
            open.add(1, ordering: .relaxed)
            carrying[transaction.serial] = connection
            if case .success(let list) = addresses { connection.connect(to: list) }
            return
        }
        transaction.completion(transaction.message.recipients.map { _ in .deferred(trouble) })
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// The caller's word for the message `serial`, from any thread.
    func decide(_ serial: UInt64, _ proceed: Bool) {
        _ = onLoop {
            guard let connection = self.carrying[serial], connection.serial == serial else { return }
            connection.decided(proceed)
        }
    }

    /// The message `serial` has its outcome (or goes on a new connection: `startAfresh`).
    func ended(_ serial: UInt64) {
        guard carrying.removeValue(forKey: serial) != nil else { return }
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// Whether `connection`, its message done, may wait for the next.
    func park(_ connection: RelayConnection) -> Bool {
        guard !isQuitting, !loop.isStopping, parked.count < Self.parkedLimit, connection.isReusable else { return false }
        parked.append(connection)
        return true
    }

    /// The connection has closed and let go of everything it held.
    func finished(_ connection: RelayConnection) {
        parked.removeAll { $0 === connection }
        if carrying[connection.serial] === connection { carrying[connection.serial] = nil }
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil { open.subtract(1, ordering: .relaxed) }
    }

    /// Runs `job` on the loop's thread at its next turn; false if libevent could not take it.
    private func onLoop(_ job: @escaping @Sendable () -> Void) -> Bool {
        EventLoop.once(on: loop.base, job)
    }
}

/// One message handed to the client, with what to call as it goes.
struct RelayTransaction: Sendable {
    var serial: UInt64
    let message: RelayMessage
    let beforeEnd: @Sendable (@escaping @Sendable (Bool) -> Void) -> Void
    let completion: @Sendable ([RelayReply]) -> Void
}
