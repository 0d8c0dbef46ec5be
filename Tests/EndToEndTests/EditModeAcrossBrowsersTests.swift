import Testing

/// Edit mode lives in each tab's URL, so another person's change cannot reset it.
@Suite struct EditModeAcrossBrowsersTests {
    @Test func editModeAndTicksSurviveAMessageAddedByAnotherBrowser() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let alice = server.browser()
        let bob = server.browser()

        try alice.get("/mailboxes/inbox")
        try alice.follow(linkID: "edit")
        try alice.press(("action", "flag"), ticking: [1, 3])
        #expect(alice.page.checkedIDs == [1, 3])

        let added = try bob.addMessage(subject: "Delta")
        #expect(added.notice == "Message added.")
        #expect(added.rowIDs == [4, 1, 2, 3])

        let reloaded = try alice.reload()
        #expect(reloaded.rowIDs == [4, 1, 2, 3])
        #expect(reloaded.hasToolbar)
        #expect(reloaded.editButtonText == "Done")
        #expect(reloaded.heading == "2 Selected")
        #expect(reloaded.checkedIDs == [1, 3])
        #expect(!reloaded.isChecked(4))

        // Alice's next action keeps edit mode and her ticks as well.
        let moved = try alice.press(("move-down", "2"))
        #expect(moved.rowIDs == [4, 1, 3, 2])
        #expect(alice.queryValues("mode") == ["active"])
        #expect(moved.hasToolbar)
        #expect(moved.checkedIDs == [1, 3])
    }

    @Test func aSelectAllRenderedBeforeAnotherBrowserAddsDoesNotSweepUpTheNewMessage() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let alice = server.browser()
        let bob = server.browser()

        try alice.get("/mailboxes/inbox?mode=active")
        try alice.press(("action", "select-all"))
        #expect(alice.page.checkedIDs == [1, 2])

        try bob.addMessage(subject: "Charlie")

        // Alice's page still shows only the two ticks she saw; Delete removes exactly those.
        let after = try alice.press(("action", "delete"))
        #expect(after.rowIDs == [3])
        #expect(server.subjects == ["Charlie"])
        #expect(alice.queryValues("mode") == ["active"])
    }
}
