import Glibc
import MailroomStore
import Testing

/// The real program: SIGTERM lets a request in flight finish, and a post from another site
/// or without the form token changes nothing.
@Suite struct ShutdownAndForgeryTests {
    @Test func sigtermLetsARequestInFlightFinishAndTheChangeIsKept() throws {
        let database = ScratchDatabase("shutdown")
        let server = try RunningMailroom(database: database.path)
        let token = try #require(try HTTPClient(port: server.port).fetchFormToken())

        // A first answer on this connection proves the server has accepted it; then half a post.
        let body = Array("action=add&subject=In+flight&csrf=\(token)".utf8)
        let client = HTTPClient(port: server.port, timeoutSeconds: 10)
        #expect(try client.send("GET", "/style.css").status == 200)
        let head = "POST /mailboxes/inbox HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.count)\r\n\r\n"
        try client.write(Array(head.utf8) + body.prefix(10))

        server.program.send(SIGTERM)
        _ = try server.program.waitForOutputLine(within: 10) { $0.contains("finishing 1 request in flight") }

        // The rest arrives after the server began stopping: it is still answered, and closes.
        try client.write(Array(body.dropFirst(10)))
        let answer = String(decoding: try client.readUntilClosed(), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 303 See Other\r\n"), "\(answer.prefix(200))")
        #expect(answer.contains("\r\nConnection: close\r\n"))
        #expect(try server.program.waitForExit(within: 10) == 0)

        let store = try Store(path: database.path)
        defer { store.close() }
        #expect(try store.library()[.inbox]?.messages.map(\.subject) == ["In flight"])
    }

    @Test(arguments: [
        [("Origin", "http://evil.example")],
        [("Referer", "http://evil.example/form.html")],
        [],
    ])
    func aForgedPostIsA403AndChangesNothing(headers: [(String, String)]) throws {
        let database = ScratchDatabase("forgery")
        let server = try RunningMailroom(database: database.path)
        defer { _ = try? server.stop() }
        let token = try #require(try HTTPClient(port: server.port).fetchFormToken())
        // A foreign page may know every field but the token; with a foreign Origin it may even guess it.
        let fields = headers.isEmpty ? "action=add&subject=Forged" : "action=add&subject=Forged&csrf=\(token)"
        let response = try HTTPClient(port: server.port).send(
            "POST", "/mailboxes/inbox",
            headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers, body: Array(fields.utf8))
        #expect(response.status == 403)
        #expect(response.text.contains("nothing was changed"))
        let inbox = try HTTPClient(port: server.port).send("GET", "/mailboxes/inbox")
        #expect(!inbox.text.contains("Forged"))
    }
}
