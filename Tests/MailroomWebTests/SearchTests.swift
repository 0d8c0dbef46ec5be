import HTTP
import MailroomCore
import Testing

/// The search field and quick filters: every operator through the page, junk input as a
/// sentence (never a 500), and "Select all N that match" acting on exactly the matches counted.
@Suite struct SearchTests {
    /// Inbox: 1 "Paper jam on floor two" (Ann, read, flagged), 2 "Scanner report" (Bob),
    /// 3 "Quarterly budget" (Ann, flagged), 4 "Lunch menu" (Cy, read); Archive: 5 "Paper order".
    let app: TestApp

    init() throws {
        var library = makeLibrary(
            inbox: ["Paper jam on floor two", "Scanner report", "Quarterly budget", "Lunch menu"],
            archive: ["Paper order"], read: ["Paper jam on floor two", "Lunch menu"],
            flagged: ["Paper jam on floor two", "Quarterly budget"])
        try library.update(.inbox) { mailbox throws(MailboxError) in
            try mailbox.edit(MessageID(2), with: Draft(subject: "Scanner report", body: "The scanned invoices are attached."))
        }
        app = try TestApp(library: Self.authored(library, ["Ann", "Bob", "Ann", "Cy", "Ann"]), pageSize: 10)
    }

    /// `library` with message i's author set to `authors[i - 1]`, and dates a day apart
    /// (message 1 newest: 2025-11-28).
    private static func authored(_ library: Library, _ authors: [String]) -> Library {
        Library(mailboxes: library.mailboxes.map { mailbox in
            Mailbox(id: mailbox.id, name: mailbox.name, messages: mailbox.messages.map { message in
                let index = Int(message.id.rawValue)
                return Message(
                    id: message.id, subject: message.subject, body: message.body, author: authors[index - 1],
                    createdAt: fixedNow - Int64(index - 1) * 86_400, isUnread: message.isUnread, isFlagged: message.isFlagged)
            })
        }, nextMessageID: library.nextMessageID)
    }

    private func found(_ query: String, in box: String = "inbox") throws -> [String] {
        let encoded = FormData([("q", query)]).urlEncoded
        let response = try app.get("/mailboxes/\(box)?\(encoded)")
        #expect(response.code == 200, "q=\(query)")
        return response.html.rowIDs
    }

    @Test(arguments: [
        ("paper", ["1"]),
        ("PAPER", ["1"]),
        ("pap*", ["1"]),
        ("scan*", ["2"]),
        ("\"paper jam\"", ["1"]),
        ("\"jam paper\"", []),
        ("invoices", ["2"]),
        ("from:ann", ["3", "1"]),
        ("from:an", ["3", "1"]),
        ("subject:budget", ["3"]),
        ("subject:ann", []),
        ("is:unread", ["2", "3"]),
        ("is:read", ["1", "4"]),
        ("is:flagged", ["1", "3"]),
        ("is:flagged is:unread", ["3"]),
        ("before:2025-11-27", ["3", "4"]),
        ("after:2025-11-27", ["1", "2"]),
        ("from:ann -budget", ["1"]),
        ("has:attachment", []),
        ("nothingmatchesthis", []),
    ] as [(String, [String])])
    func eachOperatorNarrowsTheList(query: String, ids: [String]) throws {
        // Words: newest first, by id (3 above 1). Filters alone: the list's own order, which
        // here has 1 on top.
        #expect(try found(query) == ids, "q=\(query)")
    }

    @Test func aSubstringOfJapaneseTextIsFoundThroughThePage() throws {
        _ = try app.post("/mailboxes/inbox", [("action", "add"), ("subject", "請求書のスキャン（3枚）"), ("author", "山田 太郎")])
        _ = try app.post("/mailboxes/inbox", [("action", "add"), ("subject", "会議の議事録"), ("author", "Ann")])
        let scan = try #require(app.library[.inbox]?.messages.first { $0.subject.hasPrefix("請求書") }?.id.rawValue)
        #expect(try found("スキャン") == [String(scan)])
        #expect(try found("subject:請求書") == [String(scan)])
        #expect(try found("from:山田") == [String(scan)])
        #expect(try found("スキャン -請求書") == [])
    }

    @Test func aTagSearchFindsWhatTheToolbarTagged() throws {
        let id = try #require(app.get("/mailboxes/inbox").html.rowIDs.first)
        let tagged = try app.post("/mailboxes/inbox", [("mode", "active"), ("selected", id), ("action", "tag"), ("tag", "Work")])
        #expect(tagged.code == 303)
        let html = try app.get("/mailboxes/inbox?q=tag%3Awork").html
        #expect(html.tag(id: "search-problem") == nil)
        #expect(html.rowIDs == [id])
        #expect(try app.get("/mailboxes/inbox?q=tag%3A%21%21").html.tag(id: "search-problem") != nil)
    }

