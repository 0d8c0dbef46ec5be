import Dispatch
import MailroomCore
@testable import MailroomService
import MailroomStore
import Synchronization
import Testing

/// A target that records each call and answers as scripted (delivered once the script is used
/// up), on a thread of its own as the HTTP client would; the answers to the targets `holding`
/// names wait for `stopHolding`. The client itself is checked against real receivers end to end.
final class ScriptedTarget: WebhookSender {
    struct Call: Sendable {
        var target: String
        var body: String
    }

    private let script: Mutex<[WebhookOutcome]>
    /// The targets whose answers wait, and the answers waiting.
    private let holding: Mutex<(targets: Set<String>, answers: [@Sendable () -> Void])>
    let calls = Mutex<[Call]>([])
    /// Signalled once for each call.
    let called = DispatchSemaphore(value: 0)

    init(_ script: [WebhookOutcome] = [], holding: Set<String> = []) {
        self.script = Mutex(script)
        self.holding = Mutex((holding, []))
    }

    func post(to target: String, body: [UInt8], headers: [(String, String)], completion: @escaping @Sendable (WebhookOutcome) -> Void) {
        let outcome = script.withLock { $0.isEmpty ? WebhookOutcome.delivered("HTTP 204") : $0.removeFirst() }
        calls.withLock { $0.append(Call(target: target, body: String(decoding: body, as: UTF8.self))) }
        let held = holding.withLock { holding in
            guard holding.targets.contains(target) else { return false }
            holding.answers.append { completion(outcome) }
            return true
        }
        if !held { DispatchQueue.global().async { completion(outcome) } }
        called.signal()
    }

    /// Answers the calls held back, and every later call at once.
    func stopHolding() {
        let answers = holding.withLock { holding in
            defer { holding = ([], []) }
            return holding.answers
        }
        for answer in answers { answer() }
    }

    var bodies: [String] { calls.withLock { $0.map(\.body) } }
}

/// Holds every commit made while it is closed until it is opened: a slow disk, for the
/// commits of how calls went. The service commits one batch at a time, so one commit at most waits.
final class CommitGate: Sendable {
    private let closed = Mutex(false)
    private let opened = DispatchSemaphore(value: 0)
    /// Signalled when a commit reaches the closed gate.
    let reached = DispatchSemaphore(value: 0)

    func pass() {
        guard closed.withLock({ $0 }) else { return }
        reached.signal()
        opened.wait()
    }

    func close() {
        closed.withLock { $0 = true }
    }

    /// Lets the waiting commit, if any, go on, and every later one.
    func open() {
        let wasClosed = closed.withLock { closed in defer { closed = false }; return closed }
        if wasClosed { opened.signal() }
    }
}

@Suite struct WebhookQueueTests {
    static let target = "http://hooks.test/mail"

    /// A service that queues a call to each of `targets` for every message stored, its body the
    /// subject, with the messages named stored already; its commits pass `gate`.
    private func service(
        _ subjects: [String], targets: [String] = [target], concurrency: Int, gate: CommitGate,
        now: @escaping @Sendable () -> Int64 = { fixedNow }
    ) throws -> (Mailroom, WebhookPolicy) {
        let service = try makeService(inbox: [], beforeCommit: { gate.pass() }, now: now)
        let policy = WebhookPolicy(targets: targets, secret: nil, concurrency: concurrency) { Array($0.subject.utf8) }
        service.useWebhooks(policy)
        for subject in subjects {
            guard case .success = service.deliver(rawMail(subject)) else {
                throw ServiceError.unavailable("“\(subject)” was not stored")
            }
        }
        return (service, policy)
    }

    /// Waits for the next call not yet waited for, ten seconds at most.
    private func waitForCall(_ target: ScriptedTarget, _ what: Comment) -> Bool {
        guard target.called.wait(timeout: .now() + 10) == .success else {
            Issue.record("timed out waiting for \(what)")
            return false
        }
        return true
    }

    /// Waits, at each commit, until `condition` holds of the store (ten seconds at most).
    private func untilCommit(_ service: Mailroom, _ what: Comment, _ condition: (Reader) throws(StoreError) -> Bool) throws {
        let deadline = DispatchTime.now() + 10
        while try !service.read(condition) {
            guard DispatchTime.now() < deadline else {
                Issue.record("timed out waiting for \(what)")
                return
            }
            let seen = service.store.revision
            _ = service.commitWatch.wait(beyond: seen, revision: { service.store.revision }, until: .now() + 0.5)
        }
    }

