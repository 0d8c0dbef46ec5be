@testable import MailroomNet
import Testing

/// A GET that a loop has answered before, byte for byte and from the same address, is answered
/// again without the app while nothing it shows has changed: the same bytes, and after any
/// change the change itself, never the answer from before it.
@Suite struct RepeatedAnswersTests {
    /// One loop, so that every connection meets the same kept answers.
    private static func server() throws -> TestServer {
        try TestServer(library: TestServer.library(inbox: ["Message 1", "Message 2", "Message 3"]), threads: 1)
    }

    private func repeats(_ server: TestServer) -> Int {
        server.app.metrics.repeatedAnswers.load(ordering: .relaxed)
    }

    @Test func theSameGetIsAnsweredAgainWithTheSameBytes() throws {
        let server = try Self.server()
        let client = server.client()
        let page = try client.send("GET", "/mailboxes/inbox")
        let css = try client.send("GET", "/style.css")
        #expect(repeats(server) == 0)
        let pageAgain = try client.send("GET", "/mailboxes/inbox")
        #expect(repeats(server) == 1)
        // The stylesheet's answer is repeated too, unless its once-a-second check against the
        // disk fell between the two requests (the mark itself: `StaticFilesCacheTests`).
        let cssAgain = try client.send("GET", "/style.css")
        #expect(pageAgain.status == 200 && cssAgain.status == 200)
        #expect(pageAgain.body == page.body && cssAgain.body == css.body)
        #expect(pageAgain.header("ETag") == page.header("ETag"))
        #expect(pageAgain.header("Content-Security-Policy") == page.header("Content-Security-Policy"))
        #expect(pageAgain.header("Date") != nil)
        #expect(client.connectionsOpened == 1)
    }

    @Test func aRepeatedAnswerCarriesTheDateOfTheSecondItIsSentIn() throws {
        let server = try Self.server()
        let client = server.client()
        let first = try client.send("GET", "/mailboxes/inbox")
        let firstDate = try #require(first.header("Date"))
        // Asked again and again until the clock passes a second (at most 5 s).
        let deadline = ContinuousClock.now + .seconds(5)
        var asked = 0
        var later = first
        while later.header("Date") == firstDate && ContinuousClock.now < deadline {
            later = try client.send("GET", "/mailboxes/inbox")
            asked += 1
        }
        #expect(later.header("Date") != firstDate)
        #expect(later.body == first.body)
        #expect(repeats(server) == asked, "every answer after the first was a repeat")
    }

    @Test func aChangeIsShownToTheNextRepeatOfTheRequest() throws {
        let server = try Self.server()
        let client = server.client()
        _ = try client.send("GET", "/mailboxes/inbox")
        let before = try client.send("GET", "/mailboxes/inbox")
        #expect(repeats(server) == 1)
        #expect(before.text.contains("Message 2"))

        // Someone else deletes message 2 meanwhile.
        let bob = server.browser()
        try bob.get("/mailboxes/inbox?mode=active")
        try bob.press(("delete", "2"))
        #expect(server.ids(in: .inbox) == [1, 3])

        let counted = repeats(server)
        let after = try client.send("GET", "/mailboxes/inbox")
        #expect(repeats(server) == counted, "the answer from before the change was sent again")
        #expect(!after.text.contains("Message 2"))
        #expect(after.text.contains("Message 3"))
        #expect(after.header("ETag") != before.header("ETag"))
        // The new answer is the one repeated from now on.
        let again = try client.send("GET", "/mailboxes/inbox")
        #expect(repeats(server) == counted + 1)
        #expect(again.body == after.body)
    }

    @Test func anotherAddressIsNotAnsweredFromTheFirstAddressesRequest() throws {
        let server = try Self.server()
        let first = server.client()
        _ = try first.send("GET", "/mailboxes/inbox")
        let other = server.client()
        other.sourceAddress = "127.0.0.2"
        let page = try other.send("GET", "/mailboxes/inbox")
        #expect(repeats(server) == 0)
        #expect(page.status == 200 && page.text.contains("Message 1"))
        _ = try other.send("GET", "/mailboxes/inbox")
        #expect(repeats(server) == 1)
    }

