import Dispatch
import MailroomStore
import Synchronization

/// A queue's own writes (the outbound queue's, the webhook queue's), committed in batches:
/// while one batch is being committed, the writes that come meanwhile wait and go together in
/// the next, and a batch starts no sooner
/// than `gap` after the one before. Under load many messages share one commit (one sync, and
/// the table and index pages they touch written once); alone, a write goes at once. A batch
/// stands or falls whole, and each write's `then` hears how it went, on the committing thread.
final class QueueWrites: Sendable {
    typealias Write = (apply: @Sendable (Transaction) throws(StoreError) -> Void, then: @Sendable (ServiceError?) -> Void)

    /// Ten milliseconds: little against a relay's own answer to a message or a webhook call,
    /// enough for the writes of many sessions to meet.
    static let gap: Duration = .milliseconds(10)

    private let service: Mailroom
    private let state = Mutex<(waiting: [Write], committing: Bool, lastStart: ContinuousClock.Instant?)>(([], false, nil))

    init(service: Mailroom) {
        self.service = service
    }

    func add(_ apply: @escaping @Sendable (Transaction) throws(StoreError) -> Void, then: @escaping @Sendable (ServiceError?) -> Void) {
        let leads = state.withLock { state -> Bool in
            state.waiting.append((apply, then))
            guard !state.committing else { return false }
            state.committing = true
            return true
        }
        if leads { commitWaitingInTurn() }
    }

    /// Commits what waits now, or once `gap` has passed since the last batch began.
    private func commitWaitingInTurn() {
        let wait = state.withLock { state -> Duration in
            guard let last = state.lastStart else { return .zero }
            return max(.zero, Self.gap - (ContinuousClock.now - last))
        }
        guard wait > .zero else { return commitWaiting() }
        let (seconds, attoseconds) = wait.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in commitWaiting() }
    }

    private func commitWaiting() {
        let batch = state.withLock { state -> [Write] in
            let batch = state.waiting
            state.waiting = []
            if batch.isEmpty { state.committing = false } else { state.lastStart = .now }
            return batch
        }
        guard !batch.isEmpty else { return }
        // Queue rows only: no mailbox's pages change. The batch has a savepoint of its own, so
        // a write that fails takes no stored mail with it.
        service.performDetached(touching: [], { transaction throws(ServiceError) in
            try storing { () throws(StoreError) in
                for write in batch { try write.apply(transaction) }
            }
        }, then: { [self] failure in
            for write in batch { write.then(failure) }
            commitWaitingInTurn()
        })
    }
}
