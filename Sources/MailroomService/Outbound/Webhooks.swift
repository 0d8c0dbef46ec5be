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
public final class WebhookQueue: Sendable {
    private let service: Mailroom
    private let sender: any WebhookSender
    private let policy: WebhookPolicy
    private let log: @Sendable (String) -> Void
    private let busy = Mutex<Set<Int64>>([])
    private let queue = DispatchQueue(label: "mailroom.webhooks")
    private let ticker = Mutex<Ticker?>(nil)

    static let lifetime: Int64 = 86_400
    static let longestWait: Int64 = 3_600

    public init(service: Mailroom, sender: any WebhookSender, policy: WebhookPolicy, log: @escaping @Sendable (String) -> Void) {
        self.service = service
        self.sender = sender
        self.policy = policy
        self.log = log
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

    func pump() {
        queue.async { [self] in
            let time = service.now()
            for target in policy.targets {
                let inFlight = busy.withLock { busy in busy }
                let due: [DueWebhook]
                do throws(ServiceError) {
                    due = try service.read { reader throws(StoreError) in
                        try reader.dueWebhooks(to: target, at: time, limit: policy.concurrency, excluding: inFlight)
                    }
                } catch {
                    log("webhook: cannot read the queue: \(error.message)")
                    return
                }
                let running = busy.withLock { $0.count }
                for call in due.prefix(max(policy.concurrency * policy.targets.count - running, 0)) {
                    busy.withLock { _ = $0.insert(call.id) }
                    send(call)
                }
            }
        }
    }

    private func send(_ call: DueWebhook) {
        var headers = [("X-Mailroom-Delivery", String(call.id))]
        if let signature = policy.signature(of: call.body) { headers.append(("X-Mailroom-Signature", signature)) }
        sender.post(to: call.target, body: call.body, headers: headers) { [self] outcome in
            DispatchQueue.global().async { [self] in
                settle(call, outcome)
                busy.withLock { _ = $0.remove(call.id) }
                pump()
            }
        }
    }

    private func settle(_ call: DueWebhook, _ outcome: WebhookOutcome) {
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
        do throws(ServiceError) {
            try service.performing { transaction throws(ServiceError) in
                try storing { () throws(StoreError) in
                    try transaction.settleWebhook(call.id, state, reply: reply, retryAt: retryAt, at: time)
                }
            }
        } catch {
            log("webhook: cannot record how call \(call.id) went: \(error.message)")
        }
    }
}
