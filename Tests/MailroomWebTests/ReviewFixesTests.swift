import HTTP
import MailroomCore
import MailroomWeb
import Testing

/// Pages that another browser overtook, the form's default button, and Trash's wording.
@Suite struct ReviewFixesTests {
    let app: TestApp

    init() throws {
        app = try TestApp(library: makeLibrary(inbox: ["Alpha", "Bravo", "Charlie"]))
    }

    @Test func aStaleMessagePagesDeleteNeverDestroysAMessageThatMovedToTrash() throws {
        let bravo = app.anyID("Bravo")
        // Another browser deletes it: now in Trash, where Delete would destroy it.
        _ = try app.post("/mailboxes/inbox", [("delete", bravo.description)])
        #expect(app.subjects(in: .trash) == ["Bravo"])

        // This tab still shows it in the Inbox and presses Delete.
        let response = try app.post("/messages/\(bravo)", [("from", "inbox"), ("action", "delete")])
        #expect(response.code == 303)
        #expect(response.location == "/messages/\(bravo)?keep=unread&done=gone")
        #expect(app.subjects(in: .trash) == ["Bravo"])
        #expect(try app.get(try #require(response.location)).html.contains("That message was already deleted or moved."))
    }

    @Test(arguments: ["archive", "flag", "mark-unread", "save"])
    func aStaleMessagePageActsOnNothing(action: String) throws {
        let bravo = app.anyID("Bravo")
        _ = try app.post("/mailboxes/inbox", [("delete", bravo.description)])
        let before = app.library
        let response = try app.post(
            "/messages/\(bravo)", [("from", "inbox"), ("action", action), ("subject", "Changed"), ("body", "")])
        #expect(response.code == 303)
        #expect(app.library == before)
    }

    @Test func theMessagePageSaysWhereItWasShown() throws {
        let html = try app.get("/messages/\(app.anyID("Alpha"))").html
        #expect(html.components(separatedBy: "<input type=\"hidden\" name=\"from\" value=\"inbox\">").count - 1 == 3)
    }

    @Test func theEditFormsDefaultButtonOnlyKeepsTheTicks() throws {
        let html = try app.get("/mailboxes/inbox?mode=active").html
        let form = try #require(html.range(of: "<form method=\"post\" action=\"/mailboxes/inbox\" id=\"edit-form\">"))
        let firstButton = try #require(html[form.upperBound...].range(of: "<button"))
        #expect(html[firstButton.lowerBound...].hasPrefix("<button type=\"submit\" name=\"action\" value=\"update\" hidden"))

        let ids = ["Alpha", "Charlie"].map { app.anyID($0).description }
        let before = app.library
        let response = try app.post("/mailboxes/inbox", [("action", "update"), ("mode", "active")] + ids.map { ("selected", $0) })
        #expect(response.location == "/mailboxes/inbox?mode=active&selected=\(ids[0]),\(ids[1])")
        #expect(app.library == before)
    }

    @Test func movingToTrashFromTrashDestroysNothing() throws {
        let alpha = app.anyID("Alpha").description
        _ = try app.post("/mailboxes/inbox", [("delete", alpha)])
        let response = try app.post(
            "/mailboxes/trash", [("mode", "active"), ("selected", alpha), ("action", "move-to"), ("target", "trash")])
        #expect(response.code == 303)
        #expect(app.subjects(in: .trash) == ["Alpha"])
    }

    @Test func movingToTrashElsewhereIsADeleteWithUndo() throws {
        let alpha = app.anyID("Alpha").description
        let response = try app.post(
            "/mailboxes/inbox", [("mode", "active"), ("selected", alpha), ("action", "move-to"), ("target", "trash")])
        #expect(response.location?.contains("done=deleted") == true)
        #expect(response.location?.contains("undo=\(alpha)") == true)
        #expect(app.subjects(in: .trash) == ["Alpha"])
    }

    @Test func trashsRowButtonSaysItDeletesPermanently() throws {
        _ = try app.post("/mailboxes/inbox", [("delete", app.anyID("Alpha").description)])
        let html = try app.get("/mailboxes/trash?mode=active").html
        #expect(html.contains("aria-label=\"Delete “Alpha” permanently\">Delete Permanently</button>"))
    }
}

/// A reload of an unchanged page is a 304; any stored change, or another address, is a 200.
@Suite struct PageTagTests {
    @Test func anUnchangedPageIsNotModifiedAndAChangeRefreshesIt() throws {
        let app = try TestApp(library: makeLibrary(inbox: ["Alpha", "Bravo"]))
        let first = try app.get("/mailboxes/inbox")
        let etag = try #require(first.headers["ETag"])
        let headers = Headers([("If-None-Match", etag)])
        let again = try app.respond(.get, "/mailboxes/inbox", headers: headers)
        #expect(again.code == 304)
        #expect(again.body.isEmpty)
        #expect(try app.respond(.get, "/mailboxes/inbox?mode=active", headers: headers).code == 200)

        _ = try app.post("/mailboxes/inbox", [("action", "add"), ("subject", "Charlie")])
        let changed = try app.respond(.get, "/mailboxes/inbox", headers: headers)
        #expect(changed.code == 200)
        #expect(changed.headers["ETag"] != etag)
        #expect(changed.html.contains("Charlie"))
    }

    @Test func aPostThatChangesNothingKeepsTheETag() throws {
        let app = try TestApp(library: makeLibrary(inbox: ["Alpha"]))
        let etag = try #require(try app.get("/mailboxes/inbox").headers["ETag"])
        _ = try app.post("/mailboxes/inbox", [("action", "select-all"), ("mode", "active")])
        #expect(try app.respond(.get, "/mailboxes/inbox", headers: Headers([("If-None-Match", etag)])).code == 304)
    }
}

/// Opening a message marks it read only when a person opened it, never for another site's GET.
@Suite struct OpeningMarksReadTests {
    @Test(arguments: [
        ([("Sec-Fetch-Site", "same-origin")], false),
        ([("Sec-Fetch-Site", "none")], false),
        ([("Sec-Fetch-Site", "cross-site")], true),
        ([("Sec-Fetch-Site", "same-site")], true),
        ([("Referer", "http://127.0.0.1:8080/mailboxes/inbox"), ("Host", "127.0.0.1:8080")], false),
        ([("Referer", "http://evil.example/"), ("Host", "127.0.0.1:8080")], true),
        ([], true),
    ])
    func aGETMarksReadOnlyWhenMailroomsOwnPageOrThePersonOpenedIt(headers: [(String, String)], staysUnread: Bool) throws {
        let app = try TestApp(library: makeLibrary(inbox: ["Alpha"]))
        let alpha = app.anyID("Alpha")
        let response = try app.respond(.get, "/messages/\(alpha)", headers: Headers(headers.map { (name: $0.0, value: $0.1) }))
        #expect(response.code == 200)
        #expect(app.library.message(alpha)?.isUnread == staysUnread)
    }
}

@Suite struct PageTagAcrossRestartsTests {
    @Test func anETagFromBeforeARestartNeverMatchesAfterIt() throws {
        let library = try makeLibrary(inbox: ["Alpha"])
        let before = try TestApp(library: library)
        let etag = try #require(try before.get("/mailboxes/inbox").headers["ETag"])
        let after = try TestApp(library: library)
        #expect(try after.respond(.get, "/mailboxes/inbox", headers: Headers([("If-None-Match", etag)])).code == 200)
    }
}
