import Digests
import Dispatch
import MailroomCore
import MailroomMail
import MailroomStore
import Synchronization

/// What a webhook call says of a stored message; the door that knows JSON writes it (`encode`).
public struct WebhookSummary: Sendable, Equatable {
    public var id: MessageID
    public var mailbox: MailboxID
    public var from: String
    public var to: [String]
    public var subject: String
    public var size: Int
    public var tags: [String]
    public var receivedAt: Int64
}

/// Where news of arriving mail goes, and how it is signed.
public struct WebhookPolicy: Sendable {
    /// The targets, each an http or https URL as given.
    public var targets: [String]
    /// The HMAC-SHA256 key; nil: calls are not signed.
    public var secret: [UInt8]?
    /// Calls under way at once to one target.
    public var concurrency: Int
    /// The summary as the body of a call.
    public var encode: @Sendable (WebhookSummary) -> [UInt8]

    public init(targets: [String], secret: [UInt8]?, concurrency: Int = 4, encode: @escaping @Sendable (WebhookSummary) -> [UInt8]) {
        self.targets = targets
        self.secret = secret
        self.concurrency = max(concurrency, 1)
        self.encode = encode
    }

    /// The header that signs `body`: `sha256=` and the hex HMAC.
    public func signature(of body: [UInt8]) -> String? {
        secret.map { "sha256=" + MailDigest.hmacSHA256Hex(key: $0, body) }
    }
}

/// How a call went.
public enum WebhookOutcome: Sendable, Equatable {
    case delivered(String)
    /// Final: the target refused the call (a 4xx).
    case rejected(String)
    /// Worth another try: a 5xx, a timeout, a refused or lost connection.
    case retry(String)
}

/// What makes the calls: an HTTP client on the server's loops.
public protocol WebhookSender: Sendable {
    func post(to target: String, body: [UInt8], headers: [(String, String)], completion: @escaping @Sendable (WebhookOutcome) -> Void)
}

extension Mailroom {
    /// Sends news of arriving mail as `policy` says from now on (nil: none).
    public func useWebhooks(_ policy: WebhookPolicy?) {
        webhooks.withLock { $0 = policy }
    }

    /// Queues a call to every target for each copy of a message just stored, in its commit.
    static func announce(
        _ copies: [(MessageID, MailboxID)], mail: IncomingMail, tags: [String], _ policy: WebhookPolicy, at time: Int64,
        _ transaction: Transaction
    ) throws(StoreError) {
        for (id, box) in copies {
            let summary = WebhookSummary(
                id: id, mailbox: box, from: mail.fromHeader.isEmpty ? mail.envelopeFrom : mail.fromHeader, to: mail.envelopeTo,
                subject: mail.subject, size: mail.raw.count, tags: Tag.sorted(tags), receivedAt: time)
            try transaction.queueWebhook(policy.encode(summary), to: policy.targets, message: id, at: time)
        }
    }
}

