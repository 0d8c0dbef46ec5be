import Testing

/// A refused client may still be sending. The server ends its side after the refusal and reads
/// on, dropping what comes, until the client closes too (RFC 9112, 9.6): the client reads its
/// refusal and an orderly end, never a reset that could destroy the answer before it is read.
@Suite struct LingeringCloseTests {
    @Test func aBodyFarOverTheLimitSentWholeGetsItsRefusalAndAnOrderlyEnd() throws {
        let server = try HostileServer()
        let connection = try RawConnection(port: server.port)
        // 256 KiB behind a head that says a megabyte: far more than one read of the server's
        // takes, so the refusal is made while most of it is still on its way.
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 256 * 1_024)
        let sent = try connection.send(RequestBytes.post(body, contentLength: String(1 << 20)))
        #expect(sent, "the server reads what follows its refusal rather than resetting the connection")
        let received = connection.read(within: HostileServer.answerSeconds)
        let (closed, reset) = (received.closed, received.reset)
        #expect(closed, "the server ends its side after the refusal")
        #expect(!reset, "an orderly end, not a reset")
        let (responses, _) = ResponseParser.parse(received.bytes, connectionClosed: received.closed)
        #expect(responses.map(\.status) == [413])
        server.expectStillServesInbox(after: "a refused body that kept coming")
    }

    @Test func aRequestTargetOverTheLimitInPiecesGetsItsRefusalAndAnOrderlyEnd() throws {
        let server = try HostileServer()
        let connection = try RawConnection(port: server.port)
        let bytes = RequestBytes.get("/mailboxes/inbox?pad=" + String(repeating: "a", count: 4_000))
        let pieces = stride(from: 0, to: bytes.count, by: 100).map { Array(bytes[$0..<min($0 + 100, bytes.count)]) }
        // The refusal comes after about a quarter of it; the rest is still sent, and dropped.
        #expect(try connection.send(pieces: pieces, pause: 0.005))
        let received = connection.read(within: HostileServer.answerSeconds)
        let (closed, reset) = (received.closed, received.reset)
        #expect(closed && !reset, "an orderly end, not a reset")
        let (responses, _) = ResponseParser.parse(received.bytes, connectionClosed: received.closed)
        #expect(responses.map(\.status) == [414])
    }
}
