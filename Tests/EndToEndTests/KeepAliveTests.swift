import Testing

/// Browsers reuse one connection for many requests; the server must answer every one.
@Suite struct KeepAliveTests {
    @Test func severalRequestsOnOneKeepAliveConnectionAreAllAnswered() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let client = server.client()
        let form = [("Content-Type", "application/x-www-form-urlencoded")]

        #expect(try client.send("GET", "/mailboxes/inbox").status == 200)
        #expect(try client.send("GET", "/style.css").status == 200)
        #expect(try client.send("HEAD", "/mailboxes/inbox").status == 200)
        let posted = try client.send("POST", "/mailboxes/inbox", headers: form, body: Array("action=edit".utf8))
        #expect(posted.status == 303)
        #expect(posted.header("Location") == "/mailboxes/inbox?mode=active")
        #expect(try client.send("GET", posted.header("Location") ?? "/").status == 200)
        #expect(try client.send("GET", "/no/such/page").status == 404)
        #expect(try client.send("PUT", "/mailboxes/inbox").status == 405)
        #expect(try client.send("POST", "/mailboxes/inbox", headers: form, body: Array("action=add".utf8)).status == 422)
        #expect(try client.send("POST", "/mailboxes/inbox", headers: form, body: Array("x=%zz".utf8)).status == 400)
        #expect(try client.send("GET", "/messages/1").status == 200)

        #expect(client.connectionsOpened == 1)
        #expect(client.isConnected)
    }

    @Test func connectionCloseIsHonoured() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let client = server.client()
        try client.write(Array("GET /style.css HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n".utf8))
        let raw = String(decoding: try client.readUntilClosed(), as: UTF8.self)
        #expect(raw.hasPrefix("HTTP/1.1 200 "))
        #expect(raw.split(separator: "HTTP/1.1 ", omittingEmptySubsequences: false).count == 2)

        // The next request opens a new connection and is answered too.
        #expect(try client.send("GET", "/mailboxes/inbox").status == 200)
        #expect(client.connectionsOpened == 2)
    }

    /// A change is answered by a worker thread after its commit; on a connection the client
    /// asked to close, that answer is the last thing written before the close.
    @Test func aChangeOnAClosingConnectionIsAnsweredThenClosed() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let client = server.client()
        let body = "action=add&subject=Closing+time"
        try client.write(Array((
            "POST /mailboxes/inbox HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)").utf8))
        let raw = String(decoding: try client.readUntilClosed(), as: UTF8.self)
        #expect(raw.hasPrefix("HTTP/1.1 303 "))
        #expect(raw.contains("\r\nConnection: close\r\n"))
        #expect(raw.split(separator: "HTTP/1.1 ", omittingEmptySubsequences: false).count == 2)

        let page = try client.send("GET", "/mailboxes/inbox")
        #expect(page.text.contains("Closing time"))
    }
}
