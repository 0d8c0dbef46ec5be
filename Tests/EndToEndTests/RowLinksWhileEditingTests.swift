import Testing

/// A tap that was meant to select must not navigate.
@Suite struct RowLinksWhileEditingTests {
    @Test func rowsLinkToTheirMessagesOnlyWhenNotEditing() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()

        let browsing = try tab.get("/mailboxes/inbox")
        #expect(browsing.messageLinks == ["/messages/1", "/messages/2", "/messages/3"])

        let editing = try tab.follow(linkID: "edit")
        #expect(editing.hasToolbar)
        #expect(!editing.html.contains("href=\"/messages/"))
        #expect(editing.messageLinks.isEmpty)
        // Each row is one label around its checkbox, so the whole row toggles the tick.
        for id in [1, 2, 3] {
            let row = try #require(editing.row(id))
            #expect(editing.tags(inside: row).contains { $0.name == "label" })
            #expect(editing.checkbox(id) != nil)
        }
    }
}
