import MailroomCore
import Synchronization
import Testing
@testable import MailroomWeb

/// A batch is applied to one working copy in place; a command that fails part-way must leave
/// nothing of itself behind, and the commands around it must still count, in one save.
@Suite struct GroupCommitTests {
    /// Three unread messages in the Inbox, and every save the app makes.
    private let saves = Shared<[Changes]>([])
    private let test: TestApp

    init() throws {
        var inbox = Mailbox()
        for subject in ["Three", "Two", "One"] {
            try inbox.add(Draft(subject: subject), at: fixedNow)
        }
        let saves = saves
        test = try TestApp(library: Library(inbox: inbox), save: { changes in saves.value.withLock { $0.append(changes) } })
    }

    private func entry(_ change: @escaping (inout Mailbox) -> Void, succeeds: @escaping () -> Bool = { true }) -> GroupCommit.Entry {
        GroupCommit.Entry { library in
            _ = try? library.update(.inbox) { mailbox in change(&mailbox) }
            return succeeds()
        }
    }

    private func inbox() -> [String: Message] {
        Dictionary(uniqueKeysWithValues: (test.library[.inbox]?.messages ?? []).map { ($0.subject, $0) })
    }

    @Test func aCommandThatFailsAfterChangingSomethingLeavesNoTrace() {
        let (one, two, three) = (test.anyID("One"), test.anyID("Two"), test.anyID("Three"))
        test.app.commitBatch([
            entry { $0.setFlagged(true, for: [one]) },
            entry({ $0.setUnread(false, for: [two]) }, succeeds: { false }),
            entry { $0.setFlagged(true, for: [three]) },
        ])
        let rows = inbox()
        #expect(rows["One"]?.isFlagged == true)
        #expect(rows["Two"]?.isUnread == true, "the failed command's change was kept")
        #expect(rows["Three"]?.isFlagged == true)
        let saved = saves.value.withLock { $0 }
        #expect(saved.count == 1)
        #expect(saved.first?.savedMessages.map(\.message.id).sorted() == [one, three].sorted())
    }

    @Test func aCommandThatFailsWhenRunAgainIsDroppedWithEverythingItDid() {
        let (one, two) = (test.anyID("One"), test.anyID("Two"))
        let runs = Shared(0)
        test.app.commitBatch([
            // Succeeds on its first run only, as no real command should.
            entry({ $0.setFlagged(true, for: [one]) }, succeeds: { runs.value.withLock { $0 += 1; return $0 == 1 } }),
            entry({ $0.setUnread(false, for: [two]) }, succeeds: { false }),
            entry { $0.setFlagged(true, for: [two]) },
        ])
        let rows = inbox()
        #expect(rows["One"]?.isFlagged == false)
        #expect(rows["Two"]?.isUnread == true)
        #expect(rows["Two"]?.isFlagged == true)
        #expect(saves.value.withLock { $0.count } == 1)
    }

    @Test func aBatchOfOnlyFailedCommandsStoresNothing() {
        let two = test.anyID("Two")
        let before = test.library
        test.app.commitBatch([entry({ $0.setUnread(false, for: [two]) }, succeeds: { false })])
        #expect(test.library == before)
        #expect(saves.value.withLock { $0.isEmpty })
    }
}

/// A value that closures on other threads can change.
private final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}
