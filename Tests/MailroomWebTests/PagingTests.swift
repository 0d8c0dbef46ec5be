import Foundation
import HTTP
import MailroomCore
import Testing

/// A list shows one page of rows; Newer and Older move by the keys of the rows at its edges, so
/// a walk never repeats or skips a row while others add and delete; "Select all N" means the N
/// counted when the page was read, and nothing that arrived later.
@Suite struct PagingTests {
    /// 25 messages, "Message 1" on top (id 1) to "Message 25" at the bottom, ten rows a page.
    let app: TestApp

    init() throws {
        app = try TestApp(library: makeLibrary(inbox: (1...25).map { "Message \($0)" }), pageSize: 10)
    }

    private func href(_ html: String, _ id: String) throws -> String {
        let tag = try #require(html.tag(id: id), "no #\(id) on the page")
        return try #require(tag.attribute("href")).replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func thePagesShowTenRowsEachWithTheirPlaceInTheHeader() throws {
        let first = try app.get("/mailboxes/inbox").html
        #expect(first.rowIDs == (1...10).map(String.init))
        #expect(first.contains("1–10 of 25"))
        #expect(first.tag(id: "newer") == nil)
        let second = try app.get(try href(first, "older")).html
        #expect(second.rowIDs == (11...20).map(String.init))
        #expect(second.contains("11–20 of 25"))
        let third = try app.get(try href(second, "older")).html
        #expect(third.rowIDs == (21...25).map(String.init))
        #expect(third.contains("21–25 of 25"))
        #expect(third.tag(id: "older") == nil)
        #expect(try app.get(try href(third, "newer")).html.rowIDs == (11...20).map(String.init))
        #expect(try app.get(try href(third, "newest")).html.rowIDs == (1...10).map(String.init))
    }

    @Test func walkingOlderWhileOthersAddAndDeleteNeverRepeatsOrSkipsARow() throws {
        var target = "/mailboxes/inbox"
        var seen: [String] = []
        var step = 0
        while true {
            let html = try app.get(target).html
            seen += html.rowIDs
            step += 1
            // Between pages, someone adds two messages on top and deletes one already walked past
            // and one not yet reached.
            _ = try app.post("/mailboxes/inbox", [("action", "add"), ("subject", "New \(step)a")])
            _ = try app.post("/mailboxes/inbox", [("action", "add"), ("subject", "New \(step)b")])
            _ = try app.post("/mailboxes/inbox", [("delete", String(step))])
            guard let older = html.tag(id: "older") else { break }
            _ = older
            target = try href(html, "older")
        }
        let deletedAhead = Set((1...3).map { String($0) })
        #expect(Set(seen).count == seen.count, "a row was shown twice: \(seen)")
        // Every row that was there when the walk began and was not deleted was seen.
        let expected = (1...25).map(String.init).filter { !deletedAhead.contains($0) || seen.contains($0) }
        #expect(expected.allSatisfy(seen.contains), "rows skipped: \(expected.filter { !seen.contains($0) })")
    }

    @Test func aStalePageAddressStillAnswersWithTheNearestPage() throws {
        let first = try app.get("/mailboxes/inbox").html
        let older = try href(first, "older")
        // Everything from that page on is deleted by someone else.
        _ = try app.post("/mailboxes/inbox", [("mode", "active"), ("selected", "11-25"), ("action", "delete")])
        let stale = try app.get(older)
        #expect(stale.code == 200)
        #expect(stale.html.rowIDs == (1...10).map(String.init))
        #expect(try app.get("/mailboxes/inbox?older=-5&at=999").code == 200)
        #expect(try app.get("/mailboxes/inbox?newer=99999999999&at=3").html.rowIDs == (1...10).map(String.init))
    }

    @Test func aPostReturnsToTheSamePage() throws {
        let second = try href(try app.get("/mailboxes/inbox").html, "older")
        let query = try #require(second.split(separator: "?").last).split(separator: "&").map { $0.split(separator: "=").map(String.init) }
        let response = try app.post("/mailboxes/inbox", [("mode", "active"), ("selected", "12"), ("action", "flag")] + query.map { ($0[0], $0[1]) })
        let location = try #require(response.location)
        #expect(location.contains("older="))
        #expect(try app.get(location).html.rowIDs == (11...20).map(String.init))
    }

    @Test func selectAllTicksThePageAndOffersTheWholeList() throws {
        let response = try app.post("/mailboxes/inbox", [("mode", "active"), ("action", "select-all")])
        let html = try app.get(try #require(response.location)).html
        #expect(html.content(of: "h1") == "10 Selected")
        #expect(html.contains("Select all 25 messages in Inbox"))
        let all = try app.get(try href(html, "select-all-everything")).html
        #expect(all.content(of: "h1") == "All 25 Selected")
        #expect(all.contains("Delete (25)"))
    }

    @Test func selectAllNActsOnExactlyTheCountedMessagesAndUndoPutsThemAllBack() throws {
        let page = try app.get("/mailboxes/inbox?mode=active&selected=1-10").html
        let everything = try href(page, "select-all-everything")
        let revision = try #require(everything.split(separator: "&").first { $0.hasPrefix("all=") }?.dropFirst(4))
        // Mail that arrives after the page was read, and a message moved in from the Archive.
        _ = try app.post("/mailboxes/inbox", [("action", "add"), ("subject", "Arrived later")])
        _ = try app.post("/mailboxes/inbox", [("delete", "25")])
        let response = try app.post("/mailboxes/inbox", [
            ("mode", "active"), ("all", String(revision)), ("all-count", "25"), ("selected", "1-10"), ("action", "delete"),
        ])
        let location = try #require(response.location)
        let done = try app.get(location).html
        #expect(done.contains("24 messages moved to Trash. 1 was already gone."))
        #expect(app.subjects(in: .inbox) == ["Arrived later"])
        // Undo, as the notice's button posts it: all 24 back in their old order.
        let undo = try #require(done.tag(id: "undo"))
        #expect(undo.contains("Undo") || done.contains(">Undo<"))
        // "All N" is undone by its batch, whatever N is.
        let batch = try #require(location.split(separator: "&").first { $0.hasPrefix("batch=") }?.dropFirst(6))
        #expect(done.contains("name=\"batch\" value=\"\(batch)\""))
        _ = try app.post("/mailboxes/inbox", [("action", "undo"), ("batch", String(batch))])
        #expect(app.subjects(in: .inbox) == ["Arrived later"] + (1...24).map { "Message \($0)" })
        #expect(app.subjects(in: .trash) == ["Message 25"])
    }

    @Test func moveUpAndDownAreDisabledOnlyAtTheEndsOfTheWholeList() throws {
        let second = try app.get("/mailboxes/inbox?mode=active").html
        #expect(try #require(second.tag(id: "action-update")).contains("value=\"update\""))
        let page = try app.get(try href(second, "older")).html
        // Row 11 is the top of this page but not of the list: it can still move up.
        #expect(page.contains("name=\"move-up\" value=\"11\" class=\"button icon\" aria-label"))
        #expect(!page.contains("name=\"move-up\" value=\"11\" class=\"button icon\" disabled"))
    }
}