    @Test func pipelinedRepeatsAreEachAnsweredInOrder() throws {
        let server = try Self.server()
        let client = server.client()
        let page = try client.send("GET", "/mailboxes/inbox")
        let css = try client.send("GET", "/style.css")
        let host = "Host: 127.0.0.1:\(server.port)\r\n"
        let inbox = "GET /mailboxes/inbox HTTP/1.1\r\n\(host)\r\n"
        let style = "GET /style.css HTTP/1.1\r\n\(host)\r\n"
        try client.write(Array((inbox + style + inbox + "GET /mailboxes/archive HTTP/1.1\r\n\(host)\r\n").utf8))
        let answers = try (0..<4).map { _ in try client.receive() }
        #expect(answers.map(\.status) == [200, 200, 200, 200])
        #expect(answers[0].body == page.body && answers[2].body == page.body)
        #expect(answers[1].body == css.body)
        #expect(answers[3].text.contains("Archive") && !answers[3].text.contains("Message 1"))
        // Both pages, and the stylesheet unless its check against the disk fell due meanwhile.
        #expect((2...3).contains(repeats(server)))
    }

    @Test func aHeadAfterTheSameGetGetsNoBody() throws {
        let server = try Self.server()
        let client = server.client()
        let page = try client.send("GET", "/mailboxes/inbox")
        _ = try client.send("GET", "/mailboxes/inbox")
        let head = try client.send("HEAD", "/mailboxes/inbox")
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == String(page.body.count))
        #expect(repeats(server) == 1)
        // Nothing followed the HEAD's head: the next answer on the connection is whole and right.
        let after = try client.send("GET", "/style.css")
        #expect(after.status == 200 && after.header("Content-Type")?.hasPrefix("text/css") == true)
    }

    /// A page over `AnswerFile.threshold` is repeated from a file (`sendfile`); a client that
    /// asks for it many times before reading fills the socket, and the rest of each answer is
    /// sent from memory, in order.
    @Test func aPageRepeatedFromAFileIsTheSameBytesEvenToAClientThatReadsLate() throws {
        let subjects = (1...50).map { "A message with a subject long enough to fill its row \($0)" }
        let server = try TestServer(library: TestServer.library(inbox: subjects), threads: 1)
        let client = server.client()
        let page = try client.send("GET", "/mailboxes/inbox")
        #expect(page.body.count >= AnswerFile.threshold && page.body.count <= 128 * 1_024)
        for _ in 0..<3 {
            let again = try client.send("GET", "/mailboxes/inbox")
            #expect(again.status == 200 && again.body == page.body)
        }
        #expect(repeats(server) == 3)
        let request = "GET /mailboxes/inbox HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n"
        try client.write(Array(String(repeating: request, count: 40).utf8))
        let answers = try (0..<40).map { _ in try client.receive() }
        #expect(answers.allSatisfy { $0.status == 200 && $0.body == page.body })
        #expect(repeats(server) == 43)
        #expect(client.connectionsOpened == 1)
    }

    @Test func aLargePageIsAlwaysMadeByTheApp() throws {
        let subjects = (1...400).map { "A message with a subject long enough to fill its row \($0)" }
        let server = try TestServer(library: TestServer.library(inbox: subjects), threads: 1, pageSize: 500)
        let client = server.client()
        let page = try client.send("GET", "/mailboxes/inbox")
        #expect(page.body.count > 128 * 1_024)
        let again = try client.send("GET", "/mailboxes/inbox")
        #expect(again.body == page.body)
        #expect(repeats(server) == 0)
    }

    @Test func aRequestThatAsksToCloseIsNeverRepeated() throws {
        let server = try Self.server()
        for _ in 0..<3 {
            let client = server.client()
            let page = try client.send("GET", "/mailboxes/inbox", headers: [("Connection", "close")])
            #expect(page.status == 200 && page.closesConnection)
        }
        #expect(repeats(server) == 0)
    }
}
