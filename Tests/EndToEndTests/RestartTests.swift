import Glibc
import Testing

/// DESIGN.md §3: the SQLite file is the whole state. A clean restart of the real program on the
/// same `--db` shows every mailbox exactly as it was, and the file is never shared or invented.
@Suite struct RestartTests {
    /// One row as a person sees it in a list page.
    struct Row: Equatable, CustomStringConvertible {
        let id: Int
        let subject: String
        let preview: String
        let author: String
        let time: String
        /// The row's classes, sorted: `row`, `unread`, `flagged`.
        let classes: [String]

        var description: String { "#\(id) \(subject) [\(classes.joined(separator: " "))]" }
    }

    /// One mailbox: its sidebar entry and its rows, top to bottom.
    struct Box: Equatable, CustomStringConvertible {
        let sidebar: Page.SidebarEntry
        let heading: String?
        let summary: String?
        let rows: [Row]

        var description: String { "\(sidebar): \(rows)" }
    }

    @Test func everyMailboxReadsBackIdenticallyAfterACleanRestartOnTheSameFile() throws {
        let database = ScratchDatabase("restart")
        var server = try RunningMailroom(database: database.path)
        var tab = server.browser()
        var token = try tab.get("/mailboxes/inbox").formToken

        // Six messages; each new one goes on top.
        var ids: [String: Int] = [:]
        for subject in ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"] {
            let page = try tab.addMessage(subject: subject, body: "About \(subject).", author: "Ann")
            #expect(tab.redirects.map(\.status) == [303])
            let id = try #require(page.rowIDs.first)
            ids[subject] = id
        }
        let (a, b, c, d, e, f) = (ids["Alpha"]!, ids["Bravo"]!, ids["Charlie"]!, ids["Delta"]!, ids["Echo"]!, ids["Foxtrot"]!)
        #expect(tab.page.rowIDs == [f, e, d, c, b, a])

        // Edit one (it stays unread), read one, flag one.
        try post(tab, "/messages/\(c)", [("action", "save"), ("subject", "Charlie (edited)"), ("body", "A new body.")], token)
        #expect(tab.redirects.map(\.status) == [303])
        #expect(tab.page.element(id: "message").map(tab.page.text(of:))?.contains("A new body.") == true)
        try tab.get("/messages/\(b)")
        try post(tab, "/messages/\(d)", [("action", "flag")], token)
        #expect(tab.redirects.map(\.status) == [303])

        // Move the bottom row up one.
        try post(tab, "/mailboxes/inbox", [("mode", "active"), ("move-up", String(a))], token)
        #expect(tab.page.rowIDs == [f, e, d, c, a, b])

        // A mailbox of one's own, and a message moved into it.
        try post(tab, "/mailboxes", [("action", "create"), ("name", "Projects")], token)
        #expect(tab.redirects.map(\.status) == [303])
        let slug = String(tab.currentURL.dropFirst("/mailboxes/".count).prefix { $0 != "?" })
        #expect(tab.page.heading == "Projects")
        try post(tab, "/mailboxes/inbox", [("mode", "active"), ("selected", String(e)), ("action", "move-to"), ("target", slug)], token)
        #expect(tab.page.rowIDs == [f, d, c, a, b])

        // Delete two at once, then Undo them with the ids the notice offers.
        let deleted = try post(tab, "/mailboxes/inbox",
                               [("mode", "active"), ("selected", String(f)), ("selected", String(c)), ("action", "delete")], token)
        #expect(deleted.rowIDs == [d, a, b])
        let undoIDs = tab.queryIDs("undo")
        #expect(undoIDs == [c, f].sorted())
        #expect(deleted.undoForm?.ids("id")?.sorted() == undoIDs)
        let undoList = tab.queryValues("undo")
        let undone = try post(tab, "/mailboxes/inbox", [("mode", "active"), ("action", "undo")] + undoList.map { ("id", $0) }, token)
        #expect(tab.redirects.map(\.status) == [303])
        #expect(undone.rowIDs == [f, d, c, a, b])

        // One more goes to Trash and stays there.
        try post(tab, "/mailboxes/inbox", [("mode", "active"), ("selected", String(b)), ("action", "delete")], token)
        #expect(tab.page.rowIDs == [f, d, c, a])

        let before = try Self.state(tab)
        // What the steps above should have made, so the comparison after the restart means something.
        #expect(before.map(\.sidebar.name) == ["Inbox", "Archive", "Trash", "Projects"])
        #expect(before.map { $0.rows.map(\.id) } == [[f, d, c, a], [], [b], [e]])
        #expect(before[0].rows.map(\.subject) == ["Foxtrot", "Delta", "Charlie (edited)", "Alpha"])
        #expect(before[0].rows.map(\.preview) == ["About Foxtrot.", "About Delta.", "A new body.", "About Alpha."])
        #expect(before[0].rows.map(\.classes) == [["row", "unread"], ["flagged", "row", "unread"], ["row", "unread"], ["row", "unread"]])
        #expect(before[2].rows.map(\.classes) == [["row"]])
        #expect(before[0].sidebar.unread == 4)

