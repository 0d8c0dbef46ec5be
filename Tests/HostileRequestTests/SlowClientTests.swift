import Testing

/// A client that stops or trickles holds up no one else, and the server hangs up on it.
@Suite struct SlowClientTests {
    static let timeout = Double(HostileServer.configuration.timeoutSeconds)
    /// How late after its timeout the server may close a silent connection.
    static let margin = 3.0
    /// A normal request beside slow ones must finish well within the timeout.
    static let prompt = timeout / 2
    /// How long a trickling client may keep a request going before it must be cut off.
    static let trickleLimit = 4 * timeout

    @Test func halfARequestLineHoldsUpNoOneAndIsClosedAfterTheTimeout() throws {
        let server = try HostileServer()
        // Enough idle connections that each event loop holds several.
        var slow: [RawConnection] = []
        for _ in 0..<20 {
            let connection = try RawConnection(port: server.port)
            try connection.send(Array("GET /mailb".utf8))
            slow.append(connection)
        }
        let deadline = Deadline(Self.timeout + Self.margin)

        let (exchange, seconds) = try secondsTaken { try server.exchange(RequestBytes.get("/mailboxes/inbox")) }
        #expect(exchange.responses.first?.status == 200, "beside slow clients: \(exchange.summary)")
        #expect(seconds < Self.prompt, "a GET beside 20 slow clients took \(seconds) s")
        #expect(slow.allSatisfy { !$0.isClosedByServer }, "the slow clients should still be open when the GET is done")

        for (index, connection) in slow.enumerated() {
            let received = connection.read(within: deadline.remaining)
            #expect(received.closed, "slow client \(index) was still open \(Self.timeout + Self.margin) s later")
            expectNothingOrA408(received, for: "half a request line")
        }
        server.expectStillServesInbox(after: "20 slow clients")
    }

    @Test func aBodyThatStopsHalfWayIsClosedAfterTheTimeoutAndChangesNothing() throws {
        let server = try HostileServer()
        let before = server.app.library
        let form = Array(HostileServer.addForm.utf8)
        let connection = try RawConnection(port: server.port)
        try connection.send(RequestBytes.post(Array(form.prefix(10)), contentLength: String(form.count)))
        let deadline = Deadline(Self.timeout + Self.margin)

        let (exchange, seconds) = try secondsTaken { try server.exchange(RequestBytes.get("/mailboxes/inbox")) }
        #expect(exchange.responses.first?.status == 200, "beside a stalled body: \(exchange.summary)")
        #expect(seconds < Self.prompt, "a GET beside a stalled body took \(seconds) s")

        let received = connection.read(within: deadline.remaining)
        #expect(received.closed, "the stalled body was still open \(Self.timeout + Self.margin) s later")
        expectNothingOrA408(received, for: "a stalled body")
        #expect(server.app.library == before, "a stalled body changed the library")
        server.expectStillServesInbox(after: "a stalled body")
    }

    @Test func aRequestLineTrickledAByteAtATimeIsCutOff() throws {
        let server = try HostileServer()
        let connection = try RawConnection(port: server.port)
        try connection.send(Array("GET /mailboxes/inbox?pad=".utf8))
        let seconds = trickle(on: connection)
        #expect(connection.isClosedByServer,
                "a request line trickled at 2 bytes/s was still open after \(seconds) s (limit \(Self.trickleLimit) s)")
        expectNothingOrA408(connection.received, for: "a trickled request line")
        server.expectStillServesInbox(after: "a trickled request line")
    }

    @Test func aBodyTrickledAByteAtATimeIsCutOffAndChangesNothing() throws {
        let server = try HostileServer()
        let before = server.app.library
        let connection = try RawConnection(port: server.port)
        try connection.send(RequestBytes.post(Array("csrf=t0ken&action=add&subject=".utf8), contentLength: "4000"))
        let seconds = trickle(on: connection)
        #expect(connection.isClosedByServer,
                "a body trickled at 2 bytes/s was still open after \(seconds) s (limit \(Self.trickleLimit) s)")
        expectNothingOrA408(connection.received, for: "a trickled body")
        #expect(server.app.library == before, "a trickled body changed the library")
        server.expectStillServesInbox(after: "a trickled body")
    }

    /// Sends one byte every half second until the server hangs up or the trickle limit passes;
    /// returns the seconds it went on.
    private func trickle(on connection: RawConnection) -> Double {
        let deadline = Deadline(Self.trickleLimit)
        let (_, seconds) = secondsTaken {
            while !deadline.hasPassed {
                guard (try? connection.send([UInt8(ascii: "a")])) == true else { return }
                // Waits half a second, or less if the server answers or hangs up.
                if connection.read(within: 0.5).closed { return }
            }
        }
        return seconds
    }

    /// A server may hang up on a slow client silently or with a 408 page; nothing else.
    private func expectNothingOrA408(
        _ received: RawConnection.Received, for what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let (responses, _) = ResponseParser.parse(received.bytes, connectionClosed: received.closed)
        guard let response = responses.first else { return }
        #expect(response.status == 408, "\(what) was answered \(response.summary)", sourceLocation: sourceLocation)
        Expect.page(response, for: what, sourceLocation: sourceLocation)
    }
}
