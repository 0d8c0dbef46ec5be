import HTTP
import MailroomCore
import MailroomWeb
import Testing

/// Bytes that never change once stored (raw mail, its parts, its HTML framed) carry a strong
/// ETag and are kept by the browser; asked again with that ETag they are answered 304 with no
/// body. Pages carry an ETag of what they show and are revalidated on every view.
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

    @Test(arguments: ["raw", "parts/0", "html"])
    func storedBytesAreImmutableAndAnswered304ForTheirETag(path: String) throws {
        let inbox = try TestApp("Alpha")
        let target = "/messages/\(try stored(inbox))/\(path)"
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
}
