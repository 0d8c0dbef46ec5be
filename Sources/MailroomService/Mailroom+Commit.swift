#if canImport(Glibc)
import Glibc
#endif
import MailroomCore
import MailroomStore

extension Mailroom {
    /// Runs `command` in a transaction and returns only once it is durable. A command that
    /// throws changes nothing, and its error comes back as it was thrown (a `StoreError` as a
    /// `ServiceError`); a commit that fails changes nothing either and throws
    /// `ServiceError.unavailable`. Commands arriving together are committed together (see
    /// `GroupCommit`); readers never wait for a commit.
    ///
    /// `touching` names the mailboxes the command may change, when it knows (nil: any), so that
    /// caches of the others stay. `isolated: false` runs the command without a savepoint of its
    /// own, and a command that throws then abandons its whole batch. For a command that cannot
    /// be refused, only fail (storing mail): a savepoint makes the search index write its
    /// pending words to the file, so without one a batch's messages share one index segment.
    public func perform<Result: Sendable>(
        isolated: Bool = true, touching: Set<MailboxID>? = nil, _ command: (Transaction) throws -> Result
    ) throws -> Result {
        var outcome: Swift.Result<Result, any Error>?
        let saveFailure = withoutActuallyEscaping(command) { command -> ServiceError? in
            let entry = GroupCommit.Entry { transaction in
                guard isolated else {
                    do {
                        outcome = .success(try command(transaction))
                        return true
                    } catch {
                        outcome = .failure(Self.said(error))
                        throw error
                    }
                }
                do {
                    outcome = .success(try transaction.attempt { () throws -> Result in try command(transaction) })
                    return true
                } catch let ended as TransactionEnded {
                    outcome = .failure(Self.said(ended.cause))
                    throw ended
                } catch {
                    outcome = .failure(Self.said(error))
                    return false
                }
            }
            entry.touched = touching
            commits.submit(entry) { [self] batch in commitBatch(batch) }
            return entry.saveFailure
        }
        if let saveFailure { throw saveFailure }
        switch outcome {
        case .success(let result)?: return result
        case .failure(let error)?: throw error
        case nil: throw ServiceError.unavailable("The change was not run.")
        }
    }

    /// `perform` for a caller that must not wait (a queue driven from the event loops): the
    /// command runs in its own savepoint with the next batch, and `then` gets nil once that is
    /// durable, or why nothing of it was kept. `then` runs on the committing thread, so it
    /// must only hand work on.
    func performDetached(
        touching: Set<MailboxID>? = nil, _ command: @escaping (Transaction) throws(ServiceError) -> Void,
        then: @escaping @Sendable (ServiceError?) -> Void
    ) {
        let failure = DetachedFailure()
        let entry = GroupCommit.Entry(command: { transaction in
            do {
                try transaction.attempt { () throws -> Void in try command(transaction) }
                return true
            } catch {
                let cause = (error as? TransactionEnded)?.cause ?? error
                failure.error = cause as? ServiceError ?? Self.said(cause) as? ServiceError
                    ?? .unavailable("\(ServiceError.changing) (\(cause))")
                // The batch stops here and fails as a whole (see `TransactionEnded`).
                if error is TransactionEnded { throw error }
                return false
            }
        }, whenDone: { entry in
            then(entry.saveFailure ?? failure.error)
        })
        entry.touched = touching
        commits.submitDetached(entry) { [self] batch in commitBatch(batch) }
    }

    /// `perform` for commands whose only errors are the service's own.
    func performing<Result: Sendable>(
        touching: Set<MailboxID>? = nil, _ command: (Transaction) throws(ServiceError) -> Result
    ) throws(ServiceError) -> Result {
        do {
            return try perform(touching: touching) { transaction in try command(transaction) }
        } catch {
            throw error as? ServiceError ?? .unavailable("\(ServiceError.changing) (\(error))")
        }
    }

    /// A command's error as callers get it: the store's errors in the service's words.
    private static func said(_ error: any Error) -> any Error {
        guard let error = error as? StoreError else { return error }
        return ServiceError(error, doing: ServiceError.changing)
    }

    /// How much lower a thread's nice value is while it leads a batch.
    static let leaderBoost: Int32 = 5

    /// Runs a batch in order in one transaction, each command in its own savepoint (one that
    /// fails leaves no trace), then commits once. Only the leading thread runs this.
    func commitBatch(_ batch: [GroupCommit.Entry]) {
        var applied: [GroupCommit.Entry] = []
        var ran = 0
        // The leader holds the one write lock that every post waits on. While it does, it runs
        // ahead of the threads that render pages (those never wait for it), so a long batch,
        // such as a 100,000-message delete, lets go of the lock sooner. On Linux the nice value
        // is per thread, and `who` 0 is the calling thread. Raising it needs CAP_SYS_NICE (root
        // has it); without, the batch runs at the thread's usual priority.
        let thread = __priority_which_t(PRIO_PROCESS.rawValue)
        let usual = getpriority(thread, 0)
        let raised = setpriority(thread, 0, max(usual - Self.leaderBoost, -20)) == 0
        defer { if raised { setpriority(thread, 0, usual) } }
        defer { pendingTouch.withLock { $0 = nil } }
        do {
            try store.write { transaction in
                for entry in batch {
                    ran += 1
                    if try entry.apply(to: transaction) { applied.append(entry) }
                }
                try beforeCommit?()
                // Told to the commit observer, which runs under the same write lock.
                if batch.allSatisfy({ $0.touched != nil }) {
                    let touched = batch.reduce(into: Set<MailboxID>()) { $0.formUnion($1.touched ?? []) }
                    pendingTouch.withLock { $0 = (transaction.stamp, touched) }
                }
            }
            metrics.countCommit(changes: batch.count)
        } catch {
            let failure = ServiceError.unavailable("Mailroom could not save this change, so nothing was changed. (\(error))")
            // What ran is rolled back with the batch; what did not run yet never will.
            for entry in applied + batch.dropFirst(ran) { entry.saveFailure = failure }
        }
    }
}

/// What a detached command threw, kept for its `then`: written and read on the committing
/// thread only.
private final class DetachedFailure: @unchecked Sendable {
    var error: ServiceError?
}
