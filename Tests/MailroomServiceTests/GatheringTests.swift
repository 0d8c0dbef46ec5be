import Dispatch
import Testing
@testable import MailroomService

/// Mail from many sessions at once shares a commit: the group's own leader waits for company
/// before committing a detached batch, but never for a batch that a thread waits for, and not
/// after a batch of one.
@Suite struct GatheringTests {
    /// A group whose commits each stop at a gate, so the test decides what is queued when.
    private final class Gated: Sendable {
        /// The gathering lasts 60 s here: only the queue ends it.
        let group: GroupCommit
        let sizes = Shared<[Int]>([])
        /// Signalled as each commit begins.
        let entered = DispatchSemaphore(value: 0)
        /// Each commit waits for a signal here before it ends.
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        /// Eight senders: a batch gathers until it holds four entries.
        init(senders: Int = 8) {
            group = GroupCommit(senders: { senders }, gathering: 60_000_000)
        }

        func detached() {
            let entry = GroupCommit.Entry(command: { _ in true }, whenDone: { [finished] _ in finished.signal() })
            group.submitDetached(entry) { [self] batch in commit(batch) }
        }

        func commit(_ batch: [GroupCommit.Entry]) {
            sizes.value.withLock { $0.append(batch.count) }
            entered.signal()
            gate.wait()
        }

        /// Whether a commit began within `seconds`.
        func began(within seconds: Double) -> Bool {
            entered.wait(timeout: .now() + seconds) == .success
        }

        /// Queues a batch of one, then one of two, leaving the second's commit at the gate with
        /// `more` detached entries queued behind it.
        func afterASharedBatch(queuing more: Int) {
            detached()
            #expect(began(within: 30))
            detached()
            detached()
            gate.signal()
            // After a batch of one, the next is not held back to gather, though it holds only two.
            #expect(began(within: 30))
            for _ in 0..<more { detached() }
            gate.signal()
        }
    }

    @Test func aDetachedBatchWaitsUntilItHoldsHalfTheSenders() {
        let gated = Gated()
        gated.afterASharedBatch(queuing: 2)
        // Two of the four wanted are queued: the leader waits (the gathering lasts 60 s here).
        #expect(!gated.began(within: 0.3))
        gated.detached()
        #expect(!gated.began(within: 0.1))
        gated.detached()
        #expect(gated.began(within: 30))
        gated.gate.signal()
        for _ in 0..<7 { #expect(gated.finished.wait(timeout: .now() + 30) == .success) }
        #expect(gated.sizes.value.withLock { $0 } == [1, 2, 4])
    }

    @Test func anAwaitedEntryEndsTheGathering() {
        let gated = Gated()
        gated.afterASharedBatch(queuing: 2)
        #expect(!gated.began(within: 0.3))
        let answered = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            gated.group.submit(GroupCommit.Entry { _ in true }) { batch in gated.commit(batch) }
            answered.signal()
        }
        #expect(gated.began(within: 30), "a post waiting for its change does not wait for mail to gather")
        gated.gate.signal()
        #expect(answered.wait(timeout: .now() + 30) == .success)
        for _ in 0..<5 { #expect(gated.finished.wait(timeout: .now() + 30) == .success) }
        #expect(gated.sizes.value.withLock { $0 } == [1, 2, 3])
    }

    @Test func fewSendersCommitAtOnce() {
        let gated = Gated(senders: 3)
        gated.afterASharedBatch(queuing: 1)
        // Three senders gather no company: the batch of one after a batch of two goes at once.
        #expect(gated.began(within: 30))
        gated.gate.signal()
        for _ in 0..<4 { #expect(gated.finished.wait(timeout: .now() + 30) == .success) }
        #expect(gated.sizes.value.withLock { $0 } == [1, 2, 1])
    }
}
