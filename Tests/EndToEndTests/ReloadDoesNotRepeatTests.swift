import Testing
import MailroomCore

/// Post/Redirect/Get: the page after a change is a GET, so reloading it changes nothing.
@Suite struct ReloadDoesNotRepeatTests {
    @Test func reloadingAfterAnAddDoesNotAddAgain() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let tab = server.browser()
        try tab.addMessage(subject: "Bravo")
        #expect(tab.redirects.map(\.status) == [303])
        #expect(server.mailbox.count == 2)

        try tab.reload()
        let again = try tab.reload()
        #expect(again.rowIDs == [2, 1])
        #expect(server.mailbox.count == 2)
    }

    @Test func reloadingAfterAMoveDoesNotMoveAgain() throws {
        let server = try TestServer(messages: 4)
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")
        try tab.press(("move-down", "1"), ticking: [2])
        #expect(tab.page.rowIDs == [2, 1, 3, 4])

        let reloaded = try tab.reload()
        #expect(reloaded.rowIDs == [2, 1, 3, 4])
        #expect(reloaded.checkedIDs == [2])
        #expect(server.mailbox.ids.map(\.rawValue) == [2, 1, 3, 4])
    }

    @Test func reloadingAfterABulkDeleteDeletesNothingMore() throws {
        let server = try TestServer(messages: 4)
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")
        try tab.press(("action", "delete"), ticking: [1, 2])
        #expect(tab.page.rowIDs == [3, 4])

        let reloaded = try tab.reload()
        #expect(reloaded.rowIDs == [3, 4])
        #expect(reloaded.hasToolbar)
        #expect(server.mailbox.count == 2)
    }

    @Test func reloadingAfterMarkReadOnAMessageKeepsItsState() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let tab = server.browser()
        try tab.get("/messages/1?keep=unread")
        try tab.submit(try #require(tab.page.form(class: "bar-actions")), pressing: ("action", "flag"))
        try tab.reload()
        #expect(server.mailbox.message(.init(1))?.isFlagged == true)
        #expect(tab.page.form(class: "bar-actions")?.buttons.map(\.value).contains("unflag") == true)
    }
}
