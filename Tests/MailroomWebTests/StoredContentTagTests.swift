import HTTP
import MailroomCore
import MailroomWeb
import Testing

/// Bytes that never change once stored (raw mail, its parts, its HTML framed) carry a strong
/// ETag; asked again with that ETag they are answered 304 with no body. At the addresses
/// Mailroom's own pages link (with the database's tag) the browser keeps them for good;
/// elsewhere it checks each time. Pages carry an ETag of what they show and are checked on
/// every view.
@Suite struct StoredContentTagTests {
    static let mail: [UInt8] = Array("""
        From: Scanner <scanner@office.test>\r
        Subject: Scan with a note\r
        MIME-Version: 1.0\r
        Content-Type: multipart/mixed; boundary="b1"\r
        \r
        --b1\r
        Content-Type: text/html\r
        \r
        <p>See the <b>scan</b>.</p>\r
        --b1\r
        Content-Type: application/pdf\r
        Content-Disposition: attachment; filename="scan.pdf"\r
        Content-Transfer-Encoding: base64\r
        \r
        JVBERi0xLjQKJcfsj6IK\r
        --b1--\r

        """.utf8)

    private func stored(_ app: TestApp) throws -> MessageID {
        try #require(try app.app.receiveMail(Self.mail, from: "s@example.test", to: ["inbox@mailroom.test"], peer: "127.0.0.1").first)
    }

    private func get(_ app: TestApp, _ target: String, ifNoneMatch: String) throws -> Response {
        try app.respond(.get, target, headers: Headers([("Sec-Fetch-Site", "same-origin"), ("If-None-Match", ifNoneMatch)]))
    }

    /// The database's tag, as the message page links stored bytes with it.
    private func version(_ app: TestApp, _ id: MessageID) throws -> String {
        let page = try app.get("/messages/\(id)").html
        let marker = "/messages/\(id)/raw?v="
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix { $0.isLetter || $0.isNumber })
    }

    @Test(arguments: ["raw", "parts/0", "html"])
    func storedBytesAreKeptForGoodAtTheirLinkedAddressAndAnswered304(path: String) throws {
        let inbox = try TestApp("Alpha")
        let id = try stored(inbox)
        let target = "/messages/\(id)/\(path)?v=\(try version(inbox, id))"
        let first = try inbox.get(target)
        #expect(first.code == 200)
        let etag = try #require(first.headers["ETag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
        #expect(first.headers["Cache-Control"] == "private, max-age=31536000, immutable")

        let again = try get(inbox, target, ifNoneMatch: etag)
        #expect(again.code == 304)
        #expect(again.body.isEmpty && again.stream == nil)
        #expect(again.headers["ETag"] == etag)
        #expect(again.headers["Cache-Control"] == "private, max-age=31536000, immutable")

        #expect(try get(inbox, target, ifNoneMatch: "\"something-else\"").code == 200)
        #expect(try get(inbox, target, ifNoneMatch: "\"x\", \(etag)").code == 304)
    }

    @Test(arguments: ["raw", "parts/0", "html"])
    func withoutTheTagTheBrowserChecksEachTime(path: String) throws {
        let inbox = try TestApp("Alpha")
        let id = try stored(inbox)
        for target in ["/messages/\(id)/\(path)", "/messages/\(id)/\(path)?v=another"] {
            let first = try inbox.get(target)
            #expect(first.headers["Cache-Control"] == "private, no-cache", "\(target)")
            let etag = try #require(first.headers["ETag"])
            let again = try get(inbox, target, ifNoneMatch: etag)
            #expect(again.code == 304, "\(target)")
            #expect(again.headers["Cache-Control"] == "private, no-cache", "\(target)")
        }
    }

    @Test func theMessagePageLinksStoredBytesWithTheTag() throws {
        let inbox = try TestApp("Alpha")
        let id = try stored(inbox)
        let tag = try version(inbox, id)
        let page = try inbox.get("/messages/\(id)?view=html").html
        #expect(page.contains("href=\"/messages/\(id)/raw?v=\(tag)\""))
        #expect(page.contains("href=\"/messages/\(id)/parts/0?v=\(tag)\""))
        #expect(page.contains("src=\"/messages/\(id)/html?v=\(tag)\""))
    }

    @Test func eachStoredThingHasItsOwnETag() throws {
        let inbox = try TestApp("Alpha")
        let id = try stored(inbox)
        let other = try stored(inbox)
        let tags = try ["raw", "parts/0", "html", "html?images=remote"].map { path in
            try inbox.get("/messages/\(id)/\(path)").headers["ETag"]
        } + [try inbox.get("/messages/\(other)/raw").headers["ETag"]]
        #expect(Set(tags.compactMap { $0 }).count == 5)
    }

    @Test func theETagsOfStoredBytesOutliveTheAppButNotTheFile() throws {
        let inbox = try TestApp("Alpha")
        let id = try stored(inbox)
        let etag = try #require(try inbox.get("/messages/\(id)/raw").headers["ETag"])
        // Another app over the same file (a restart) knows the ETag.
        let restarted = MailroomApp(store: inbox.app.store, publicFolder: "/nonexistent", now: { fixedNow }, security: .off)
        let request = try Request(method: .get, target: "/messages/\(id)/raw", headers: Headers([("If-None-Match", etag)]))
        #expect(restarted.respond(to: request).code == 304)
        // Another file whose message has the same number does not.
        let elsewhere = try TestApp("Alpha")
        let sameNumber = try stored(elsewhere)
        #expect(sameNumber == id)
        #expect(try get(elsewhere, "/messages/\(id)/raw", ifNoneMatch: etag).code == 200)
    }

    @Test func theMessagePageIsRevalidatedAndAnswered304WhileItShowsTheSame() throws {
        let inbox = try TestApp("Alpha")
        let id = inbox.id("Alpha")
        let page = try inbox.get("/messages/\(id)")
        let etag = try #require(page.headers["ETag"])
        #expect(page.headers["Cache-Control"] == "no-cache")
        let again = try get(inbox, "/messages/\(id)", ifNoneMatch: etag)
        #expect(again.code == 304)
        #expect(again.body.isEmpty)
        // Flagged, it shows something else: the old ETag no longer matches.
        #expect(try inbox.post("/messages/\(id)", [("action", "flag")]).code == 303)
        let changed = try get(inbox, "/messages/\(id)", ifNoneMatch: etag)
        #expect(changed.code == 200)
        #expect(changed.headers["ETag"] != etag)
    }

    /// A browser puts a 304's fields in place of those it kept: a 304 with the site's own policy
    /// (`frame-ancestors 'none'`) would stop the kept frame, or the page's frame, from loading.
    @Test func a304CarriesThePoliciesOfWhatItStandsFor() throws {
        let inbox = try TestApp("Alpha")
        let id = try stored(inbox)
        for target in ["/messages/\(id)/html", "/messages/\(id)?view=html", "/messages/\(id)/raw"] {
            let first = try inbox.get(target)
            let again = try get(inbox, target, ifNoneMatch: try #require(first.headers["ETag"]))
            #expect(again.code == 304, "\(target)")
            #expect(again.headers["Content-Security-Policy"] == first.headers["Content-Security-Policy"], "\(target)")
            #expect(again.headers["X-Frame-Options"] == first.headers["X-Frame-Options"], "\(target)")
        }
    }
}
