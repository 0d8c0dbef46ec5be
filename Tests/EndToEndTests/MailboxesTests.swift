import MailroomCore
import Testing

/// Mailboxes of one's own, the sidebar, Archive and Move to…, through the real server and the pages' forms.
@Suite struct MailboxesTests {
    static let projects = MailboxID(rawValue: 100)

    /// Inbox 1…5 (2 and 4 read), Archive 6, Projects (100) 7 and 8 (8 read).
    static func server() throws -> TestServer {
        try TestServer(library: TestServer.library(
            inbox: ["Alpha", "Bravo", "Charlie", "Delta", "Echo"], archive: ["Old"],
            custom: [("Projects", ["Plan", "Budget"])], read: [2, 4, 8]))
    }

    // MARK: Creating and renaming

    @Test func creatingAMailboxFromTheSidebarsEditMailboxesPage() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/mailboxes/inbox")
        let manage = try tab.follow(linkID: "manage-mailboxes")
        #expect(tab.currentURL == "/mailboxes")
        #expect(manage.heading == "Mailboxes")

        var form = try #require(manage.form(id: "create-mailbox"))
        try form.fill("name", with: "  Receipts ")
        let created = try tab.submit(form)
        #expect(tab.redirects.map(\.status) == [303])
        #expect(tab.currentURL == "/mailboxes/101?done=created")
        #expect(created.notice == "Mailbox created.")
        #expect(created.heading == "Receipts")
        #expect(created.isEmptyState)
        #expect(created.sidebar.map(\.name) == ["Inbox", "Archive", "Trash", "Projects", "Receipts"])
        #expect(created.sidebar.filter(\.isCurrent).map(\.slug) == ["101"])
        #expect(server.library[MailboxID(rawValue: 101)]?.name == "Receipts")
    }

    @Test(arguments: [
        ("", "A mailbox needs a name."),
        ("projects", "There is already a mailbox called “projects”."),
        ("Archive", "There is already a mailbox called “Archive”."),
        (String(repeating: "x", count: 41), "Mailbox names are at most 40 characters."),
    ])
    func aRefusedNameIsA422ThatKeepsWhatWasTyped(name: String, problem: String) throws {
        let server = try Self.server()
        let tab = server.browser()
        let before = server.library
        try tab.get("/mailboxes")
        var form = try #require(tab.page.form(id: "create-mailbox"))
        try form.fill("name", with: name)

        let page = try tab.submit(form)
        #expect(tab.status == 422)
        #expect(tab.redirects.isEmpty)
        #expect(page.form(id: "create-mailbox")?.values("name") == [name])
        #expect(page.formErrorText == problem)
        #expect(page.element(id: "form-errors")?["role"] == "alert")
        #expect(server.library == before)
    }

    @Test func renamingAMailbox() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/mailboxes")
        var form = try #require(tab.page.form(class: "rename"))
        #expect(form.values("mailbox") == ["100"])
        try form.fill("name", with: "Plans")

        let page = try tab.submit(form)
        #expect(tab.currentURL == "/mailboxes?done=renamed")
        #expect(page.notice == "Mailbox renamed.")
        #expect(page.sidebar.map(\.name) == ["Inbox", "Archive", "Trash", "Plans"])
        #expect(server.library[Self.projects]?.name == "Plans")
        #expect(server.ids(in: Self.projects) == [7, 8])
    }

    @Test func aRefusedRenameKeepsWhatWasTypedInThatMailboxsForm() throws {
        let server = try Self.server()
        let tab = server.browser()
        let before = server.library
        try tab.get("/mailboxes")
        var form = try #require(tab.page.form(class: "rename"))
        try form.fill("name", with: "Inbox")

        let page = try tab.submit(form)
        #expect(tab.status == 422)
        #expect(page.form(class: "rename")?.values("name") == ["Inbox"])
        #expect(page.formErrorText == "There is already a mailbox called “Inbox”.")
        #expect(server.library == before)
    }

    @Test func theSystemMailboxesCannotBeRenamedOrDeleted() throws {
        let server = try Self.server()
        let tab = server.browser()
        let before = server.library
        let page = try tab.get("/mailboxes")
        // The page offers neither for them…
        #expect(page.forms.filter { $0.classes.contains("rename") }.flatMap { $0.values("mailbox") } == ["100"])
        #expect(page.links.filter { $0.hasSuffix("/delete") } == ["/mailboxes/100/delete"])

        // …and the server refuses a script that tries.
        for slug in ["inbox", "archive", "trash"] {
            try tab.post("/mailboxes", fields: [("action", "rename"), ("mailbox", slug), ("name", "Stuff")])
            #expect((400..<500).contains(tab.status), "rename \(slug): \(tab.status)")
            try tab.get("/mailboxes/\(slug)/delete")
            #expect((400..<500).contains(tab.status), "GET delete \(slug): \(tab.status)")
            try tab.post("/mailboxes/\(slug)/delete", fields: [("confirm", "yes")])
            #expect((400..<500).contains(tab.status), "POST delete \(slug): \(tab.status)")
        }
        #expect(server.library == before)
    }

    // MARK: Deleting a mailbox

    @Test func deletingAMailboxAsksFirstThenMovesItsMessagesToTrashFromWhereRestoreBringsThemToTheInbox() throws {
        let server = try Self.server()
        let tab = server.browser()
        let before = server.library
        try tab.get("/mailboxes")
        let asking = try tab.get(try #require(tab.page.links.first { $0 == "/mailboxes/100/delete" }))
        #expect(tab.status == 200)
        #expect(asking.heading == "Delete “Projects”?")
        #expect(server.library == before)

        let inbox = try tab.submit(try #require(asking.form(class: "confirm")))
        #expect(tab.redirects.map(\.status) == [303])
        #expect(tab.currentURL.hasPrefix("/mailboxes/inbox?"))
        #expect(inbox.notice == "Mailbox deleted; its 2 messages moved to Trash.")
        #expect(inbox.sidebar.map(\.slug) == ["inbox", "archive", "trash"])
        #expect(server.library[Self.projects] == nil)
        #expect(server.ids(in: .trash) == [7, 8])
        try tab.get("/mailboxes/100")
        #expect(tab.status == 404)

        try tab.get("/mailboxes/trash?mode=active")
        let restored = try tab.press(("action", "restore"), ticking: [7, 8])
        #expect(restored.notice == "2 messages put back.")
        #expect(server.ids(in: .inbox) == [7, 8, 1, 2, 3, 4, 5])
        #expect(server.library.message(MessageID(8)) == before.message(MessageID(8)))
    }

    // MARK: The sidebar

    @Test func theSidebarListsEveryMailboxWithItsUnreadCountAndMarksTheCurrentOne() throws {
        let server = try Self.server()
        let tab = server.browser()
        let inbox = try tab.get("/mailboxes/inbox")
        #expect(inbox.element(id: "mailboxes")?.name == "nav")
        #expect(inbox.sidebar.map(\.slug) == ["inbox", "archive", "trash", "100"])
        #expect(inbox.sidebar.map(\.href) == ["/mailboxes/inbox", "/mailboxes/archive", "/mailboxes/trash", "/mailboxes/100"])
        #expect(inbox.sidebar.map(\.unread) == [3, 1, nil, 1])
        #expect(inbox.sidebar.filter(\.isCurrent).map(\.slug) == ["inbox"])

        let archive = try tab.get(try #require(inbox.sidebar.first { $0.slug == "archive" }?.href))
        #expect(archive.heading == "Archive")
        #expect(archive.sidebar.filter(\.isCurrent).map(\.slug) == ["archive"])

        // Reading a message in Projects: the page marks Projects, and its count drops.
        let message = try tab.get("/messages/7")
        #expect(message.sidebar.filter(\.isCurrent).map(\.slug) == ["100"])
        #expect(message.sidebar.map(\.unread) == [3, 1, nil, nil])

        let manage = try tab.get("/mailboxes")
        #expect(manage.sidebar.filter(\.isCurrent).isEmpty)
    }

    // MARK: Archive and Move to…

    @Test func archiveMovesTheTickedMessagesToTheTopOfArchiveAndKeepsEditMode() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/mailboxes/inbox")
        try tab.follow(linkID: "edit")

        let page = try tab.press(("action", "archive"), ticking: [2, 4])
        #expect(tab.redirects.map(\.status) == [303])
        #expect(page.notice == "2 messages moved to Archive.")
        #expect(page.rowIDs == [1, 3, 5])
        #expect(page.hasToolbar)
        #expect(page.heading == "0 Selected")
        #expect(tab.queryValues("mode") == ["active"])
        #expect(server.ids(in: .archive) == [2, 4, 6])
        #expect(page.sidebar.map(\.unread) == [3, 1, nil, 1])

        let archive = try tab.get("/mailboxes/archive")
        #expect(archive.rowIDs == [2, 4, 6])
    }

    @Test func moveToPutsTheTickedMessagesOnTopOfTheChosenMailbox() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")
        var form = try #require(tab.page.form(id: "edit-form"))
        #expect(form.options("target") == ["archive", "100"])
        try form.tick(1)
        try form.tick(5)
        try form.choose("100", in: "target")

        let page = try tab.submit(form, pressing: ("action", "move-to"))
        #expect(page.notice == "2 messages moved to Projects.")
        #expect(page.rowIDs == [2, 3, 4])
        #expect(page.hasToolbar)
        #expect(server.ids(in: Self.projects) == [1, 5, 7, 8])

        let projects = try tab.get("/mailboxes/100?mode=active")
        #expect(projects.rowIDs == [1, 5, 7, 8])
        // Moving everything out leaves edit mode.
        let emptied = try tab.press(("action", "archive"), ticking: [1, 5, 7, 8])
        #expect(emptied.notice == "4 messages moved to Archive.")
        #expect(emptied.isEmptyState)
        #expect(!emptied.hasToolbar)
        #expect(server.ids(in: .archive) == [1, 5, 7, 8, 6])
    }

    // MARK: Adding

    @Test func addingInArchiveAddsThere() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/mailboxes/archive")
        let page = try tab.addMessage(subject: "Filed away")
        #expect(tab.redirects.map(\.status) == [303])
        #expect(tab.currentURL == "/mailboxes/archive?done=added")
        #expect(page.notice == "Message added.")
        #expect(page.rowIDs == [9, 6])
        #expect(server.ids(in: .archive) == [9, 6])
        #expect(server.ids(in: .inbox) == [1, 2, 3, 4, 5])
    }

    @Test func addingIsRefusedInTrash() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")
        try tab.press(("action", "delete"), ticking: [1])
        let before = server.library

        let trash = try tab.get("/mailboxes/trash")
        #expect(trash.form(id: "add-form") == nil)
        try tab.post("/mailboxes/trash", fields: [("action", "add"), ("subject", "Sneaky")])
        #expect((400..<500).contains(tab.status))
        #expect(server.library == before)
    }
}
