import Testing

@Suite struct DoneClearsSelectionTests {
    @Test func doneLeadsToThePlainInboxAndForgetsTheTicks() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        try tab.get("/mailboxes/inbox")
        try tab.follow(linkID: "edit")
        try tab.press(("action", "flag"), ticking: [1, 2])
        #expect(tab.page.checkedIDs == [1, 2])
        #expect(tab.page.element(id: "done")?["href"] == "/mailboxes/inbox")

        let browsing = try tab.follow(linkID: "done")
        #expect(tab.currentURL == "/mailboxes/inbox")
        #expect(!browsing.hasToolbar)
        #expect(!browsing.hasCheckboxes)
        #expect(browsing.editButtonText == "Edit")
        #expect(browsing.heading == "Inbox")
        #expect(browsing.title == "Inbox — Mailroom")

        let editingAgain = try tab.follow(linkID: "edit")
        #expect(editingAgain.hasToolbar)
        #expect(editingAgain.checkedIDs.isEmpty)
        #expect(editingAgain.heading == "0 Selected")
        #expect(editingAgain.toolbarButtonText("delete") == "Delete (0)")
    }
}
