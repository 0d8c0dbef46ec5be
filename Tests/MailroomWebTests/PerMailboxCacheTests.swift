import HTTP
import MailroomCore
import Testing
@testable import MailroomWeb

/// List pages are cached per mailbox: a change in one mailbox leaves the others' pages.
@Suite struct PerMailboxCacheTests {
    @Test func mailIntoTheInboxLeavesTheArchivesRowsCached() throws {
        let test = try TestApp(library: makeLibrary(inbox: ["One"], archive: ["Kept"]))
        #expect(try test.get("/mailboxes/archive").code == 200)
        let hits = test.app.slices.hits.load(ordering: .relaxed)
        _ = try test.app.receiveMail(
            Array("Subject: New\r\n\r\nHello.\r\n".utf8), from: "s@example.test", to: ["desk@example.test"], peer: "127.0.0.1")
        let page = try test.get("/mailboxes/archive")
        #expect(page.code == 200)
        // The sidebar's Inbox count changed, so the page is made again, from the rows kept.
        #expect(test.app.slices.hits.load(ordering: .relaxed) == hits + 1)
        #expect(String(decoding: page.body, as: UTF8.self).contains("Kept"))
    }

    @Test func flaggingInTheInboxKeepsTheArchivesPageAndETag() throws {
        let test = try TestApp(library: makeLibrary(inbox: ["One"], archive: ["Kept"]))
        let archive = try test.get("/mailboxes/archive")
        let etag = try #require(archive.headers["ETag"])
        let inboxTag = try #require(try test.get("/mailboxes/inbox").headers["ETag"])
        let flagged = try test.post("/mailboxes/inbox", [("mode", "active"), ("selected", "1"), ("action", "flag")])
        #expect(flagged.code == 303)
        #expect(test.library[.inbox]?.messages.first?.isFlagged == true)
        let hits = test.app.pages.hits.load(ordering: .relaxed)
        #expect(try test.get("/mailboxes/archive").body == archive.body)
        #expect(test.app.pages.hits.load(ordering: .relaxed) == hits + 1)
        #expect(try test.respond(.get, "/mailboxes/archive", headers: Headers([("If-None-Match", etag)])).code == 304)
        #expect(try test.get("/mailboxes/inbox").headers["ETag"] != inboxTag)
    }
}
