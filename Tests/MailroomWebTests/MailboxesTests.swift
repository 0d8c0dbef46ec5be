import Foundation
import HTTP
import MailroomCore
import MailroomWeb
import Testing

/// The Library's mailboxes: Inbox, Archive and Trash always there, people's own made, renamed and
/// deleted on /mailboxes, every one listed in the sidebar; Archive and Move to… between them.
struct MailboxesTests {
    let app: TestApp
    let original: Library

    static let projects = MailboxID(rawValue: 100)

    init() throws {
        // Ids: Alpha 1 … Echo 5 in the Inbox, Old 6 in Archive, Plan 7 and Budget 8 in Projects (100).
        original = makeLibrary(
            inbox: ["Alpha", "Bravo", "Charlie", "Delta", "Echo"], archive: ["Old"],
            custom: [("Projects", ["Plan", "Budget"])], read: ["Bravo", "Delta", "Budget"])
        app = try TestApp(library: original)
    }

    private func id(_ subject: String) -> MessageID { app.anyID(subject) }

    private func active(_ subjects: String...) -> [(String, String)] {
        [("mode", "active")] + subjects.map { ("selected", id($0).description) }
    }

    // MARK: The mailboxes page

    @Test func theMailboxesPageListsEveryMailboxAndOffersToEditOnlyPeoplesOwn() throws {
        let response = try app.get("/mailboxes")
        #expect(response.code == 200)
        let html = response.html
        #expect(html.content(of: "h1") == "Mailboxes")
        #expect(html.content(of: "title") == "Mailboxes — Mailroom")
        let listed = try #require(html.element(containing: " id=\"mailbox-list\""))
        #expect(listed.tags("li").compactMap { $0.attribute("data-mailbox") } == ["inbox", "archive", "trash", "100"])
        // Only Projects can be renamed or deleted.
        #expect(html.form(class: "rename")?.fields.map { "\($0.0)=\($0.1)" } == ["action=rename", "mailbox=100", "name=Projects"])
        #expect(html.tags("form").filter { $0.attribute("class") == "rename" }.count == 1)
        #expect(html.tags("a").compactMap { $0.attribute("href") }.filter { $0.hasSuffix("/delete") } == ["/mailboxes/100/delete"])
        let create = try #require(html.form(class: "compose open"))
        #expect(create.action == "/mailboxes")
        #expect(create.fields.map { "\($0.0)=\($0.1)" } == ["action=create", "name="])
        #expect(html.tag(id: "mailbox-name")?.attribute("maxlength") == "40")
    }

    // MARK: Creating