    @Test func theSearchHelpNamesEveryOperator() throws {
        let html = try app.get("/mailboxes/inbox").html
        let help = try #require(html.firstRange(of: "id=\"search-help\"")).upperBound
        let text = html[help...].prefix(while: { $0 != "<" })
        for syntax in SearchQuery.operators.map(\.syntax) where syntax.contains(":") {
            #expect(text.contains(syntax), "\(syntax) is missing from the help")
        }
        #expect(text.contains("Japanese"))
        #expect(text.contains("address"))
    }

    @Test func aSearchCoversOnlyItsMailbox() throws {
        #expect(try found("paper", in: "archive") == ["5"])
        #expect(try found("paper") == ["1"])
    }

    @Test(arguments: ["is:bogus", "before:2025-13-40", "-only", "\"", "*", "(", "AND OR NOT", "\u{1F4E7}", "a\"b*c:d"])
    func junkNeverFailsThePage(query: String) throws {
        let response = try app.get("/mailboxes/inbox?" + FormData([("q", query)]).urlEncoded)
        #expect(response.code == 200, "q=\(query)")
        #expect(response.html.contains("id=\"q\""))
    }

    @Test func aQueryThatCannotRunSaysWhyInASentence() throws {
        let html = try app.get("/mailboxes/inbox?q=is%3Abogus").html
        let problem = try #require(html.tag(id: "search-problem"))
        #expect(problem.contains("role=\"alert\""))
        #expect(html.contains("is:unread"))
        #expect(html.rowIDs.isEmpty)
        // The field keeps what was typed.
        #expect(html.tag(id: "q")?.attribute("value") == "is:bogus")
    }

    @Test func theQuickFiltersAreLinksAndSayWhichIsOn() throws {
        let html = try app.get("/mailboxes/inbox?q=is%3Aunread").html
        #expect(html.tag(id: "filter-unread")?.attribute("href") == "/mailboxes/inbox?q=is%3Aunread")
        #expect(html.tag(id: "filter-unread")?.attribute("aria-current") == "page")
        #expect(html.tag(id: "filter-flagged")?.attribute("aria-current") == "false")
        #expect(html.tag(id: "filter-all")?.attribute("href") == "/mailboxes/inbox")
    }

    @Test func searchResultsHaveEditModeWithoutMoveButtons() throws {
        let html = try app.get("/mailboxes/inbox?q=from%3Aann&mode=active").html
        #expect(html.rowIDs == ["3", "1"])
        #expect(!html.contains("name=\"move-up\""))
        #expect(!html.contains("name=\"move-down\""))
        #expect(html.contains("name=\"q\" value=\"from:ann\""))
    }

    @Test func aBulkActionInASearchReturnsToTheSearch() throws {
        let response = try app.post("/mailboxes/inbox", [("q", "from:ann"), ("mode", "active"), ("selected", "3"), ("action", "mark-read")])
        let location = try #require(response.location)
        #expect(location.hasPrefix("/mailboxes/inbox?q=from%3Aann&mode=active"))
        #expect(app.library.message(MessageID(3))?.isUnread == false)
    }

    @Test func selectAllThatMatchActsOnExactlyTheMatchesCountedThen() throws {
        // Ten rows a page: make the search span two pages.
        for index in 1...12 {
            _ = try app.post("/mailboxes/inbox", [("action", "add"), ("subject", "Note \(index)"), ("author", "Ann")])
        }
        let first = try app.get("/mailboxes/inbox?q=from%3Aann&mode=active&selected=" + (6...17).map(String.init).joined(separator: ",")).html
        let link = try #require(first.tag(id: "select-all-everything"))
        #expect(first.contains("Select all 14 messages that match this search"))
        let href = try #require(link.attribute("href")).replacingOccurrences(of: "&amp;", with: "&")
        let all = try app.get(href).html
        #expect(all.content(of: "h1") == "All 14 Selected")
        let revision = try #require(href.split(separator: "&").first { $0.hasPrefix("all=") }?.dropFirst(4))
        // After the page was read: another match arrives, and one match moves away.
        _ = try app.post("/mailboxes/inbox", [("action", "add"), ("subject", "Late note"), ("author", "Ann")])
        _ = try app.post("/mailboxes/inbox", [("mode", "active"), ("selected", "3"), ("action", "archive")])
        let response = try app.post("/mailboxes/inbox", [
            ("q", "from:ann"), ("mode", "active"), ("all", String(revision)), ("action", "flag"),
        ])
        let done = try app.get(try #require(response.location)).html
        #expect(done.contains("13 messages flagged."))
        let library = app.library
        let flagged = Set(library[.inbox]?.messages.filter(\.isFlagged).map(\.subject) ?? [])
        #expect(flagged.contains("Note 12") && flagged.contains("Note 1") && flagged.contains("Paper jam on floor two"))
        #expect(!flagged.contains("Late note"), "mail that arrived after the page was read was touched")
        #expect(!flagged.contains("Scanner report"), "a message that does not match was touched")
        #expect(library[.archive]?.messages.map(\.subject).contains("Quarterly budget") == true)
    }
}
