import Dispatch
import Glibc
import MailroomCore
import MailroomStore
import Synchronization

/// Commits the changes of many requests together: one transaction and one sync for a batch.
///
/// Each request queues its command and waits. The first to find no batch in progress leads:
/// it runs everything queued, one command after another, in one transaction (each command in
/// a savepoint of its own), commits, and wakes the others; it goes on leading while commands
/// keep arriving. Every answer is sent only after its batch is
/// durable, and a command that fails leaves no trace in the batch.
///
/// Mail does not wait: its command comes with what to do once the batch is done, and when no
/// batch is in progress, a thread of the group's own leads (`submitDetached`). A message then
/// costs no thread of its own, and no thread is woken for it alone.
///
/// A commit's sync costs the same for one message as for ten, so when mail comes from many
/// sessions at once, the group's own leader gathers company before committing (`gather`).
final class GroupCommit: Sendable {
    /// One queued command. Its closure is run by the leader while the submitting thread waits,
    /// and let go of before that thread is woken, so it never outlives the call that made it.
    final class Entry: @unchecked Sendable {
        private var command: ((Transaction) throws -> Bool)?
        let done = DispatchSemaphore(value: 0)
        /// Set when the batch could not be saved: the command's change was not kept.
        var saveFailure: ServiceError?
        /// The mailboxes the command changed, when it says so; nil: it may have changed any.
        var touched: Set<MailboxID>?
        /// For a submitter that does not wait: run on the leading thread once the batch is done.
        private var whenDone: ((Entry) -> Void)?
        /// A thread waits for this batch (`submit`): the batch is committed without waiting for company.
        let isAwaited: Bool

        /// A command that throws abandons the whole batch (one that runs in a savepoint of its
        /// own catches its errors and returns false instead).
        init(command: @escaping (Transaction) throws -> Bool, whenDone: ((Entry) -> Void)? = nil) {
            self.command = command
            self.whenDone = whenDone
            self.isAwaited = whenDone == nil
        }

        /// Runs the command inside the batch's transaction: true if it succeeded.
        func apply(to transaction: Transaction) throws -> Bool {
            try command?(transaction) ?? false
        }

        /// Lets go of the command once its batch is done.
        fileprivate func finish() {
            command = nil
        }

        /// Tells the submitter its batch is done.
        fileprivate func wake() {
            guard let whenDone else {
                done.signal()
                return
            }
            self.whenDone = nil
            whenDone(self)
        }
    }

    private struct Queue {
        var entries: [Entry] = []
        var isLeading = false
        /// The leader is gathering (`gather`) until this many entries are queued.
        var gatheringUntil: Int?
        /// Entries in the batch committed last.
        var lastBatch = 0
    }

    private let queue = Mutex(Queue())
    /// Wakes a gathering leader once enough entries, or an awaited one, are queued.
    private let gathered = DispatchSemaphore(value: 0)
    /// How many senders could submit soon (open SMTP sessions): how much company to gather.
    private let senders: @Sendable () -> Int
    /// Where a batch is led when only commands that do not wait are queued.
    private let leaders = DispatchQueue(label: "mailroom.group-commit")
    /// Commands announced (`expect`) but not yet submitted: mail being parsed on its way here.
    private let coming = Atomic<Int>(0)

    /// How long a leader waits for announced commands before committing without them.
    static let straggler = Duration.microseconds(400)
    /// A batch gathers company until it holds this share of the senders (`gather`).
    static let gatheredShare = 2
    /// The longest a detached batch waits for company, in µs (`gather`). 4 ms rather than 1:
    /// batches come nearer the share wanted, and 16 SMTP sessions cost about a tenth less CPU a
    /// message for as many messages a second (docs/benchmarks.md). Only mail from many sessions
    /// waits; a request whose thread waits ends the gathering at once.
    private let gathering: Int

    /// `senders` says how many sources of detached commands are open (SMTP sessions);
    /// `gathering` is the longest a detached batch waits for their company, in µs.
    init(senders: @escaping @Sendable () -> Int = { 0 }, gathering: Int = 4_000) {
        self.senders = senders
        self.gathering = gathering
    }

