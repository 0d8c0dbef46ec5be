import Testing

/// Requests sent back to back before any answer are each answered, in order.
@Suite struct PipeliningTests {
    static let three = RequestBytes.get("/mailboxes/inbox", headers: [RequestBytes.host])
        + RequestBytes.get("/style.css", headers: [RequestBytes.host])
        + RequestBytes.get("/nowhere", headers: [RequestBytes.host, "Connection: close"])

    @Test func threeRequestsInOneWriteGetThreeResponsesInOrder() throws {
        let server = try HostileServer()
        let exchange = try server.exchange(Self.three, expecting: 3)
        expectInboxStyleNotFound(exchange)
        server.expectStillServesInbox(after: "three pipelined GETs")
    }

    @Test func threeRequestsInSmallPiecesGetThreeResponsesInOrder() throws {
        let server = try HostileServer()
        // Pieces of about 13 bytes cut request lines, headers and the blank lines apart.
        let exchange = try server.exchange(Self.three, pieces: Self.three.count / 13, expecting: 3, within: 15)
        expectInboxStyleNotFound(exchange)
        server.expectStillServesInbox(after: "three pipelined GETs in small pieces")
    }

    @Test func aRefusedRequestInThePipelineDoesNotStopTheOthers() throws {
        let server = try HostileServer()
        let bytes = RequestBytes.get("/mailboxes/inbox", headers: [RequestBytes.host])
            + RequestBytes.get("/mailboxes/inbox?mode=%zz", headers: [RequestBytes.host])
            + RequestBytes.get("/style.css", headers: [RequestBytes.host, "Connection: close"])
        let exchange = try server.exchange(bytes, expecting: 3)
        #expect(exchange.responses.map(\.status) == [200, 400, 200], "\(exchange.summary)")
        if exchange.responses.count == 3 {
            Expect.page(exchange.responses[1], for: "a bad query in the middle of a pipeline")
        }
        server.expectStillServesInbox(after: "a pipeline with a refused request")
    }

    private func expectInboxStyleNotFound(_ exchange: Exchange, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(exchange.responses.map(\.status) == [200, 200, 404], "\(exchange.summary)", sourceLocation: sourceLocation)
        guard exchange.responses.count == 3 else { return }
        #expect(exchange.responses[0].text.contains("Alpha"), "the first answer is not the Inbox", sourceLocation: sourceLocation)
        #expect(exchange.responses[1].header("Content-Type")?.hasPrefix("text/css") == true,
                "the second answer is not the stylesheet: \(exchange.responses[1].summary)", sourceLocation: sourceLocation)
        Expect.page(exchange.responses[2], for: "the pipelined 404", sourceLocation: sourceLocation)
    }
}
