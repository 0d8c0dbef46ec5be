import Dispatch
import MailroomStore
import Synchronization

/// Sends queued mail on, `sessions` messages at a time, and records each recipient's fate.
///
/// Never twice: a recipient's row is committed as `sending` just before the end of the data
/// goes to the relay, and as `sent` once the relay has said 250. A row found `sending` after a
/// crash is failed as in doubt rather than sent again (the relay may already have it): the
/// window is the relay's answer to the end of the data. A 4xx, or trouble before the end,
/// queues the row again, one minute later at first, then twice as long each time up to four
/// hours, for five days; a 5xx fails it with the relay's words.
public final class OutboundQueue: Sendable {
    private let service: Mailroom
    private let sender: any OutboundSender
    private let sessions: Int
    private let log: @Sendable (String) -> Void
    /// Mails being sent now, by `outbound_mail` id: each holds one of the `sessions` places.
    private let busy = Mutex<Set<Int64>>([])
    /// Mails whose outcome is written but not yet durable. They hold no place (the next mail
    /// need not wait for this one's commit, and its own "sending" often shares that commit),
    /// but they are not read as due again meanwhile, and a stop waits for them.
    private let settling = Mutex<Set<Int64>>([])
    private let stopped = Mutex(false)
    private let queue = DispatchQueue(label: "mailroom.outbound")
    private let ticker = Mutex<Ticker?>(nil)
    /// The queue's own writes (sending, and each try's outcome), committed together.
    private let writes: QueueWrites

    /// How long a recipient is tried before it fails.
    static let lifetime: Int64 = 5 * 86_400
    static let longestWait: Int64 = 4 * 3_600

    public static let inDoubt = "In doubt: Mailroom stopped while the relay was answering the end of the message, so the relay "
        + "may have it; it was not sent again, to send no second copy."

    public init(service: Mailroom, sender: any OutboundSender, sessions: Int, log: @escaping @Sendable (String) -> Void) {
        self.service = service
        self.sender = sender
        self.sessions = max(sessions, 1)
        self.log = log
        writes = QueueWrites(service: service)
    }

    /// Fails what a crash left in doubt, makes deferred mail due at once, and starts sending.
    public func start() throws(ServiceError) {
        let time = service.now()
        let doubtful = try service.performing { transaction throws(ServiceError) in
            try storing { () throws(StoreError) in try transaction.recoverOutbound(reason: Self.inDoubt, at: time) }
        }
        if doubtful > 0 { log("outbound: \(doubtful) recipient(s) in doubt after a restart, failed rather than sent twice") }
        service.outboundWake.withLock { $0 = Wakeup { [weak self] in self?.pump() } }
        let ticking = Ticker(on: queue) { [weak self] in self?.pump() }
        ticker.withLock { $0 = ticking }
        pump()
    }

    /// Sends nothing more; what is under way goes on to its outcome (`sending`).
    public func stop() {
        service.outboundWake.withLock { $0 = nil }
        ticker.withLock { $0 }?.stop()
        stopped.withLock { $0 = true }
    }

    /// Mails under way: handed to the relay, or their outcome being recorded.
    public var sending: Int { busy.withLock { $0.count } + settling.withLock { $0.count } }

    /// Starts sending what is due, up to `sessions` at once. Runs on the queue, one at a time.
    func pump() {
        queue.async { [self] in
            guard !stopped.withLock({ $0 }) else { return }
            let free = sessions - busy.withLock { $0.count }
            guard free > 0 else { return }
            let time = service.now()
            let excluded = busy.withLock { $0 }.union(settling.withLock { $0 })
            let due: [DueMail]
            do throws(ServiceError) {
                due = try service.read { reader throws(StoreError) in try reader.dueOutbound(at: time, limit: free, excluding: excluded) }
            } catch {
                log("outbound: cannot read the queue: \(error.message)")
                return
            }
            for mail in due where !mail.rows.isEmpty {
                busy.withLock { _ = $0.insert(mail.mail) }
                send(mail)
            }
        }
    }

    private func send(_ mail: DueMail) {
        let envelope = OutboundEnvelope(sender: mail.sender, recipients: mail.rows.map(\.recipient), bytes: mail.bytes)
        let ended = EndSent()
        let rows = mail.rows
        // Neither callback waits for its commit: each hands the write to the next group commit
        // and goes on from its `then`, so no thread sits blocked per message.
        sender.send(envelope, beforeEnd: { [self] proceed in
            let time = service.now()
            writes.add({ transaction throws(StoreError) in try transaction.markSending(rows.map(\.id), at: time) }, then: { [self] failure in
                if let failure {
                    log("outbound: cannot record mail \(mail.mail) as sending: \(failure.message)")
                    proceed(false)
                } else {
                    ended.value.store(true, ordering: .releasing)
                    proceed(true)
                }
            })
        }, completion: { [self] replies in
            settle(mail, rows: rows, replies: replies, ended: ended.value.load(ordering: .acquiring))
        })
    }

    /// Records each recipient's fate. The mail gives its place up at once (its rows are not
    /// `queued` until the outcome commits, so no read takes it again), and leaves `settling`
    /// once the outcome is durable.
    private func settle(_ mail: DueMail, rows: [(id: Int64, recipient: String, attempts: Int)], replies: [OutboundReply], ended: Bool) {
        let time = service.now()
        let metrics = service.metrics
        settling.withLock { _ = $0.insert(mail.mail) }
        defer {
            busy.withLock { _ = $0.remove(mail.mail) }
            pump()
        }
        writes.add({ transaction throws(StoreError) in
                for (index, row) in rows.enumerated() {
                    let reply = index < replies.count ? replies[index] : .deferred("The relay gave no answer for this recipient.")
                    switch reply {
                    case .accepted(let text):
                        try transaction.settle(row.id, .sent, reply: text, at: time)
                        metrics.outboundSent.wrappingAdd(1, ordering: .relaxed)
                    case .refused(let text):
                        try transaction.settle(row.id, .failed, reply: text, countAttempt: !ended, at: time)
                        metrics.outboundFailed.wrappingAdd(1, ordering: .relaxed)
                    case .deferred(let text) where ended && !reply.isServerReply:
                        try transaction.settle(row.id, .failed, reply: Self.inDoubt + " (" + text + ")", at: time)
                        metrics.outboundFailed.wrappingAdd(1, ordering: .relaxed)
                    case .deferred(let text):
                        let attempts = row.attempts + 1
                        let wait = min(Int64(60) << min(attempts - 1, 20), Self.longestWait)
                        if try transaction.outboundAge(row.id, at: time) + wait > Self.lifetime {
                            try transaction.settle(row.id, .failed, reply: "Gave up after five days: " + text,
                                                   countAttempt: !ended, at: time)
                            metrics.outboundFailed.wrappingAdd(1, ordering: .relaxed)
                        } else {
                            try transaction.settle(row.id, .queued, reply: text, retryAt: time + wait, countAttempt: !ended, at: time)
                            metrics.outboundDeferred.wrappingAdd(1, ordering: .relaxed)
                        }
                    }
                }
                try transaction.dropSentBytes(of: mail.mail)
        }, then: { [self] failure in
            if let failure { log("outbound: cannot record how mail \(mail.mail) went: \(failure.message)") }
            settling.withLock { _ = $0.remove(mail.mail) }
        })
    }
}

/// Whether the end of a message's data was let go to the relay: shared by a send's callbacks.
private final class EndSent: Sendable {
    let value = Atomic(false)
}
