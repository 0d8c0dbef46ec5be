import HTTP
import MailroomCore
import Testing

/// Every change to the list is a form post answered with a 303 back to the list, in its state.
struct InboxPostTests {
    let inbox: TestApp

    init() throws {
        inbox = try TestApp("Alpha", "Bravo", "Charlie", "Delta")
    }

    /// Posts `fields` to the inbox.
    private func post(_ fields: [(String, String)]) throws -> Response {
        try inbox.post("/mailboxes/inbox", fields)
    }

    /// The fields of the active state with `subjects` ticked.
    private func active(_ subjects: String...) -> [(String, String)] {
        [("mode", "active")] + subjects.map { ("selected", inbox.id($0).description) }
    }

    /// The ids of the messages with `subjects`.
    private func ids(_ subjects: String...) -> [MessageID] {
        subjects.map { inbox.id($0) }
    }

    // MARK: Adding

    @Test func addingPutsAnUnreadMessageOnTop() throws {
        let response = try post([("action", "add"), ("subject", "  Echo  "), ("body", "Hello\n"), ("author", "Ada")])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes/inbox?done=added")
        #expect(inbox.subjects == ["Echo", "Alpha", "Bravo", "Charlie", "Delta"])
        let echo = try #require(inbox.message("Echo"))
        #expect(echo.isUnread)
        #expect(echo.body == "Hello")
        #expect(echo.author == "Ada")
        #expect(echo.createdAt == fixedNow)
        #expect(!inbox.mailbox.messages.dropFirst().map(\.id).contains(echo.id))
    }

