#if canImport(Glibc)
import Glibc
#endif
import MailroomCore
import MailroomStore
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

    /// A command run as `perform` runs one: in a savepoint, failing when `succeeds` says so.
    private func entry(_ change: @escaping (Transaction) throws -> Void, succeeds: @escaping () -> Bool = { true }) -> GroupCommit.Entry {
        GroupCommit.Entry { transaction in
            do {
                try transaction.attempt {
                    try change(transaction)
                    if !succeeds() { throw StoreError.failed("refused on purpose") }
                }
                return true
            } catch {
                return false
            }
        }
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
}
