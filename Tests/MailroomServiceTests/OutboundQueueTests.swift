import Dispatch
import MailroomCore
import MailroomService
import MailroomStore
import Synchronization
import Testing

/// A relay that answers as each test scripts it, on a thread of its own as a real one would:
/// the queue's own bookkeeping is what these tests check. The real client against Postfix is
/// checked end to end.
final class ScriptedRelay: OutboundSender {
    enum Step: Sendable {
        /// Refused or failed before the end of the data (beforeEnd is never called).
        case beforeData([OutboundReply])
        /// Takes the data, then answers each recipient.
        case afterData([OutboundReply])
    }

    let steps: Mutex<[Step]>
    let sent = Mutex<[OutboundEnvelope]>([])
    let finished = DispatchSemaphore(value: 0)

    init(_ steps: [Step]) {
        self.steps = Mutex(steps)
    }

    func send(
        _ mail: OutboundEnvelope, beforeEnd: @escaping @Sendable (@escaping @Sendable (Bool) -> Void) -> Void,
        completion: @escaping @Sendable ([OutboundReply]) -> Void
    ) {
        let step = steps.withLock { $0.isEmpty ? Step.afterData(mail.recipients.map { _ in .accepted("250 ok") }) : $0.removeFirst() }
        DispatchQueue.global().async { [self] in
            switch step {
            case .beforeData(let replies):
                completion(replies)
                finished.signal()
            case .afterData(let replies):
                beforeEnd { proceed in
                    if proceed { self.sent.withLock { $0.append(mail) } }
                    completion(proceed ? replies : mail.recipients.map { _ in .deferred("abandoned") })
                    self.finished.signal()
                }
            }
        }
    }
}

@Suite struct OutboundQueueTests {
    private func service(allowing patterns: [String] = [".*@example\\.test"]) throws -> Mailroom {
        let service = try makeService(inbox: ["Disk 91% full", "Second"])
        service.useRelay(RelayPolicy(allowedRecipients: patterns, hostName: "mailroom.test"))
        return service
    }

    /// Runs the queue over `relay` until `settled` holds of the store (ten seconds at most),
    /// waking at each commit.
    private func run(_ service: Mailroom, _ relay: ScriptedRelay, until settled: () throws -> Bool) throws {
        let queue = OutboundQueue(service: service, sender: relay, sessions: 4, log: { _ in })
        try queue.start()
        defer { queue.stop() }
        let deadline = DispatchTime.now() + 10
        while try !settled() {
            guard DispatchTime.now() < deadline else {
                Issue.record("the queue did not settle")
                return
            }
            let seen = service.store.revision
            _ = service.commitWatch.wait(beyond: seen, revision: { service.store.revision }, until: .now() + 0.5)
        }
    }

    private func states(_ service: Mailroom, _ id: Int64) throws -> [OutboundRow.State] {
        try service.outbound(of: MessageID(id)).map(\.state)
    }

    @Test func aReleaseIsQueuedPerRecipientAndSentByteForByteUnderAReceivedLine() throws {
        let service = try service()
        let tally = try service.release([MessageID(1), MessageID(99)], to: "ann@example.test, bob@example.test", cause: "release")
        #expect(tally == Mailroom.Tally(changed: 1, gone: 1))
        #expect(try service.outbound(of: MessageID(1)).map(\.state) == [.queued, .queued])
        let relay = ScriptedRelay([])
        try run(service, relay) { try states(service, 1) == [.sent, .sent] }
        let rows = try service.outbound(of: MessageID(1))
        #expect(rows.map(\.reply) == ["250 ok", "250 ok"])
        let mail = try #require(relay.sent.withLock { $0.first })
        #expect(mail.recipients == ["ann@example.test", "bob@example.test"])
        let text = String(decoding: mail.bytes, as: UTF8.self)
        #expect(text.hasPrefix("Received: by mailroom.test (Mailroom) id 1;\r\n\t"))
        #expect(text.contains("Subject: Disk 91% full"))
    }

