import HTTP
import Testing

/// An answer larger than the socket takes at once: what is left is queued (by reference, not
/// copied) and written as the client reads, whole and in order, and the connection goes on.
@Suite struct LargeAnswerTests {
    @Test func aPageTooBigForTheSocketArrivesWholeAndTheNextAnswerFollowsIt() throws {
        // A page of 500 rows, the most one page shows, with long subjects.
        let server = try TestServer(subjects: (1...500).map { "Message \($0) " + String(repeating: "long subject ", count: 14) })
        let client = HTTPClient(port: server.port, keepingAlive: server)
        client.receiveBufferBytes = 4_096
        let page = try client.send("GET", "/mailboxes/inbox")
        #expect(page.status == 200)
        // Many times the 4 KiB the client reads at once.
        #expect(page.body.count > 256 << 10, "a page of 500 rows is \(page.body.count) bytes")
        // The very bytes the app made (compared as one value: a failure must not print megabytes).
        let made = server.app.respond(to: Request(method: .get, path: "/mailboxes/inbox")).body
        let arrivedWhole = page.body == made
        #expect(arrivedWhole, "\(page.body.count) bytes arrived for a page of \(made.count)")
        #expect(ListHTML.subjects(in: page.text) == (1...500).map { "Message \($0) " + String(repeating: "long subject ", count: 14) })

        let stylesheet = try client.send("GET", "/style.css")
        #expect(stylesheet.status == 200)
        let again = try client.send("GET", "/mailboxes/inbox")
        let sameAgain = again.body == made
        #expect(sameAgain)
        #expect(client.connectionsOpened == 1)
    }
}
