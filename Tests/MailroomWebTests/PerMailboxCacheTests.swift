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

    /// A page kept for a mailbox that has changed since can never be sent again: it is let go
    /// at rest, even when nobody looks at that mailbox again.
    @Test func pagesOfAChangedMailboxAreLetGoAtRest() throws {
        let test = try TestApp(library: makeLibrary(inbox: ["One"], archive: ["Kept"]))
        for page in ["/mailboxes/inbox", "/mailboxes/inbox?n=2", "/mailboxes/archive"] {
            #expect(try test.get(page).code == 200)
        }
        let (_, kept) = test.app.pages.held
        test.app.service.dropStaleValues()
        #expect(test.app.pages.held.entries == 3)
        _ = try test.app.receiveMail(
            Array("Subject: New\r\n\r\nHello.\r\n".utf8), from: "s@example.test", to: ["desk@example.test"], peer: "127.0.0.1")
        test.app.service.dropStaleValues()
        #expect(test.app.pages.held.entries == 1, "the Archive's page stays")
        #expect(test.app.pages.held.cost < kept / 2)
        #expect(test.app.slices.held.entries == 1, "the Archive's rows stay")
    }

    /// Each thread remembers the pages it answered since the last commit (`PageMemo`): for its
    /// own app only, and only until the next commit.
    @Test func aThreadRemembersAPageForItsOwnAppUntilTheNextCommit() throws {
        let first = try TestApp(library: makeLibrary(inbox: ["Alpha"], archive: ["Kept"]))
        let second = try TestApp(library: makeLibrary(inbox: ["Beta"], archive: ["Kept"]))
        #expect(first.app.store.revision == second.app.store.revision, "only the app tells the two apart")
        let page = try first.get("/mailboxes/inbox")
        let hits = first.app.pages.hits.load(ordering: .relaxed)
        #expect(try first.get("/mailboxes/inbox").body == page.body)
        #expect(first.app.pages.hits.load(ordering: .relaxed) == hits, "answered from this thread's memo")
        // Another app at the same revision, the same address, on the same thread: its own page.
        let other = String(decoding: try second.get("/mailboxes/inbox").body, as: UTF8.self)
        #expect(other.contains("Beta") && !other.contains("Alpha"))
        // After a commit the page is made afresh.
        _ = try first.app.receiveMail(
            Array("Subject: Gamma\r\n\r\nHello.\r\n".utf8), from: "s@example.test", to: ["desk@example.test"], peer: "127.0.0.1")
        let after = String(decoding: try first.get("/mailboxes/inbox").body, as: UTF8.self)
        #expect(after.contains("Gamma") && after.contains("Alpha"))
    }
}