/// Makes the queued webhook calls, each target's in the order queued, `concurrency` at once per
/// target; a 5xx or no answer is tried again after 10 s, then twice as long each time up to an
/// hour, for a day; a 4xx fails at once. Intake never waits for any of it: a call is a row
/// written in the commit that stores the message.
///
/// A call's place is given back as soon as its answer is in, so the next call starts while how
/// it went is still being committed: the settles of many calls share a commit (`QueueWrites`). Until its settle is durable a call is left out of the due
/// reads, so it is never made twice; and while a call that is to be tried again is being
/// settled, its target starts no other call, so the calls after it wait as they would behind
/// any call not yet due.
public final class WebhookQueue: Sendable {
    private let service: Mailroom
    private let sender: any WebhookSender
    private let policy: WebhookPolicy
    private let log: @Sendable (String) -> Void
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "mailroom.webhooks")
    private let ticker = Mutex<Ticker?>(nil)
    /// How calls went, committed together (see `QueueWrites`).
    private let writes: QueueWrites
    /// How many times the queue has been read for due calls: for tests.
    let reads = Atomic(0)

    static let lifetime: Int64 = 86_400
    static let longestWait: Int64 = 3_600

    /// How one call went, waiting to be committed.
    private struct Settle: Sendable {
        var call: DueWebhook
        var state: String
        var reply: String
        var retryAt: Int64?
        var time: Int64
    }

    private struct State {
        /// Calls under way, by target: what counts against `concurrency`.
        var sending: [String: Set<Int64>] = [:]
        /// Calls answered whose settles are not yet durable, by target: left out of due reads.
        var settling: [String: Set<Int64>] = [:]
        /// Per target, settles under way that put a call back in the queue: the target starts
        /// nothing while there is one.
        var requeueing: [String: Int] = [:]
        /// A pump is queued and has not yet begun: another one is not needed.
        var pumpQueued = false
        /// Per target, when the call put back in the queue comes due: until then every later call
        /// waits behind it, so the queue is not read for that target (a dead target costs intake
        /// no read per message).
        var resting: [String: Int64] = [:]
    }

    public init(service: Mailroom, sender: any WebhookSender, policy: WebhookPolicy, log: @escaping @Sendable (String) -> Void) {
        self.service = service
        self.sender = sender
        self.policy = policy
        self.log = log
        writes = QueueWrites(service: service)
    }

    public func start() {
        service.webhookWake.withLock { $0 = Wakeup { [weak self] in self?.pump() } }
        let ticking = Ticker(on: queue) { [weak self] in self?.pump() }
        ticker.withLock { $0 = ticking }
        pump()
    }

    public func stop() {
        service.webhookWake.withLock { $0 = nil }
        ticker.withLock { $0 }?.stop()
    }

    /// Returns once everything queued on the queue so far has run: for tests.
    func drain() {
        queue.sync {}
    }

    /// Starts the calls that are due and have room, on the queue; wake-ups that come while one
    /// is queued share it.
    func pump() {
        let queued = state.withLock { state in
            defer { state.pumpQueued = true }
            return state.pumpQueued
        }
        guard !queued else { return }
        queue.async { [self] in
            state.withLock { $0.pumpQueued = false }
            startDueCalls()
        }
    }

    private func startDueCalls() {
        let time = service.now()
        for target in policy.targets {
            let (room, excluded) = state.withLock { state -> (Int, Set<Int64>) in
                let sending = state.sending[target] ?? []
                guard state.requeueing[target, default: 0] == 0 else { return (0, []) }
                if let until = state.resting[target] {
                    guard time >= until else { return (0, []) }
                    state.resting[target] = nil
                }
                return (policy.concurrency - sending.count, sending.union(state.settling[target] ?? []))
            }
            guard room > 0 else { continue }
            let due: [DueWebhook]
            reads.wrappingAdd(1, ordering: .relaxed)
            do throws(ServiceError) {
                due = try service.read { reader throws(StoreError) in
                    try reader.dueWebhooks(to: target, at: time, limit: room, excluding: excluded)
                }
            } catch {
                log("webhook: cannot read the queue: \(error.message)")
                return
            }
            // Only this queue adds to `sending`, so the room counted above is still there.
            state.withLock { state in
                for call in due { state.sending[target, default: []].insert(call.id) }
            }
            for call in due { send(call) }
        }
    }

    private func send(_ call: DueWebhook) {
        var headers = [("X-Mailroom-Delivery", String(call.id))]
        if let signature = policy.signature(of: call.body) { headers.append(("X-Mailroom-Signature", signature)) }
        sender.post(to: call.target, body: call.body, headers: headers) { [self] outcome in
            // The sender's thread (an event loop) only hands the outcome over.
            queue.async { [self] in answered(call, outcome) }
        }
    }

    /// Gives the call's place back, hands its settle to the next commit, and starts what is due.
    private func answered(_ call: DueWebhook, _ outcome: WebhookOutcome) {
        let settle = judge(call, outcome)
        state.withLock { state in
            state.sending[call.target]?.remove(call.id)
            state.settling[call.target, default: []].insert(call.id)
            if settle.state == "queued" { state.requeueing[call.target, default: 0] += 1 }
        }
        writes.add({ transaction throws(StoreError) in
            try transaction.settleWebhook(settle.call.id, settle.state, reply: settle.reply, retryAt: settle.retryAt, at: settle.time)
        }, then: { [self] failure in
            queue.async { [self] in settled(settle, failure: failure?.message) }
        })
        startDueCalls()
    }

    /// What the outcome makes of the call, counted and logged.
    private func judge(_ call: DueWebhook, _ outcome: WebhookOutcome) -> Settle {
        let time = service.now()
        let metrics = service.metrics
        let (state, reply, retryAt): (String, String, Int64?)
        switch outcome {
        case .delivered(let text):
            (state, reply, retryAt) = ("sent", text, nil)
            metrics.webhooksDelivered.wrappingAdd(1, ordering: .relaxed)
        case .rejected(let text):
            (state, reply, retryAt) = ("failed", text, nil)
            metrics.webhooksFailed.wrappingAdd(1, ordering: .relaxed)
            log("webhook: \(call.target) refused call \(call.id) for good: \(text)")
        case .retry(let text):
            let wait = min(Int64(10) << min(call.attempts, 20), Self.longestWait)
            if time + wait - call.createdAt > Self.lifetime {
                (state, reply, retryAt) = ("failed", "Gave up after a day: " + text, nil)
                metrics.webhooksFailed.wrappingAdd(1, ordering: .relaxed)
                log("webhook: gave up on call \(call.id) to \(call.target): \(text)")
            } else {
                (state, reply, retryAt) = ("queued", text, time + wait)
                metrics.webhooksRetried.wrappingAdd(1, ordering: .relaxed)
                log("webhook: call \(call.id) to \(call.target) will be tried again in \(wait) s: \(text)")
            }
        }
        return Settle(call: call, state: state, reply: reply, retryAt: retryAt, time: time)
    }

    /// The settle's commit is over: its call may be read again (a failed settle leaves the
    /// call queued and due, so it is made again).
    private func settled(_ settle: Settle, failure: String?) {
        if let failure { log("webhook: cannot record how call \(settle.call.id) went: \(failure)") }
        let target = settle.call.target
        state.withLock { state in
            state.settling[target]?.remove(settle.call.id)
            guard settle.state == "queued" else { return }
            state.requeueing[target, default: 1] -= 1
            // Left queued by a failed commit: due now. Put back: due at its retry.
            let due = failure == nil ? settle.retryAt ?? 0 : 0
            state.resting[target] = min(state.resting[target] ?? due, due)
        }
        startDueCalls()
    }
}