    @Test func theNextCallStartsWhileHowTheLastWentIsStillBeingCommitted() throws {
        let gate = CommitGate()
        defer { gate.open() }
        let (service, policy) = try service(["One", "Two"], concurrency: 1, gate: gate)
        let target = ScriptedTarget()
        let queue = WebhookQueue(service: service, sender: target, policy: policy, log: { _ in })
        gate.close()
        queue.start()
        defer { queue.stop() }
        guard waitForCall(target, "the first call") else { return }
        // The first call is answered; committing that it was sent now waits on the disk.
        #expect(gate.reached.wait(timeout: .now() + 10) == .success)
        guard waitForCall(target, "the second call while the first one's settle waits") else { return }
        #expect(target.bodies == ["One", "Two"])
        gate.open()
        try untilCommit(service, "both calls to be recorded as sent") { reader throws(StoreError) in
            try reader.webhookCounts() == ["sent": 2]
        }
    }

    @Test func aCallToBeTriedAgainHoldsBackTheCallsAfterItWhileThatIsCommitted() throws {
        let gate = CommitGate()
        defer { gate.open() }
        let (service, policy) = try service(["One", "Two"], concurrency: 1, gate: gate)
        let target = ScriptedTarget([.retry("HTTP 503")])
        let queue = WebhookQueue(service: service, sender: target, policy: policy, log: { _ in })
        gate.close()
        queue.start()
        defer { queue.stop() }
        guard waitForCall(target, "the first call") else { return }
        #expect(gate.reached.wait(timeout: .now() + 10) == .success)
        // The queue has done all it would with the answer: the second call waits.
        queue.drain()
        #expect(target.bodies == ["One"])
        gate.open()
        try untilCommit(service, "the first call to be queued for later") { reader throws(StoreError) in
            try reader.dueWebhooks(to: Self.target, at: fixedNow, limit: 1, excluding: []).isEmpty
        }
        queue.drain()
        // The first call is not due for ten seconds, and the second waits behind it.
        #expect(target.bodies == ["One"])
        let later = try service.read { reader throws(StoreError) in
            try reader.dueWebhooks(to: Self.target, at: fixedNow + 10, limit: 2, excluding: [])
        }
        #expect(later.map { String(decoding: $0.body, as: UTF8.self) } == ["One", "Two"])
        #expect(later.first?.attempts == 1)
    }

    @Test func eachTargetHasItsOwnCallsAtOnce() throws {
        let gate = CommitGate()
        let slow = "http://slow.test/", quick = "http://quick.test/"
        let (service, policy) = try service(["One", "Two", "Three"], targets: [slow, quick], concurrency: 1, gate: gate)
        let target = ScriptedTarget(holding: [slow])
        let queue = WebhookQueue(service: service, sender: target, policy: policy, log: { _ in })
        queue.start()
        defer { queue.stop() }
        // The quick target's three calls go one after another while the slow one's first is unanswered.
        try untilCommit(service, "the quick target's calls to be sent") { reader throws(StoreError) in
            try reader.webhookCounts()["sent"] == 3
        }
        queue.drain()
        let calls = target.calls.withLock { $0 }
        #expect(calls.filter { $0.target == slow }.map(\.body) == ["One"])
        #expect(calls.filter { $0.target == quick }.map(\.body) == ["One", "Two", "Three"])
        target.stopHolding()
        try untilCommit(service, "every call to be sent") { reader throws(StoreError) in
            try reader.webhookCounts() == ["sent": 6]
        }
        #expect(target.calls.withLock { $0 }.filter { $0.target == slow }.map(\.body) == ["One", "Two", "Three"])
    }

    @Test func aTargetWaitingOutARetryIsNotReadForUntilThen() throws {
        let clock = Mutex(fixedNow)
        let (service, policy) = try service(["One"], concurrency: 1, gate: CommitGate(), now: { clock.withLock { $0 } })
        let target = ScriptedTarget([.retry("HTTP 503")])
        let queue = WebhookQueue(service: service, sender: target, policy: policy, log: { _ in })
        queue.start()
        defer { queue.stop() }
        guard waitForCall(target, "the first call") else { return }
        // Queued for later: no longer due now (it is queued, and due, before its first try too).
        try untilCommit(service, "the first call to be queued for later") { reader throws(StoreError) in
            guard try reader.webhookCounts() == ["queued": 1] else { return false }
            return try reader.dueWebhooks(to: Self.target, at: fixedNow, limit: 1, excluding: []).isEmpty
        }
        queue.drain()
        let readsBefore = queue.reads.load(ordering: .relaxed)
        // More mail, and wake-ups, while the first call waits out its ten seconds: nothing is
        // due, so nothing is read.
        for subject in ["Two", "Three"] {
            guard case .success = service.deliver(rawMail(subject)) else { throw ServiceError.unavailable("not stored") }
            queue.pump()
            queue.drain()
        }
        #expect(queue.reads.load(ordering: .relaxed) == readsBefore)
        #expect(target.bodies == ["One"])
        clock.withLock { $0 += 10 }
        queue.pump()
        try untilCommit(service, "all three calls to be sent") { reader throws(StoreError) in
            try reader.webhookCounts() == ["sent": 3]
        }
        #expect(target.bodies == ["One", "One", "Two", "Three"])
    }
}
