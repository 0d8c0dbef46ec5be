import HTTP
import Testing

/// An answer larger than the socket takes at once: what is left is queued (by reference, not
/// copied) and written as the client reads, whole and in order, and the connection goes on.
@Suite struct LargeAnswerTests {
    @Test func aPageTooBigForTheSocketArrivesWholeAndTheNextAnswerFollowsIt() throws {
        let server = try TestServer(messages: 10_000)
        let client = HTTPClient(port: server.port, keepingAlive: server)
        client.receiveBufferBytes = 4_096
        let page = try client.send("GET", "/mailboxes/inbox")
        #expect(page.status == 200)
        // More than a socket ever buffers on Linux by default (net.ipv4.tcp_wmem: 4 MiB at most).
        #expect(page.body.count > 4 << 20, "a page of 10,000 rows is \(page.body.count) bytes")
        // The very bytes the app made (compared as one value: a failure must not print megabytes).
        let made = server.app.respond(to: Request(method: .get, path: "/mailboxes/inbox")).body
        let arrivedWhole = page.body == made
        #expect(arrivedWhole, "\(page.body.count) bytes arrived for a page of \(made.count)")
        #expect(ListHTML.subjects(in: page.text) == (1...10_000).map { "Message \($0)" })

        let stylesheet = try client.send("GET", "/style.css")
        #expect(stylesheet.status == 200)
        let again = try client.send("GET", "/mailboxes/inbox")
        let sameAgain = again.body == made
        #expect(sameAgain)
        #expect(client.connectionsOpened == 1)
    }
}
