#if canImport(Glibc)
import Glibc
#endif
import MailroomCore
import MailroomStore
import Synchronization
import Testing
@testable import MailroomWeb

/// A batch runs in one transaction; a command that fails part-way must leave nothing of itself
/// behind, and the commands around it must still count, in one commit.
@Suite struct GroupCommitTests {
    /// Three unread messages in the Inbox, and every commit the app makes.
    private let commits = Shared(0)
    private let test: TestApp

    init() throws {
        var inbox = Mailbox()
        for subject in ["Three", "Two", "One"] {
            try inbox.add(Draft(subject: subject), at: fixedNow)
        }
        let commits = commits
        test = try TestApp(library: Library(inbox: inbox), beforeCommit: { commits.value.withLock { $0 += 1 } })
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

    private func inbox() -> [String: Message] {
        Dictionary(uniqueKeysWithValues: (test.library[.inbox]?.messages ?? []).map { ($0.subject, $0) })
    }

    /// The leader runs ahead of page rendering while it holds the write lock, when the process
    /// may raise a thread's priority (root may), and gets its usual priority back afterwards.
    @Test func theLeaderRunsAtARaisedPriorityOnlyWhileItCommits() {
        let thread = __priority_which_t(PRIO_PROCESS.rawValue)
        let usual = getpriority(thread, 0)
        let during = Shared<Int32?>(nil)
        test.app.commitBatch([entry { _ in during.value.withLock { $0 = getpriority(thread, 0) } }])
        let expected = geteuid() == 0 ? max(usual - MailroomApp.leaderBoost, -20) : usual
        #expect(during.value.withLock { $0 } == expected)
        #expect(getpriority(thread, 0) == usual)
    }

    /// Posts that change only what the page shows (Edit, Select All, ticks, Done) are answered
    /// from a read snapshot: they make no commit, so they never queue behind the writer.
    @Test func postsThatChangeOnlyThePageMakeNoCommit() throws {
        for action in ["edit", "select-all", "deselect-all", "update", "done"] {
            let response = try test.post("/mailboxes/inbox", [("mode", "active"), ("action", action)])
            #expect(response.code == 303, "\(action)")
        }
        let ticked = try test.post("/mailboxes/inbox", [("mode", "active"), ("action", "select-all")])
        #expect(ticked.location?.contains("selected=1-3") == true, "\(ticked.location ?? "no location")")
        #expect(commits.value.withLock { $0 } == 0)
        let flagged = try test.post("/mailboxes/inbox", [("mode", "active"), ("selected", "1-3"), ("action", "flag")])
        #expect(flagged.code == 303)
        #expect(commits.value.withLock { $0 } == 1)
        #expect(inbox().values.filter(\.isFlagged).count == 3)
    }

    @Test func aCommandThatFailsAfterChangingSomethingLeavesNoTrace() {
        let (one, two, three) = (test.anyID("One"), test.anyID("Two"), test.anyID("Three"))
        test.app.commitBatch([
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
        let (one, two) = (test.anyID("One"), test.anyID("Two"))
        test.app.commitBatch([
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
        let two = test.anyID("Two")
        let before = test.library
        test.app.commitBatch([entry({ try $0.setUnread(false, for: [two], in: .inbox) }, succeeds: { false })])
        #expect(test.library == before)
    }
}

/// A value that closures on other threads can change.
private final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}