    @Test func theRedirectAfterAddingShowsTheNotice() throws {
        let response = try post([("action", "add"), ("subject", "Echo")])
        let html = try inbox.get(try #require(response.location)).html
        #expect(html.contains("Message added."))
        #expect(html.rowIDs.first == inbox.id("Echo").description)
    }

    @Test(arguments: [
        ("", "Typed body", "Subject can't be empty."),
        ("   ", "Keep <me>", "Subject can't be empty."),
        (String(repeating: "s", count: 201), "", "Subject is too long: at most 200 characters."),
        ("Fine", String(repeating: "b", count: 10_001), "Message is too long: at most 10000 characters."),
    ])
    func anInvalidAddIsA422ThatKeepsWhatWasTyped(subject: String, body: String, problem: String) throws {
        let before = inbox.mailbox
        let response = try post([("action", "add"), ("subject", subject), ("body", body), ("author", "Ada")])
        #expect(response.code == 422)
        #expect(response.contentType == "text/html; charset=utf-8")
        let html = response.html
        let subjectField = try #require(html.tag(id: "subject"))
        #expect(subjectField.attribute("value") == subject)
        #expect(subjectField.attribute("aria-invalid") == "true")
        let escapedBody = body.replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        #expect(html.contains("name=\"body\" rows=\"4\" maxlength=\"10000\">\n\(escapedBody)</textarea>"))
        #expect(html.tag(id: "author")?.attribute("value") == "Ada")
        #expect(html.tag(id: "form-errors")?.attribute("role") == "alert")
        #expect(html.contains("<li>\(problem)</li>"))
        #expect(html.contains("<details class=\"compose\" id=\"compose\" open>"))
        #expect(inbox.mailbox == before)
    }

    @Test func anInvalidAddListsEveryProblem() throws {
        let response = try post([("action", "add"), ("subject", ""), ("body", String(repeating: "b", count: 10_001))])
        #expect(response.code == 422)
        #expect(response.html.contains("<li>Subject can't be empty.</li><li>Message is too long: at most 10000 characters.</li>"))
    }

    // MARK: Edit mode and selection

    @Test func editEntersActiveModeAndDoneLeavesIt() throws {
        #expect(try post([("action", "edit")]).location == "/mailboxes/inbox?mode=active")
        #expect(try post(active("Alpha", "Bravo") + [("action", "done")]).location == "/mailboxes/inbox")
        #expect(try post([("mode", "transient"), ("row", inbox.id("Alpha").description), ("action", "done")]).location
            == "/mailboxes/inbox")
        #expect(try post([("mode", "transient"), ("row", inbox.id("Alpha").description), ("action", "cancel")]).location
            == "/mailboxes/inbox")
    }

    @Test func editOnAnEmptyMailboxStaysInactive() throws {
        let empty = try TestApp()
        let response = try empty.post("/mailboxes/inbox", [("action", "edit")])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes/inbox")
    }

    @Test func confirmDeleteOpensThatRowsConfirmation() throws {
        let bravo = inbox.id("Bravo")
        let response = try post([("confirm-delete", bravo.description)])
        #expect(response.location == "/mailboxes/inbox?mode=transient&row=\(bravo)")
    }

    @Test func selectAllTicksEveryRowAndDeselectAllNone() throws {
        let all = try post(active("Bravo") + [("action", "select-all")])
        #expect(all.code == 303)
        #expect(try all.redirect() == Redirect("/mailboxes/inbox?mode=active", selected: ids("Alpha", "Bravo", "Charlie", "Delta")))
        let none = try post(active("Alpha", "Bravo") + [("action", "deselect-all")])
        #expect(none.code == 303)
        #expect(none.location == "/mailboxes/inbox?mode=active")
    }

    // MARK: Deleting

    @Test func deletingTheSelectionKeepsEditModeWithNothingSelected() throws {
        let (bravo, delta) = (inbox.id("Bravo"), inbox.id("Delta"))
        let response = try post(active("Bravo", "Delta") + [("action", "delete")])
        #expect(response.code == 303)
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?mode=active&done=deleted&n=2", undo: [bravo, delta]))
        #expect(inbox.subjects == ["Alpha", "Charlie"])
    }

    /// An id the page named that no longer exists is counted as already gone, never guessed at.
    @Test func deletingASelectionWithAGoneIDDeletesTheRestAndCountsTheGoneOne() throws {
        let alpha = inbox.id("Alpha")
        let response = try post(active("Alpha") + [("selected", "424242"), ("action", "delete")])
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?mode=active&done=deleted&n=1&gone=1", undo: [alpha]))
        #expect(inbox.subjects == ["Bravo", "Charlie", "Delta"])
    }

    @Test func deletingEveryRowLeavesEditMode() throws {
        let everyone = ids("Alpha", "Bravo", "Charlie", "Delta")
        let response = try post(active("Alpha", "Bravo", "Charlie", "Delta") + [("action", "delete")])
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?done=deleted&n=4", undo: everyone))
        #expect(inbox.mailbox.isEmpty)
        let html = try inbox.get(try #require(response.location)).html
        #expect(html.tag(id: "empty") != nil)
        #expect(html.tag(id: "edit")?.has("disabled") == true)
    }

    @Test func deletingWithNothingSelectedChangesNothing() throws {
        let response = try post(active() + [("action", "delete")])
        #expect(response.location == "/mailboxes/inbox?mode=active&done=nothing-selected")
        #expect(inbox.subjects == ["Alpha", "Bravo", "Charlie", "Delta"])
    }

    @Test func aRowsDeleteInEditModeKeepsTheOtherTicks() throws {
        let (alpha, charlie) = (inbox.id("Alpha"), inbox.id("Charlie"))
        let response = try post(active("Alpha", "Charlie") + [("delete", charlie.description)])
        #expect(response.code == 303)
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?mode=active&done=deleted&n=1", selected: [alpha], undo: [charlie]))
        #expect(inbox.subjects == ["Alpha", "Bravo", "Delta"])
    }

    @Test func aConfirmedSwipeDeletesTheRowAndCloses() throws {
        let bravo = inbox.id("Bravo")
        let response = try post([("mode", "transient"), ("row", bravo.description), ("delete", bravo.description)])
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?done=deleted&n=1", undo: [bravo]))
        #expect(inbox.subjects == ["Alpha", "Charlie", "Delta"])
    }

    @Test func deletingARowThatIsAlreadyGoneSaysSo() throws {
        let response = try post([("delete", "424242")])
        #expect(response.location == "/mailboxes/inbox?done=gone")
        #expect(inbox.subjects.count == 4)
    }

    // MARK: Moving

    @Test func moveUpKeepsTheTicks() throws {
        let response = try post(active("Alpha", "Bravo", "Delta") + [("move-up", inbox.id("Charlie").description)])
        #expect(response.code == 303)
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?mode=active", selected: ids("Alpha", "Bravo", "Delta")))
        #expect(inbox.subjects == ["Alpha", "Charlie", "Bravo", "Delta"])
    }

    @Test func moveDownKeepsTheTicks() throws {
        let response = try post(active("Bravo") + [("move-down", inbox.id("Alpha").description)])
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?mode=active", selected: ids("Bravo")))
        #expect(inbox.subjects == ["Bravo", "Alpha", "Charlie", "Delta"])
    }

    @Test func movingPastAnEdgeChangesNothing() throws {
        #expect(try post(active() + [("move-up", inbox.id("Alpha").description)]).code == 303)
        #expect(try post(active() + [("move-down", inbox.id("Delta").description)]).code == 303)
        #expect(inbox.subjects == ["Alpha", "Bravo", "Charlie", "Delta"])
    }

    // MARK: Bulk actions

    @Test(arguments: [
        ("mark-read", "marked-read"), ("mark-unread", "marked-unread"), ("flag", "flagged"), ("unflag", "unflagged"),
    ])
    func aBulkActionChangesExactlyTheTickedRowsAndKeepsThem(action: String, notice: String) throws {
        // Start from the opposite of what the action sets, so every change shows.
        let setsUnread = action == "mark-unread", setsFlag = action == "flag"
        let everyone = ["Alpha", "Bravo", "Charlie", "Delta"].map { inbox.id($0).description }
        let reset = action.hasSuffix("flag") ? (setsFlag ? "unflag" : "flag") : (setsUnread ? "mark-read" : "mark-unread")
        _ = try post([("mode", "active")] + everyone.map { ("selected", $0) } + [("action", reset)])

        let response = try post(active("Bravo", "Delta") + [("action", action)])
        #expect(response.code == 303)
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?mode=active&done=\(notice)&n=2", selected: ids("Bravo", "Delta")))
        for message in inbox.mailbox.messages {
            let isTicked = ["Bravo", "Delta"].contains(message.subject)
            if action.hasSuffix("flag") {
                #expect(message.isFlagged == (isTicked ? setsFlag : !setsFlag), "\(message.subject)")
            } else {
                #expect(message.isUnread == (isTicked ? setsUnread : !setsUnread), "\(message.subject)")
            }
        }
    }

    @Test(arguments: ["mark-read", "mark-unread", "flag", "unflag"])
    func aBulkActionWithNothingTickedChangesNothing(action: String) throws {
        let before = inbox.mailbox
        let response = try post(active() + [("action", action)])
        #expect(response.location == "/mailboxes/inbox?mode=active&done=nothing-selected")
        #expect(inbox.mailbox == before)
    }

    // MARK: SwiftUI's onMove

    /// DESIGN.md's table, on `[A,B,C,D,E]`.
    @Test(arguments: [
        ([0], 2, "B A C D E"),
        ([0], 1, "A B C D E"),
        ([4], 0, "E A B C D"),
        ([1], 4, "A C D B E"),
        ([0], 5, "B C D E A"),
        ([1, 3], 0, "B D A C E"),
        ([1, 3], 2, "A B D C E"),
        ([1, 2, 3], 3, "A B C D E"),
    ] as [([Int], Int, String)])
    func moveUsesSwiftUIOffsets(source: [Int], destination: Int, expected: String) throws {
        let letters = try TestApp("A", "B", "C", "D", "E")
        let names = ["A", "B", "C", "D", "E"]
        let ids = source.map { ("id", letters.id(names[$0]).description) }
        let response = try letters.post("/mailboxes/inbox", [("action", "move")] + ids + [("to", String(destination))])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes/inbox")
        #expect(letters.subjects.joined(separator: " ") == expected)
    }

    @Test func moveKeepsTheEditState() throws {
        let fields = active("Alpha") + [("action", "move"), ("id", inbox.id("Delta").description), ("to", "0")]
        let response = try post(fields)
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?mode=active", selected: ids("Alpha")))
        #expect(inbox.subjects == ["Delta", "Alpha", "Bravo", "Charlie"])
    }

    @Test(arguments: [
        ("5", "Offset 5 is out of range 0...4."),
        ("-1", "Offset -1 is out of range 0...4."),
        ("99999999999999999999", "destination offset"),
        ("two", "destination offset"),
        ("", "destination offset"),
    ])
    func aDestinationOutOfRangeIsA400AndChangesNothing(to: String, message: String) throws {
        let response = try post([("action", "move"), ("id", inbox.id("Alpha").description), ("to", to)])
        #expect(response.code == 400)
        #expect(response.html.contains(message))
        #expect(inbox.subjects == ["Alpha", "Bravo", "Charlie", "Delta"])
    }

    @Test func movingAnUnknownOrMissingIDIsA400AndChangesNothing() throws {
        let unknown = try post([("action", "move"), ("id", inbox.id("Alpha").description), ("id", "424242"), ("to", "4")])
        #expect(unknown.code == 400)
        #expect(unknown.html.contains("There is no message 424242."))
        let none = try post([("action", "move"), ("to", "0")])
        #expect(none.code == 400)
        let bad = try post([("action", "move"), ("id", "x"), ("to", "0")])
        #expect(bad.code == 400)
        #expect(inbox.subjects == ["Alpha", "Bravo", "Charlie", "Delta"])
    }

    // MARK: Refusals

    @Test(arguments: [
        ([], "it has no action"),
        ([("subject", "x")], "it has no action"),
        ([("action", "explode")], "Unknown action “explode”"),
        ([("action", "")], "Unknown action"),
        ([("delete", "abc")], "“abc” is not a message id"),
        ([("move-up", "0")], "“0” is not a message id"),
        ([("mode", "bogus"), ("action", "edit")], "Unknown mode"),
    ] as [([(String, String)], String)])
    func aPostThatSaysNothingUsefulIsA400Page(fields: [(String, String)], message: String) throws {
        let response = try post(fields)
        #expect(response.code == 400)
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(response.html.contains(message))
        #expect(inbox.subjects == ["Alpha", "Bravo", "Charlie", "Delta"])
    }

    @Test(arguments: ["text/plain", "multipart/form-data; boundary=x", "application/json", ""])
    func aPostWithTheWrongContentTypeIs415(contentType: String) throws {
        let response = try inbox.post("/mailboxes/inbox", [("action", "delete"), ("mode", "active")], contentType: contentType)
        #expect(response.code == 415)
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(response.html.contains("application/x-www-form-urlencoded"))
    }

    @Test func aPostWithoutAContentTypeIs415() throws {
        let response = try inbox.respond(.post, "/mailboxes/inbox", body: "action=edit")
        #expect(response.code == 415)
    }

    @Test func aFormWithTheCharsetParameterIsAccepted() throws {
        let response = try inbox.post(
            "/mailboxes/inbox", [("action", "edit")], contentType: "Application/x-www-form-urlencoded; charset=UTF-8")
        #expect(response.code == 303)
    }

    @Test func aMalformedBodyIs400() throws {
        let response = try inbox.respond(
            .post, "/mailboxes/inbox", headers: Headers([("Content-Type", "application/x-www-form-urlencoded")]),
            body: "action=add&subject=%zz")
        #expect(response.code == 400)
        #expect(inbox.subjects.count == 4)
    }

    @Test(arguments: [Method.put, .delete, .patch, .options, .other("BREW")])
    func otherMethodsOnTheInboxAre405WithAllow(method: Method) throws {
        let response = try inbox.respond(method, "/mailboxes/inbox")
        #expect(response.code == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, POST")
        #expect(response.contentType == "text/html; charset=utf-8")
    }
}
