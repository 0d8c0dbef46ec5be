#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import MailroomCore
@testable import MailroomStore
import Synchronization
import Testing
@testable import MailroomService

/// A batch runs in one transaction; a command that fails part-way must leave nothing of itself
/// behind, and the commands around it must still count, in one commit.
@Suite struct GroupCommitTests {
    /// Three unread messages in the Inbox, and every commit the app makes.
    private let commits = Shared(0)
    private let service: Mailroom

    init() throws {
        var inbox = Mailbox()
        for subject in ["Three", "Two", "One"] {
            try inbox.add(Draft(subject: subject), at: fixedNow)
        }
        let commits = commits
        service = try Mailroom(library: Library(inbox: inbox), now: { fixedNow }, beforeCommit: { commits.value.withLock { $0 += 1 } })
    }

    /// A command run as `perform` runs one: in a savepoint, failing when `succeeds` says so,
    /// and stopping the batch when its error ended the transaction.
    private func entry(_ change: @escaping (Transaction) throws -> Void, succeeds: @escaping () -> Bool = { true }) -> GroupCommit.Entry {
        GroupCommit.Entry { transaction in
            do {
                try transaction.attempt {
                    try change(transaction)
                    if !succeeds() { throw StoreError.failed("refused on purpose") }
                }
                return true
            } catch let ended as TransactionEnded {
                throw ended
            } catch {
                return false
            }
        }
    }

    /// What SQLite does by itself after a full disk or an I/O error: the whole transaction is
    /// rolled back, and the statement fails.
    private func failEndingTheTransaction(_ transaction: Transaction) throws {
        try transaction.database.execute("ROLLBACK")
        throw StoreError.sqlite(code: 13, message: "database or disk is full", sql: nil)
    }

    private func anyID(_ subject: String) -> MessageID {
        service.library[.inbox]?.messages.first { $0.subject == subject }?.id ?? MessageID(0)
    }

    private func inbox() -> [String: Message] {
        Dictionary(uniqueKeysWithValues: (service.library[.inbox]?.messages ?? []).map { ($0.subject, $0) })
    }

    /// The leader runs ahead of page rendering while it holds the write lock, when the process
    /// may raise a thread's priority (root may), and gets its usual priority back afterwards.
    @Test func theLeaderRunsAtARaisedPriorityOnlyWhileItCommits() {
        let thread = __priority_which_t(PRIO_PROCESS.rawValue)
        let usual = getpriority(thread, 0)
        let during = Shared<Int32?>(nil)
        service.commitBatch([entry { _ in during.value.withLock { $0 = getpriority(thread, 0) } }])
        let expected = geteuid() == 0 ? max(usual - Mailroom.leaderBoost, -20) : usual
        #expect(during.value.withLock { $0 } == expected)
        #expect(getpriority(thread, 0) == usual)
    }

    @Test func aCommandThatFailsAfterChangingSomethingLeavesNoTrace() {
        let (one, two, three) = (anyID("One"), anyID("Two"), anyID("Three"))
        service.commitBatch([
            entry { try $0.setFlagged(true, for: [one], in: .inbox) },
            entry({ try $0.setUnread(false, for: [two], in: .inbox) }, succeeds: { false }),
            entry { try $0.setFlagged(true, for: [three], in: .inbox) },
        ])
        let rows = inbox()
        #expect(rows["One"]?.isFlagged == true)
        #expect(rows["Two"]?.isUnread == true, "the failed command's change was kept")
        #expect(rows["Three"]?.isFlagged == true)
        #expect(commits.value.withLock { $0 } == 1)
    }

    @Test func aFailedCommandDoesNotUndoTheOnesBeforeIt() {
        let (one, two) = (anyID("One"), anyID("Two"))
        service.commitBatch([
            entry { try $0.setFlagged(true, for: [one], in: .inbox) },
            entry({ try $0.setUnread(false, for: [two], in: .inbox) }, succeeds: { false }),
            entry { try $0.setFlagged(true, for: [two], in: .inbox) },
        ])
        let rows = inbox()
        #expect(rows["One"]?.isFlagged == true)
        #expect(rows["Two"]?.isUnread == true)
        #expect(rows["Two"]?.isFlagged == true)
        #expect(commits.value.withLock { $0 } == 1)
    }

    @Test func aBatchOfOnlyFailedCommandsChangesNoMessage() {
        let two = anyID("Two")
        let before = service.library
        service.commitBatch([entry({ try $0.setUnread(false, for: [two], in: .inbox) }, succeeds: { false })])
        #expect(service.library == before)
    }

    @Test func aCommandWhoseErrorEndsTheTransactionFailsTheWholeBatch() {
        let (one, three) = (anyID("One"), anyID("Three"))
        service.commitBatch([
            entry { try $0.setFlagged(true, for: [one], in: .inbox) },
            entry { try failEndingTheTransaction($0) },
            entry { try $0.setFlagged(true, for: [three], in: .inbox) },
        ])
        let rows = inbox()
        #expect(rows["One"]?.isFlagged == false, "rolled back with the transaction")
        #expect(rows["Three"]?.isFlagged == false, "a command after the end was kept on its own")
        #expect(commits.value.withLock { $0 } == 0)
        // The next batch commits as usual.
        service.commitBatch([entry { try $0.setFlagged(true, for: [three], in: .inbox) }])
        #expect(inbox()["Three"]?.isFlagged == true)
    }

    @Test func performSaysWhatEndedTheTransactionAndTheNextOneCommits() throws {
        let one = anyID("One")
        let error = #expect(throws: ServiceError.self) {
            try service.perform { transaction in
                try transaction.setFlagged(true, for: [one], in: .inbox)
                try failEndingTheTransaction(transaction)
            }
        }
        #expect(error?.message.contains("database or disk is full") == true)
        #expect(inbox()["One"]?.isFlagged == false)
        _ = try service.perform { try $0.setFlagged(true, for: [one], in: .inbox) }
        #expect(inbox()["One"]?.isFlagged == true)
    }

    /// A post that finds no batch being led leads one, with its own change; what arrives
    /// meanwhile (mail, say) is led on the group commit's own queue, not by the post's thread,
    /// which answers as soon as its change is durable.
    @Test func aCallerLeadsOnlyTheBatchThatHoldsItsOwnEntry() {
        let group = GroupCommit()
        let caller = pthread_self()
        let committedOn = Shared<[pthread_t]>([])
        let lateDone = DispatchSemaphore(value: 0)
        let late = GroupCommit.Entry(command: { _ in true }, whenDone: { _ in lateDone.signal() })
        group.submit(GroupCommit.Entry { _ in true }) { _ in
            let first = committedOn.value.withLock { threads -> Bool in
                threads.append(pthread_self())
                return threads.count == 1
            }
            if first { group.submitDetached(late) { _ in } }
        }
        #expect(lateDone.wait(timeout: .now() + 30) == .success)
        let threads = committedOn.value.withLock { $0 }
        #expect(threads.count == 2)
        #expect(threads.first == caller)
        #expect(threads.last != caller, "the caller led only the batch with its own entry")
    }
}
