import Testing

/// One hostile request: the exact bytes, the statuses that count as right, and any header the
/// answer must carry.
struct HostileCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let statuses: Set<Int>
    /// A header the response must carry, such as `Allow` on a 405.
    var requiredHeader: String? = nil
    /// Written in this many pieces rather than one.
    var pieces = 1

    init(_ name: String, _ bytes: [UInt8], _ statuses: Set<Int>, requiredHeader: String? = nil, pieces: Int = 1) {
        self.name = name
        self.bytes = bytes
        self.statuses = statuses
        self.requiredHeader = requiredHeader
        self.pieces = pieces
    }

    var testDescription: String { name }

    /// Sends the case to a fresh server and checks the answer, that the library is unchanged,
    /// and that a plain GET on a new connection still works.
    func run(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let server = try HostileServer()
        let before = server.app.library
        let exchange = try server.exchange(bytes, pieces: pieces)
        Expect.answer(exchange, statuses, for: name, sourceLocation: sourceLocation)
        if let requiredHeader, let response = exchange.responses.first {
            #expect(!(response.header(requiredHeader) ?? "").isEmpty,
                    "\(name): no \(requiredHeader) header: \(response.summary)", sourceLocation: sourceLocation)
        }
        #expect(server.app.library == before, "\(name) changed the library", sourceLocation: sourceLocation)
        server.expectStillServesInbox(after: name, sourceLocation: sourceLocation)
    }
}
