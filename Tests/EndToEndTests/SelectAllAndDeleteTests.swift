import Testing

@Suite struct SelectAllAndDeleteTests {
    @Test func selectAllThenDeleteEmptiesTheInboxAndLeavesEditMode() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        try tab.get("/mailboxes/inbox")
        try tab.follow(linkID: "edit")

        let allTicked = try tab.press(("action", "select-all"))
        #expect(allTicked.checkedIDs == [1, 2, 3])
        #expect(allTicked.heading == "3 Selected")
        #expect(allTicked.toolbarButtonText("deselect-all") == "Deselect All")
        #expect(allTicked.toolbarButtonText("delete") == "Delete (3)")

        let emptied = try tab.press(("action", "delete"))
        #expect(tab.redirects.map(\.status) == [303])
        #expect(tab.status == 200)
        #expect(emptied.rowIDs.isEmpty)
        #expect(emptied.isEmptyState)
        #expect(emptied.notice == "3 messages moved to Trash.")
        #expect(!emptied.hasToolbar)
        #expect(!emptied.hasCheckboxes)
        #expect(tab.queryValues("mode").isEmpty)
        #expect(emptied.title == "Inbox — Mailroom")
        #expect(emptied.editButtonText == "Edit")
        #expect(emptied.isEditButtonDisabled)
        #expect(server.mailbox.isEmpty)
    }

    @Test func deselectAllEmptiesTheSelectionAndStaysInEditMode() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")
        try tab.press(("action", "select-all"))

        let none = try tab.press(("action", "deselect-all"))
        #expect(none.checkedIDs.isEmpty)
        #expect(none.heading == "0 Selected")
        #expect(none.toolbarButtonText("select-all") == "Select All")
        #expect(none.toolbarButtonText("delete") == "Delete (0)")
        #expect(server.mailbox.count == 2)
    }
}