    @Test func addressesOutsideTheAllowListAreRefusedAndNothingIsQueued() throws {
        let service = try service()
        #expect(throws: ServiceError.refused("“eve@elsewhere.test” is not an address Mailroom may send to (see --relay-allow-to).")) {
            try service.release([MessageID(1)], to: "ann@example.test eve@elsewhere.test", cause: "release")
        }
        #expect(throws: ServiceError.badInput("“not” is not an email address.")) {
            try service.release([MessageID(1)], to: "not", cause: "release")
        }
        #expect(try service.outbound(of: MessageID(1)).isEmpty)
        let closed = try makeService(inbox: ["One"])
        #expect(throws: ServiceError.self) { try closed.release([MessageID(1)], to: "ann@example.test", cause: "release") }
        closed.useRelay(RelayPolicy(allowedRecipients: []))
        #expect(throws: ServiceError.refused("Mailroom sends no mail out: --relay-allow-to names no address it may go to.")) {
            try closed.release([MessageID(1)], to: "ann@example.test", cause: "release")
        }
    }

    @Test func aTemporaryFailureIsTriedAgainLaterAndAPermanentOneFails() throws {
        let service = try service()
        _ = try service.release([MessageID(1)], to: "ann@example.test, bob@example.test", cause: "forward")
        let relay = ScriptedRelay([.afterData([.deferred("451 4.3.0 try later"), .refused("550 5.1.1 no such user")])])
        try run(service, relay) { try states(service, 1) == [.queued, .failed] }
        let rows = try service.outbound(of: MessageID(1))
        #expect(rows.map(\.state) == [.queued, .failed])
        #expect(rows[0].isDeferred)
        #expect(rows[0].nextAttempt == fixedNow + 60)
        #expect(rows[0].reply == "451 4.3.0 try later")
        #expect(rows[1].reply == "550 5.1.1 no such user")
    }

    @Test func noAnswerAfterTheEndOfTheDataIsInDoubtAndNotSentAgain() throws {
        let service = try service()
        _ = try service.release([MessageID(2)], to: "ann@example.test", cause: "release")
        let relay = ScriptedRelay([.afterData([.deferred("the connection was lost after the end of the data")])])
        try run(service, relay) { try states(service, 2) == [.failed] }
        let row = try #require(try service.outbound(of: MessageID(2)).first)
        #expect(row.state == .failed)
        #expect(row.reply.hasPrefix(OutboundQueue.inDoubt))
    }

    @Test func troubleBeforeTheDataIsTriedAgain() throws {
        let service = try service()
        _ = try service.release([MessageID(2)], to: "ann@example.test", cause: "release")
        let relay = ScriptedRelay([.beforeData([.deferred("cannot connect to the relay: connection refused")])])
        try run(service, relay) { try service.outbound(of: MessageID(2)).first?.attempts == 1 }
        let row = try #require(try service.outbound(of: MessageID(2)).first)
        #expect(row.state == .queued)
        #expect(row.attempts == 1)
    }

    @Test func aRestartFailsWhatWasBeingSentAndMakesDeferredMailDueAtOnce() throws {
        let service = try service()
        _ = try service.release([MessageID(1)], to: "ann@example.test", cause: "release")
        _ = try service.release([MessageID(2)], to: "bob@example.test", cause: "release")
        let doubtful = try #require(try service.outbound(of: MessageID(1)).first)
        let deferred = try #require(try service.outbound(of: MessageID(2)).first)
        try service.perform { transaction in
            try transaction.markSending([doubtful.id], at: fixedNow)
            try transaction.settle(deferred.id, .queued, reply: "451 later", retryAt: fixedNow + 3_600, countAttempt: true, at: fixedNow)
        }
        let relay = ScriptedRelay([])
        try run(service, relay) { try states(service, 2) == [.sent] }
        #expect(try service.outbound(of: MessageID(1)).first?.state == .failed)
        #expect(try service.outbound(of: MessageID(2)).first?.state == .sent)
        #expect(relay.sent.withLock { $0.map(\.recipients) } == [["bob@example.test"]])
    }

    @Test func arrivingMailIsPassedOnWhenItMatchesAndOnlyToAllowedRecipients() throws {
        let service = try makeService(inbox: [])
        service.useRelay(RelayPolicy(allowedRecipients: [".*@example\\.test"], relayMatching: try SearchQuery("subject:urgent")))
        let urgent = try service.deliver(rawMail("Urgent: disk"), to: ["ops@example.test", "boss@elsewhere.test"]).get()
        let calm = try service.deliver(rawMail("Calm news"), to: ["ops@example.test"]).get()
        #expect(try service.outbound(of: urgent[0]).map(\.recipient) == ["ops@example.test"])
        #expect(try service.outbound(of: urgent[0]).map(\.cause) == ["relay"])
        #expect(try service.outbound(of: calm[0]).isEmpty)
    }

    @Test func messagesSentTogetherShareTheirCommits() throws {
        let commits = Mutex(0)
        let subjects = (1...24).map { "Report \($0)" }
        let service = try makeService(inbox: subjects, beforeCommit: { commits.withLock { $0 += 1 } })
        service.useRelay(RelayPolicy(allowedRecipients: [".*@example\\.test"], hostName: "mailroom.test"))
        let ids = (1...Int64(subjects.count)).map { MessageID($0) }
        _ = try service.release(ids, to: "ann@example.test", cause: "release")
        let before = commits.withLock { $0 }
        let relay = ScriptedRelay([])
        try run(service, relay) { try ids.allSatisfy { id in try states(service, id.rawValue) == [.sent] } }
        // Each message writes twice (sending, then sent): 48 writes. Four sessions at once, and
        // a batch at most every 10 ms, put several in each commit.
        let used = commits.withLock { $0 } - before
        #expect(relay.sent.withLock { $0.count } == subjects.count)
        #expect(used <= subjects.count, "\(used) commits for \(2 * subjects.count) writes")
    }
}
