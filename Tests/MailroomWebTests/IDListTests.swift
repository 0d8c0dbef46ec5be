import HTTP
import MailroomCore
import Testing

/// Id lists in URLs and forms (`selected=1-3,5`, `undo=2,4`), through the app: short enough for a
/// Select All of thousands, read back exactly, and refused whole when any part is not an id.
struct IDListTests {
    /// Inbox 1…6, all unread.
    static func sixMessages() throws -> TestApp {
        try TestApp(library: makeLibrary(inbox: ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"]))
    }

    private static let form = Headers([("Content-Type", "application/x-www-form-urlencoded")])

    private static func ids(_ raw: [Int64]) -> [MessageID] { raw.map { MessageID($0) } }

    // MARK: Thousands of ids in a short URL

    /// What is posted to an Inbox of 5,000 messages, and the Location expected without its id lists:
    /// Select All ticks the page (500 rows), and a delete of 5,000 is undone by its batch.
    @Test(arguments: [
        ("mode=active&action=select-all", "/mailboxes/inbox?mode=active", "selected"),
        ("mode=active&selected=1-5000&action=delete", "/mailboxes/inbox?done=deleted&n=5000&batch=1", "batch"),
    ])
    func fiveThousandIDsRedirectToALocationShorterThan100Bytes(body: String, expected: String, list: String) throws {
        let subjects = (1...5_000).map { "Message \($0)" }
        let app = try TestApp(library: makeLibrary(inbox: subjects))
        let page = Self.ids(Array(1...500))

        let response = try app.respond(.post, "/mailboxes/inbox", headers: Self.form, body: body)
        #expect(response.code == 303)
        let location = try #require(response.location)
        #expect(location.utf8.count < 100, "\(location.utf8.count) bytes: \(location)")
        #expect(try response.redirect()
            == Redirect(expected, selected: list == "selected" ? page : []))
    }

    @Test func undoOfADeleteOfFiveThousandPutsEveryOneBackInOrder() throws {
        let subjects = (1...5_000).map { "Message \($0)" }
        let app = try TestApp(library: makeLibrary(inbox: subjects))
        let response = try app.post("/mailboxes/inbox", [("mode", "active"), ("selected", "1-5000"), ("action", "delete")])
        #expect(app.subjects(in: .inbox).isEmpty)
        let page = try app.get(try #require(response.location)).html
        #expect(page.contains("5000 messages moved to Trash."))
        #expect(page.contains("name=\"batch\" value=\"1\""))
        _ = try app.post("/mailboxes/inbox", [("action", "undo"), ("batch", "1")])
        #expect(app.subjects(in: .inbox) == subjects)
        #expect(app.subjects(in: .trash).isEmpty)
    }

    @Test func aSelectAllOfFiveThousandRendersThePageTicked() throws {
        let app = try TestApp(library: makeLibrary(inbox: (1...5_000).map { "Message \($0)" }))
        let response = try app.post("/mailboxes/inbox", [("mode", "active"), ("action", "select-all")])
        let html = try app.get(try #require(response.location)).html
        // One pass over the page's checkboxes: the general helpers rescan the page for each tag.
        let boxes = html.components(separatedBy: "<input ").dropFirst().map { $0.prefix { $0 != ">" } }
            .filter { $0.contains("type=\"checkbox\"") }
        #expect(boxes.count == 500)
        let ticked: [String] = boxes.filter { $0.contains(" checked") }.compactMap { box in (" " + box).attribute("value") }
        #expect(ticked == (1...500).map { String($0) })
        // The whole list is one link away.
        #expect(html.contains("Select all 5,000 messages in Inbox"))
    }

    // MARK: Reading a selection back

    /// A selection, as a query or a form sends it, and exactly the rows it ticks.
    static let selections: [(String, [Int64])] = [
        ("selected=1-3,5", [1, 2, 3, 5]),
        ("selected=1-3%2C5", [1, 2, 3, 5]),
        ("selected=1&selected=3", [1, 3]),
        ("selected=1,3-4&selected=6", [1, 3, 4, 6]),
        ("selected=2-2", [2]),
        ("selected=6,1", [1, 6]),
        ("selected=1-6", [1, 2, 3, 4, 5, 6]),
    ]

    /// Selections that also name messages that do not exist: only the living rows are ticked.
    static let selectionsWithGoneIDs: [(String, [Int64])] = [
        ("selected=4-6,99", [4, 5, 6]),
        // Exactly the limit of 100,000 ids is still a list.
        ("selected=1-100000", [1, 2, 3, 4, 5, 6]),
    ]

    @Test(arguments: selections)
    func aPostedSelectionActsOnAndRendersExactlyThoseRowsTicked(selection: String, ticked: [Int64]) throws {
        let app = try Self.sixMessages()
        let body = "mode=active&\(selection)&action=mark-read"
        let response = try app.respond(.post, "/mailboxes/inbox", headers: Self.form, body: body)
        #expect(response.code == 303)

        // Marked read: exactly the ticked rows that exist.
        #expect(app.library[.inbox]?.messages.filter { !$0.isUnread }.map(\.id.rawValue) == ticked)
        let expected = try Redirect("/mailboxes/inbox?mode=active&done=marked-read&n=\(ticked.count)", selected: Self.ids(ticked))
        #expect(try response.redirect() == expected)
        let html = try app.get(try #require(response.location)).html
        #expect(html.checkboxes.map(\.value) == ["1", "2", "3", "4", "5", "6"])
        #expect(html.checkedIDs == ticked.map(String.init))
    }

    @Test(arguments: selections + selectionsWithGoneIDs)
    func aSelectionInTheQueryRendersExactlyThoseRowsTicked(selection: String, ticked: [Int64]) throws {
        let app = try Self.sixMessages()
        let response = try app.get("/mailboxes/inbox?mode=active&\(selection)")
        #expect(response.code == 200)
        #expect(response.html.checkedIDs == ticked.map(String.init))
    }

    // MARK: Refused

    /// Each is one value of `selected` (or of Undo's `id`); none of them names only message ids.
    static let refused = [
        "1-100001", "1-60000,60001-100001", "1-9223372036854775807",
        "3-1", "a", "1-", ",", "-1", "1,", ",1", "1,,2", "1-2-3", "0", "01", "1 ", "1;2", "",
    ]

    @Test(arguments: refused)
    func aMalformedOrTooLongListIsA400AndChangesNothing(list: String) throws {
        let app = try Self.sixMessages()
        let before = app.library
        let value = escapedForQuery(list)

        let page = try app.get("/mailboxes/inbox?mode=active&selected=\(value)")
        #expect(page.code == 400)
        #expect(page.html.content(of: "h1") == "400 Bad Request")

        for body in ["mode=active&selected=\(value)&action=mark-read", "mode=active&action=undo&id=\(value)"] {
            let response = try app.respond(.post, "/mailboxes/inbox", headers: Self.form, body: body)
            #expect(response.code == 400, "\(body)")
            #expect(response.location == nil)
        }
        #expect(app.library == before)
    }

    /// The same limit holds across repeated fields: two halves of too many are too many.
    @Test func theLimitCountsEveryFieldOfTheList() throws {
        let app = try Self.sixMessages()
        #expect(try app.get("/mailboxes/inbox?mode=active&selected=1-50000&selected=50001-100000").code == 200)
        #expect(try app.get("/mailboxes/inbox?mode=active&selected=1-50000&selected=50001-100001").code == 400)
    }
}

/// `text` escaped for a query, but with commas and dashes kept as the app writes them.
private func escapedForQuery(_ text: String) -> String {
    var output = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "-"), UInt8(ascii: ","):
            output.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = Array("0123456789ABCDEF")
            output += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
        }
    }
    return output
}
