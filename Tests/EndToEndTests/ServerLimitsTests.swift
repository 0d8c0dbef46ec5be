import Testing

/// Requests over the server's limits never reach the app; DESIGN.md §5 still wants the right
/// status and a small HTML page in UTF-8, like every other response.
@Suite struct ServerLimitsTests {
    @Test
    func aTooLargeBodyIsA413PageInUTF8() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let before = server.mailbox
        let body = Array("action=add&subject=Big&body=".utf8) + Array(repeating: UInt8(ascii: "x"), count: 70_000)
        let response = try server.client().send(
            "POST", "/mailboxes/inbox",
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Connection", "close")], body: body)
        #expect(response.status == 413)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(server.mailbox == before)
    }

    @Test
    func overLargeHeadersAreA431PageInUTF8() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let response = try server.client().send(
            "GET", "/mailboxes/inbox",
            headers: [("X-Padding", String(repeating: "a", count: 20_000)), ("Connection", "close")])
        #expect(response.status == 431)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
    }

    @Test
    func aTooLongURLIsA414PageInUTF8() throws {
        let server = try TestServer(subjects: ["Alpha"])
        // Over the default --max-url of 32 KiB, and under libevent's own cap of
        // 4 × (max-url + max-headers), so it is the server's 414 that answers.
        let target = "/mailboxes/inbox?padding=" + String(repeating: "a", count: 40_000)
        #expect(target.utf8.count > 32 * 1024 && target.utf8.count < 4 * (32 * 1024 + 16 * 1024))
        let response = try server.client().send("GET", target, headers: [("Connection", "close")])
        #expect(response.status == 414)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
    }

    @Test func theServerKeepsServingAfterRefusingARequest() throws {
        let server = try TestServer(subjects: ["Alpha"])
        _ = try server.client().send(
            "GET", "/mailboxes/inbox", headers: [("X-Padding", String(repeating: "a", count: 20_000))])
        #expect(try server.client().send("GET", "/mailboxes/inbox").status == 200)
    }
}
