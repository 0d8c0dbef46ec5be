import Testing

/// Ticks are only known to the browser until a post carries them; Move must carry them back.
@Suite struct MoveKeepsTicksTests {
    @Test func aTickOnRowThreeSurvivesMoveUpOnRowFive() throws {
        let server = try TestServer(messages: 6)
        let tab = server.browser()
        try tab.get("/mailboxes/inbox")
        try tab.follow(linkID: "edit")

        var form = try #require(tab.page.form(id: "edit-form"))
        try form.tick(3)
        // Exactly what a browser sends: the hidden mode, the toolbar's Move to… choice, every ticked
        // box and the pressed button.
        let sent = try form.submission(pressing: ("move-up", "5"))
        #expect(sent.map { "\($0.0)=\($0.1)" } == ["mode=active", "target=archive", "tag=", "selected=3", "move-up=5"])

        let page = try tab.submit(form, pressing: ("move-up", "5"))
        #expect(tab.redirects.map(\.status) == [303])
        #expect(page.rowIDs == [1, 2, 3, 5, 4, 6])
        #expect(page.isChecked(3))
        #expect(page.checkedIDs == [3])
        #expect(page.heading == "1 Selected")
        #expect(tab.queryValues("mode") == ["active"])
        #expect(tab.queryIDs("selected") == [3])
        #expect(server.mailbox.ids.map(\.rawValue) == [1, 2, 3, 5, 4, 6])
    }

    @Test func threeTicksSurviveMoveDownOnAFourthRow() throws {
        let server = try TestServer(messages: 5)
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")

        let page = try tab.press(("move-down", "2"), ticking: [1, 3, 5])
        #expect(page.rowIDs == [1, 3, 2, 4, 5])
        #expect(page.checkedIDs == [1, 3, 5])
        #expect(page.toolbarButtonText("delete") == "Delete (3)")
    }

    @Test func theTopRowCannotMoveUpAndTheBottomRowCannotMoveDown() throws {
        let server = try TestServer(messages: 3)
        let tab = server.browser()
        let page = try tab.get("/mailboxes/inbox?mode=active")
        let buttons = try #require(page.form(id: "edit-form")).buttons
        #expect(buttons.first { $0.name == "move-up" && $0.value == "1" }?.isDisabled == true)
        #expect(buttons.first { $0.name == "move-down" && $0.value == "3" }?.isDisabled == true)
        #expect(buttons.first { $0.name == "move-up" && $0.value == "2" }?.isDisabled == false)
    }
}
