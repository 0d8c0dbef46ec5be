import Testing
import MailroomCore

/// Toolbar actions act on exactly the ticked rows, and every count on the page agrees.
@Suite struct BulkActionsTests {
    @Test func markReadAndUnreadActOnTheTickedRowsOnly() throws {
        let server = try TestServer(messages: 4)
        let tab = server.browser()
        try tab.get("/mailboxes/inbox")
        try tab.follow(linkID: "edit")

        let read = try tab.press(("action", "mark-read"), ticking: [1, 3])
        #expect(read.notice == "2 messages marked as read.")
        Self.expectSelection(read, [1, 3])
        #expect(Self.rows(read, with: "unread") == [2, 4])
        #expect(Self.serverRows(server) { $0.isUnread } == [2, 4])
        // Nothing ticked is unread any more, so the toolbar offers the opposite.
        #expect(read.toolbarButtonText("mark-unread") == "Mark Unread")

        let unread = try tab.press(("action", "mark-unread"))
        #expect(unread.notice == "2 messages marked as unread.")
        Self.expectSelection(unread, [1, 3])
        #expect(Self.rows(unread, with: "unread") == [1, 2, 3, 4])
        #expect(Self.serverRows(server) { $0.isUnread } == [1, 2, 3, 4])
    }

    @Test func flagAndUnflagActOnTheTickedRowsOnly() throws {
        let server = try TestServer(messages: 4)
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")

        let flagged = try tab.press(("action", "flag"), ticking: [1, 3, 4])
        #expect(flagged.notice == "3 messages flagged.")
        Self.expectSelection(flagged, [1, 3, 4])
        #expect(Self.rows(flagged, with: "flagged") == [1, 3, 4])
        #expect(Self.serverRows(server) { $0.isFlagged } == [1, 3, 4])
        #expect(flagged.toolbarButtonText("unflag") == "Unflag")

        let unflagged = try tab.press(("action", "unflag"), unticking: [1])
        #expect(unflagged.notice == "2 messages unflagged.")
        Self.expectSelection(unflagged, [3, 4])
        #expect(Self.rows(unflagged, with: "flagged") == [1])
        #expect(Self.serverRows(server) { $0.isFlagged } == [1])
        #expect(unflagged.toolbarButtonText("flag") == "Flag")
    }

    @Test func aBulkActionWithNothingTickedChangesNothingAndSaysSo() throws {
        let server = try TestServer(messages: 2)
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")
        let before = server.mailbox

        let page = try tab.press(("action", "mark-read"))
        #expect(page.notice == "Select one or more messages first.")
        #expect(page.hasToolbar)
        #expect(page.element(id: "action-mark-read")?["aria-disabled"] == nil)
        #expect(server.mailbox == before)
    }

    // MARK: Helpers

    /// "N Selected" in the heading and the title, "Delete (N)", and the ticked boxes all agree.
    private static func expectSelection(_ page: Page, _ ids: [Int], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(page.checkedIDs == ids, sourceLocation: sourceLocation)
        #expect(page.heading == "\(ids.count) Selected", sourceLocation: sourceLocation)
        #expect(page.title == "\(ids.count) Selected — Inbox — Mailroom", sourceLocation: sourceLocation)
        #expect(page.toolbarButtonText("delete") == "Delete (\(ids.count))", sourceLocation: sourceLocation)
        #expect(page.rowIDs.filter { page.rowClasses($0).contains("selected") } == ids, sourceLocation: sourceLocation)
    }

    private static func rows(_ page: Page, with rowClass: String) -> [Int] {
        page.rowIDs.filter { page.rowClasses($0).contains(rowClass) }
    }

    private static func serverRows(_ server: TestServer, where matches: (Message) -> Bool) -> [Int] {
        server.mailbox.messages.filter(matches).map { Int($0.id.rawValue) }
    }
}