        tab.client.close()
        #expect(try server.stop() == 0)

        server = try RunningMailroom(database: database.path)
        tab = server.browser()
        let after = try Self.state(tab)
        #expect(after == before)
        if after != before {
            for (old, new) in zip(before, after) where old != new { Issue.record("before: \(old)\nafter:  \(new)") }
        }

        // The restarted program goes on from there: Restore knows where Bravo came from, and a new
        // message gets an id that was never used.
        // A new process has a new form token: take it from a page that has forms.
        token = try tab.get("/mailboxes/inbox").formToken
        try post(tab, "/mailboxes/trash", [("mode", "active"), ("restore", String(b))], token)
        #expect(tab.redirects.map(\.status) == [303])
        #expect(try tab.get("/mailboxes/inbox").rowIDs == [f, d, c, a, b])
        let added = try tab.addMessage(subject: "Golf")
        let golf = try #require(added.rowIDs.first)
        #expect(![a, b, c, d, e, f].contains(golf))
        #expect(added.rowIDs == [golf, f, d, c, a, b])

        tab.client.close()
        #expect(try server.stop() == 0)
    }

    @Test func aSecondProgramOnTheSameFileExitsOneAndSaysTheDatabaseIsInUse() throws {
        let database = ScratchDatabase("in-use")
        let first = try RunningMailroom(database: database.path)
        let second = try ChildProcess(executable: try MailroomExecutable.path(), arguments: RunningMailroom.arguments(database: database.path))
        #expect(try second.waitForExit(within: 5) == 1)
        #expect(second.errorText.contains("in use"), "stderr: \(second.errorText)")
        #expect(second.errorText.contains(database.path), "stderr: \(second.errorText)")
        #expect(!second.outputText.contains("listening"))

        // The first one is unharmed.
        let tab = first.browser()
        #expect(try tab.get("/mailboxes/inbox").heading == "Inbox")
        #expect(tab.status == 200)
        tab.client.close()
        #expect(try first.stop() == 0)
    }

    @Test func aDatabaseInAMissingFolderExitsOneWithAClearMessage() throws {
        let folder = "/tmp/mailroom-missing-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let path = folder + "/mailroom.sqlite"
        let program = try ChildProcess(executable: try MailroomExecutable.path(), arguments: RunningMailroom.arguments(database: path))
        #expect(try program.waitForExit(within: 5) == 1)
        #expect(program.errorText.hasPrefix("mailroom: "), "stderr: \(program.errorText)")
        #expect(program.errorText.contains(path), "stderr: \(program.errorText)")
        #expect(program.errorText.lowercased().contains("cannot open"), "stderr: \(program.errorText)")
        #expect(!program.outputText.contains("listening"))
        // Nothing was created on the way.
        #expect(access(folder, F_OK) != 0)
    }

    // MARK: Helpers

    /// Posts fields as a page's form would (with its anti-forgery token, when the server uses one)
    /// and follows the 303.
    @discardableResult
    private func post(_ tab: BrowserSession, _ target: String, _ fields: [(String, String)], _ token: String?) throws -> Page {
        let page = try tab.post(target, fields: fields + (token.map { [("csrf", $0)] } ?? []))
        guard tab.status == 200 else { throw TestFailure("POST \(target) \(fields) ended in \(tab.status): \(page.html.prefix(600))") }
        return page
    }

    /// Every mailbox in the sidebar's order, each read from its own page.
    static func state(_ tab: BrowserSession) throws -> [Box] {
        let sidebar = try tab.get("/mailboxes/inbox").sidebar
        guard !sidebar.isEmpty else { throw TestFailure("no sidebar on the Inbox page") }
        return try sidebar.map { entry in
            let page = try tab.get(entry.href)
            guard tab.status == 200 else { throw TestFailure("GET \(entry.href) answered \(tab.status)") }
            let rows = page.tags("li").filter { $0["data-id"] != nil }.map { row in
                func text(_ name: String) -> String {
                    page.tags(inside: row).first { $0.classes.contains(name) }.map(page.text(of:)) ?? ""
                }
                return Row(
                    id: Int(row["data-id"] ?? "") ?? -1, subject: text("subject"), preview: text("preview"),
                    author: text("author"),
                    time: page.tags(inside: row).first { $0.name == "time" }?["datetime"] ?? "",
                    classes: row.classes.sorted())
            }
            let summary = page.elements(class: "bar-context").first.map(page.text(of:))
            // The sidebar as seen from this page, with "current" taken out so pages compare equal.
            let entryHere = page.sidebar.first { $0.slug == entry.slug }
            let seen = entryHere.map {
                Page.SidebarEntry(slug: $0.slug, name: $0.name, href: $0.href, unread: $0.unread, isCurrent: false)
            } ?? entry
            return Box(sidebar: seen, heading: page.heading, summary: summary, rows: rows)
        }
    }
}
