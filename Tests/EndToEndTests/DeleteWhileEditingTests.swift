import Testing

/// A row's Delete button in edit mode: edit mode stays, the selection never holds the deleted id.
@Suite struct DeleteWhileEditingTests {
    @Test func deletingARowKeepsEditModeAndDropsItFromTheSelection() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        try tab.get("/mailboxes/inbox")
        try tab.follow(linkID: "edit")

        let page = try tab.press(("delete", "2"), ticking: [1, 2])
        #expect(page.rowIDs == [1, 3])
        #expect(page.notice == "1 message moved to Trash.")
        #expect(page.hasToolbar)
        #expect(page.editButtonText == "Done")
        #expect(page.checkedIDs == [1])
        #expect(page.heading == "1 Selected")
        #expect(tab.queryValues("mode") == ["active"])
        #expect(tab.queryIDs("selected") == [1])
        #expect(!tab.queryIDs("selected").contains(2))
    }

    @Test func deletingTheLastRowReturnsToBrowsing() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")

        let one = try tab.press(("delete", "1"), ticking: [2])
        #expect(one.rowIDs == [2])
        #expect(one.hasToolbar)
        #expect(one.checkedIDs == [2])

        let none = try tab.press(("delete", "2"))
        #expect(none.rowIDs.isEmpty)
        #expect(none.isEmptyState)
        #expect(!none.hasToolbar)
        #expect(none.editButtonText == "Edit")
        #expect(none.isEditButtonDisabled)
        #expect(tab.queryValues("mode").isEmpty)
        #expect(tab.queryValues("selected").isEmpty)
        #expect(server.mailbox.isEmpty)
    }

    @Test func bulkDeleteKeepsEditModeAndEmptiesTheSelection() throws {
        let server = try TestServer(messages: 4)
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")

        let page = try tab.press(("action", "delete"), ticking: [2, 4])
        #expect(page.notice == "2 messages moved to Trash.")
        #expect(page.rowIDs == [1, 3])
        #expect(page.hasToolbar)
        #expect(page.checkedIDs.isEmpty)
        #expect(page.heading == "0 Selected")
        #expect(tab.queryValues("mode") == ["active"])
        #expect(tab.queryValues("selected").isEmpty)
    }

    @Test func aSelectionNamingADeletedMessageShowsOnlyTheLivingOnes() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        let page = try tab.get("/mailboxes/inbox?mode=active&selected=1&selected=3&selected=99")
        #expect(page.checkedIDs == [1, 3])
        #expect(page.heading == "2 Selected")
        #expect(page.toolbarButtonText("delete") == "Delete (2)")
    }
}