    /// Says that a command will be submitted soon (after its message is parsed); `submit`
    /// counts it off. A leader about to commit waits a moment for such commands, so that the
    /// messages of many sessions share one commit (one sync, one index segment) instead of
    /// each making its own.
    func expect() {
        coming.wrappingAdd(1, ordering: .relaxed)
    }

    /// Queues `entry` and returns once its batch is done; `commit` runs on the leading thread.
    func submit(_ entry: Entry, commit: @escaping @Sendable ([Entry]) -> Void) {
        guard enqueue(entry, expected: false) else {
            entry.done.wait()
            return
        }
        lead(entry, commit: commit)
    }

    /// Queues `entry`, made with a `whenDone`, and returns at once; `whenDone` runs on the
    /// leading thread once the batch is durable (or failed).
    func submitDetached(_ entry: Entry, expected: Bool = false, commit: @escaping @Sendable ([Entry]) -> Void) {
        guard enqueue(entry, expected: expected) else { return }
        leaders.async { self.lead(nil, commit: commit) }
    }

    /// Queues `entry`: true if the caller is to lead.
    private func enqueue(_ entry: Entry, expected: Bool) -> Bool {
        if expected { coming.wrappingSubtract(1, ordering: .relaxed) }
        let (leads, wakes) = queue.withLock { queue -> (Bool, Bool) in
            queue.entries.append(entry)
            var wakes = false
            if let wanted = queue.gatheringUntil, entry.isAwaited || queue.entries.count >= wanted {
                queue.gatheringUntil = nil
                wakes = true
            }
            guard !queue.isLeading else { return (false, wakes) }
            queue.isLeading = true
            return (true, wakes)
        }
        if wakes { gathered.signal() }
        return leads
    }

    /// Commits batches while commands keep coming; `own` is the leading caller's entry, if any.
    /// A caller leads only the batch that holds its own entry (the first): then it goes back to
    /// its request, and what came meanwhile is led on the leaders' queue, so a post is never
    /// kept committing others' mail for as long as mail keeps arriving.
    private func lead(_ own: Entry?, commit: @escaping @Sendable ([Entry]) -> Void) {
        while true {
            if own == nil { gather() }
            waitForStragglers()
            let batch = queue.withLock { queue -> [Entry] in
                let batch = queue.entries
                queue.entries = []
                queue.lastBatch = batch.count
                if batch.isEmpty { queue.isLeading = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            commit(batch)
            for queued in batch { queued.finish() }
            for other in batch where other !== own { other.wake() }
            guard own != nil else { continue }
            let more = queue.withLock { queue -> Bool in
                if queue.entries.isEmpty { queue.isLeading = false }
                return !queue.entries.isEmpty
            }
            // Still leading: the leaders' queue takes over.
            if more { leaders.async { self.lead(nil, commit: commit) } }
            return
        }
    }

    /// When the last batch was shared and many senders are open, waits (at most `gathering` µs,
    /// asleep, so the loops have the cores) until the queue holds a share of them. Each commit's
    /// sync and log pages then serve more messages (docs/benchmarks.md). A batch that a thread
    /// waits for, or that follows a batch of one, is committed at once.
    private func gather() {
        let wanted = min(senders() / Self.gatheredShare, 64)
        let waits = queue.withLock { queue -> Bool in
            guard queue.lastBatch > 1, wanted > 1, queue.entries.count < wanted,
                  !queue.entries.contains(where: \.isAwaited) else { return false }
            queue.gatheringUntil = wanted
            return true
        }
        guard waits, gathered.wait(timeout: .now() + .microseconds(gathering)) == .timedOut else { return }
        let woken = queue.withLock { queue -> Bool in
            defer { queue.gatheringUntil = nil }
            return queue.gatheringUntil == nil
        }
        // Its signal came as the wait ended: taken now, so it cannot end a later wait early.
        if woken { gathered.wait() }
    }

    /// Waits, at most `straggler`, while announced commands are still on their way.
    private func waitForStragglers() {
        guard coming.load(ordering: .relaxed) > 0 else { return }
        let deadline = ContinuousClock.now + Self.straggler
        while coming.load(ordering: .relaxed) > 0 && ContinuousClock.now < deadline {
            _ = sched_yield()
        }
    }
}
