import MailroomCore
import MailroomStore
import Synchronization
import Testing
@testable import MailroomWeb

@Suite struct PageOnlyPostTests {
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

    private func inbox() -> [String: Message] {
        Dictionary(uniqueKeysWithValues: (test.library[.inbox]?.messages ?? []).map { ($0.subject, $0) })
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
}

/// A value that closures on other threads can change.
private final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}