    @Test(arguments: ["Receipts", "  Receipts  ", String(repeating: "r", count: 40), "Trash can", "Inbox 2"])
    func creatingAMailboxRedirectsToIt(name: String) throws {
        let response = try app.post("/mailboxes", [("action", "create"), ("name", name)])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes/101?done=created")
        let created = try #require(app.library[MailboxID(rawValue: 101)])
        #expect(created.name == name.trimmingCharacters(in: .whitespaces))
        #expect(created.isEmpty)
        #expect(app.library.mailboxes.map(\.id.slug) == ["inbox", "archive", "trash", "100", "101"])

        let html = try app.get(try #require(response.location)).html
        #expect(html.noticeText == "Mailbox created.")
        #expect(html.content(of: "h1")?.hasPrefix(created.name) == true)
        #expect(html.sidebar.map(\.slug) == ["inbox", "archive", "trash", "100", "101"])
        #expect(html.sidebar.last?.current == "page")
        #expect(html.tag(id: "add-form")?.attribute("action") == "/mailboxes/101")
    }

    @Test(arguments: [
        ("", "A mailbox needs a name."),
        ("   ", "A mailbox needs a name."),
        ("Projects", "There is already a mailbox called “Projects”."),
        ("  projects ", "There is already a mailbox called “projects”."),
        ("Inbox", "There is already a mailbox called “Inbox”."),
        ("TRASH", "There is already a mailbox called “TRASH”."),
        (String(repeating: "n", count: 41), "Mailbox names are at most 40 characters."),
    ])
    func aRefusedNameIsA422ThatKeepsWhatWasTypedAndSaysWhy(name: String, problem: String) throws {
        let response = try app.post("/mailboxes", [("action", "create"), ("name", name)])
        #expect(response.code == 422)
        #expect(response.contentType == "text/html; charset=utf-8")
        let html = response.html
        #expect(html.tag(id: "mailbox-name")?.attribute("value") == name)
        let errors = try #require(html.element(containing: " id=\"form-errors\""))
        #expect(errors.contains(problem))
        #expect(html.tag(id: "form-errors")?.attribute("role") == "alert")
        // The problem is shown in the create form, not next to a mailbox being renamed.
        #expect(try #require(html.element(containing: " id=\"create-mailbox\"")).contains(problem))
        #expect(app.library == original)
    }

    // MARK: Renaming

    @Test func renamingAMailboxChangesItsNameEverywhere() throws {
        let response = try app.post("/mailboxes", [("action", "rename"), ("mailbox", "100"), ("name", " Plans ")])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes?done=renamed")
        #expect(app.library[Self.projects]?.name == "Plans")
        #expect(app.subjects(in: Self.projects) == ["Plan", "Budget"])
        let html = try app.get(try #require(response.location)).html
        #expect(html.noticeText == "Mailbox renamed.")
        #expect(html.sidebar.map(\.name) == ["Inbox", "Archive", "Trash", "Plans"])
        #expect(try app.get("/mailboxes/100").html.content(of: "h1") == "Plans")
    }

    @Test func renamingAMailboxToItsOwnNameInAnotherCaseIsAllowed() throws {
        let response = try app.post("/mailboxes", [("action", "rename"), ("mailbox", "100"), ("name", "PROJECTS")])
        #expect(response.code == 303)
        #expect(app.library[Self.projects]?.name == "PROJECTS")
    }

    @Test(arguments: [
        ("", "A mailbox needs a name."),
        ("archive", "There is already a mailbox called “archive”."),
        (String(repeating: "n", count: 41), "Mailbox names are at most 40 characters."),
    ])
    func aRefusedRenameIsA422ThatKeepsWhatWasTypedInThatMailboxsForm(name: String, problem: String) throws {
        let response = try app.post("/mailboxes", [("action", "rename"), ("mailbox", "100"), ("name", name)])
        #expect(response.code == 422)
        let html = response.html
        #expect(html.tag(id: "name-100")?.attribute("value") == name)
        let form = try #require(html.element(containing: "<form method=\"post\" action=\"/mailboxes\" class=\"rename\""))
        #expect(form.contains(problem))
        #expect(html.tag(id: "mailbox-name")?.attribute("value") == "")
        #expect(app.library == original)
    }

    @Test(arguments: ["inbox", "archive", "trash"])
    func aSystemMailboxCannotBeRenamed(slug: String) throws {
        let response = try app.post("/mailboxes", [("action", "rename"), ("mailbox", slug), ("name", "Stuff")])
        #expect((400..<500).contains(response.code))
        #expect(response.html.contains("Inbox, Archive and Trash cannot be renamed or deleted."))
        #expect(app.library == original)
    }

    @Test(arguments: [
        ([("action", "rename"), ("mailbox", "555"), ("name", "X")], 404),
        ([("action", "rename"), ("mailbox", "nope"), ("name", "X")], 400),
        ([("action", "rename"), ("name", "X")], 400),
        ([("action", "explode"), ("name", "X")], 400),
        ([("name", "X")], 400),
    ] as [([(String, String)], Int)])
    func aMailboxesPostThatNamesNothingSensibleIsRefused(fields: [(String, String)], status: Int) throws {
        let response = try app.post("/mailboxes", fields)
        #expect(response.code == status)
        #expect(app.library == original)
    }

    // MARK: Deleting a mailbox

    @Test func deletingAMailboxFirstAsksOnAPageOfItsOwn() throws {
        let response = try app.get("/mailboxes/100/delete")
        #expect(response.code == 200)
        let html = response.html
        #expect(html.content(of: "h1") == "Delete “Projects”?")
        #expect(html.contains("2 messages moved to Trash"))
        let form = try #require(html.form(class: "confirm"))
        #expect(form.action == "/mailboxes/100/delete")
        #expect(form.fields.map { "\($0.0)=\($0.1)" } == ["confirm=yes"])
        #expect(html.tag(id: "cancel")?.attribute("href") == "/mailboxes")
        #expect(app.library == original)

        for fields in [[], [("confirm", "no")]] as [[(String, String)]] {
            let refused = try app.post("/mailboxes/100/delete", fields)
            #expect(refused.code == 400)
            #expect(app.library == original)
        }
    }

    @Test func deletingAMailboxMovesItsMessagesToTrashAndRestoreBringsThemToTheInbox() throws {
        let response = try app.post("/mailboxes/100/delete", [("confirm", "yes")])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes/inbox?done=removed&n=2")
        #expect(app.library[Self.projects] == nil)
        #expect(app.subjects(in: .trash) == ["Plan", "Budget"])
        #expect(try app.get("/mailboxes/100").code == 404)
        let html = try app.get(try #require(response.location)).html
        #expect(html.noticeText == "Mailbox deleted; its 2 messages moved to Trash.")
        #expect(html.sidebar.map(\.slug) == ["inbox", "archive", "trash"])

        let restored = try app.post("/mailboxes/trash", active("Plan", "Budget") + [("action", "restore")])
        #expect(restored.location == "/mailboxes/trash?done=restored&n=2")
        #expect(app.subjects(in: .inbox) == ["Plan", "Budget", "Alpha", "Bravo", "Charlie", "Delta", "Echo"])
        #expect(app.library[.inbox]?.message(id("Budget")) == original[Self.projects]?.message(id("Budget")))

        // A new mailbox gets a new number: the old address does not come back to life.
        let created = try app.post("/mailboxes", [("action", "create"), ("name", "Projects")])
        #expect(created.location == "/mailboxes/101?done=created")
    }

    @Test(arguments: ["inbox", "archive", "trash"])
    func aSystemMailboxCannotBeDeleted(slug: String) throws {
        #expect((400..<500).contains(try app.get("/mailboxes/\(slug)/delete").code))
        let response = try app.post("/mailboxes/\(slug)/delete", [("confirm", "yes")])
        #expect((400..<500).contains(response.code))
        #expect(app.library == original)
    }

    @Test func deletingAMailboxThatDoesNotExistIs404() throws {
        #expect(try app.get("/mailboxes/555/delete").code == 404)
        #expect(try app.post("/mailboxes/555/delete", [("confirm", "yes")]).code == 404)
        #expect(app.library == original)
    }

    // MARK: The sidebar

    @Test func theSidebarListsEveryMailboxWithItsUnreadCount() throws {
        let html = try app.get("/mailboxes/inbox").html
        let sidebar = html.sidebar
        #expect(sidebar.map(\.slug) == ["inbox", "archive", "trash", "100"])
        #expect(sidebar.map(\.name) == ["Inbox", "Archive", "Trash", "Projects"])
        // Inbox: Alpha, Charlie, Echo unread; Archive: Old; Projects: Plan.
        #expect(sidebar.map(\.unread) == [3, 1, nil, 1])
        let links = try #require(html.element(containing: " id=\"mailboxes\"")).tags("a").compactMap { $0.attribute("href") }
        #expect(links == ["/mailboxes/inbox", "/mailboxes/archive", "/mailboxes/trash", "/mailboxes/100", "/mailboxes"])
        #expect(html.tag(id: "mailboxes")?.hasPrefix("<nav ") == true)
    }

    @Test func theSidebarCountsFollowReadingMovingAndDeleting() throws {
        _ = try app.get("/messages/\(id("Alpha"))")
        _ = try app.post("/mailboxes/inbox", active("Charlie") + [("action", "archive")])
        _ = try app.post("/mailboxes/100", active("Plan") + [("action", "delete")])
        let sidebar = try app.get("/mailboxes/inbox").html.sidebar
        // Inbox: Echo; Archive: Charlie and Old; Projects: none unread.
        #expect(sidebar.map(\.unread) == [1, 2, nil, nil])
    }

    @Test(arguments: [
        ("/mailboxes/inbox", "inbox"), ("/mailboxes/archive", "archive"), ("/mailboxes/trash", "trash"),
        ("/mailboxes/100", "100"), ("/mailboxes/100?mode=active", "100"), ("/messages/7", "100"), ("/messages/6", "archive"),
    ])
    func theSidebarMarksTheCurrentMailbox(target: String, current: String) throws {
        let sidebar = try app.get(target).html.sidebar
        #expect(sidebar.filter { $0.current == "page" }.map(\.slug) == [current])
        #expect(sidebar.filter { $0.current != "page" }.allSatisfy { $0.current == nil || $0.current == "false" })
    }

    @Test(arguments: ["/mailboxes", "/mailboxes/trash/empty", "/mailboxes/100/delete"])
    func pagesThatAreNoMailboxMarkNoneCurrent(target: String) throws {
        let sidebar = try app.get(target).html.sidebar
        #expect(sidebar.count == 4)
        #expect(sidebar.allSatisfy { $0.current != "page" })
    }

    // MARK: Archive and Move to…

    @Test func archiveMovesTheTickedMessagesToTheTopOfArchiveAndStaysInEditMode() throws {
        let response = try app.post("/mailboxes/inbox", active("Bravo", "Delta") + [("action", "archive")])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes/inbox?mode=active&done=moved&n=2&to=archive")
        #expect(app.subjects(in: .inbox) == ["Alpha", "Charlie", "Echo"])
        #expect(app.subjects(in: .archive) == ["Bravo", "Delta", "Old"])
        // Moved as they were: read, unflagged, no trace of Trash.
        #expect(app.library[.archive]?.messages.first == original[.inbox]?.message(id("Bravo")))

        let html = try app.get(try #require(response.location)).html
        #expect(html.noticeText == "2 messages moved to Archive.")
        #expect(html.tag(id: "toolbar") != nil)
        #expect(html.content(of: "h1") == "0 Selected")
        #expect(html.form(class: "undo") == nil)
    }

    @Test func moveToPutsTheTickedMessagesOnTopOfTheChosenMailbox() throws {
        let response = try app.post(
            "/mailboxes/inbox", active("Alpha", "Echo") + [("target", "100"), ("action", "move-to")])
        #expect(response.location == "/mailboxes/inbox?mode=active&done=moved&n=2&to=100")
        #expect(app.subjects(in: Self.projects) == ["Alpha", "Echo", "Plan", "Budget"])
        #expect(app.subjects(in: .inbox) == ["Bravo", "Charlie", "Delta"])
        #expect(try app.get(try #require(response.location)).html.noticeText == "2 messages moved to Projects.")

        // And back again, from a mailbox of one's own.
        let back = try app.post("/mailboxes/100", active("Echo") + [("target", "inbox"), ("action", "move-to")])
        #expect(back.location == "/mailboxes/100?mode=active&done=moved&n=1&to=inbox")
        #expect(app.subjects(in: .inbox) == ["Echo", "Bravo", "Charlie", "Delta"])
        #expect(try app.get(try #require(back.location)).html.noticeText == "1 message moved to Inbox.")
    }

    @Test func movingEveryMessageOutLeavesEditMode() throws {
        let response = try app.post("/mailboxes/100", active("Plan", "Budget") + [("action", "archive")])
        #expect(response.location == "/mailboxes/100?done=moved&n=2&to=archive")
        #expect(app.subjects(in: .archive) == ["Plan", "Budget", "Old"])
    }

    @Test func moveToTrashIsDeleteWithUndo() throws {
        let response = try app.post("/mailboxes/inbox", active("Charlie") + [("target", "trash"), ("action", "move-to")])
        #expect(response.location == "/mailboxes/inbox?mode=active&done=deleted&n=1&undo=\(id("Charlie"))")
        #expect(app.subjects(in: .trash) == ["Charlie"])
    }

    @Test func theToolbarOffersArchiveAndEveryOtherMailboxToMoveTo() throws {
        let inbox = try app.get("/mailboxes/inbox?mode=active&selected=1").html
        #expect(inbox.buttonText(action: "archive") == "Archive")
        #expect(inbox.buttonText(action: "move-to") == "Move")
        #expect(inbox.tags("option").compactMap { $0.attribute("value") } == ["archive", "100"])
        let archive = try app.get("/mailboxes/archive?mode=active").html
        #expect(archive.buttonText(action: "archive") == nil)
        #expect(archive.tags("option").compactMap { $0.attribute("value") } == ["inbox", "100"])
    }

    @Test(arguments: [
        [("action", "move-to")], [("action", "move-to"), ("target", "")], [("action", "move-to"), ("target", "nowhere")],
        [("action", "move-to"), ("target", "555")],
    ] as [[(String, String)]])
    func moveToWithoutAnExistingTargetIsA400AndChangesNothing(fields: [(String, String)]) throws {
        let response = try app.post("/mailboxes/inbox", active("Alpha") + fields)
        #expect(response.code == 400)
        #expect(app.library == original)
    }

    @Test func archiveWithNothingTickedChangesNothing() throws {
        let response = try app.post("/mailboxes/inbox", active() + [("action", "archive")])
        #expect(response.location == "/mailboxes/inbox?mode=active&done=nothing-selected")
        #expect(app.library == original)
    }

    @Test func theMessagePageArchivesItsMessage() throws {
        let response = try app.post("/messages/\(id("Charlie"))", [("action", "archive")])
        #expect(response.location == "/mailboxes/inbox?done=moved&n=1&to=archive")
        #expect(app.subjects(in: .archive) == ["Charlie", "Old"])
        #expect(try app.get("/messages/\(id("Old"))").html.buttonText(action: "archive") == nil)
    }

    // MARK: Adding elsewhere than the Inbox

    @Test func addingInArchiveAddsThere() throws {
        let page = try app.get("/mailboxes/archive").html
        #expect(page.tag(id: "add-form")?.attribute("action") == "/mailboxes/archive")
        let response = try app.post("/mailboxes/archive", [("action", "add"), ("subject", "Filed away")])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes/archive?done=added")
        #expect(app.subjects(in: .archive) == ["Filed away", "Old"])
        #expect(app.library[.archive]?.messages.first?.isUnread == true)
        #expect(app.library[.inbox] == original[.inbox])
    }

    @Test func addingInAMailboxOfOnesOwnAddsThere() throws {
        let response = try app.post("/mailboxes/100", [("action", "add"), ("subject", "Kick-off")])
        #expect(response.location == "/mailboxes/100?done=added")
        #expect(app.subjects(in: Self.projects) == ["Kick-off", "Plan", "Budget"])
    }

    @Test func aRefusedAddInArchiveShowsArchiveAgain() throws {
        let response = try app.post("/mailboxes/archive", [("action", "add"), ("subject", "")])
        #expect(response.code == 422)
        #expect(response.html.content(of: "h1") == "Archive")
        #expect(response.html.tag(id: "add-form")?.attribute("action") == "/mailboxes/archive")
        #expect(app.library == original)
    }

    @Test func theTrashPageHasNoAddFormAndRefusesAnAdd() throws {
        #expect(try app.get("/mailboxes/trash").html.tag(id: "add-form") == nil)
        let response = try app.post("/mailboxes/trash", [("action", "add"), ("subject", "Sneaky")])
        #expect((400..<500).contains(response.code))
        #expect(app.library == original)
    }
}
