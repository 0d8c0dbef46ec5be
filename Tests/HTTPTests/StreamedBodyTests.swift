import HTTP
import Testing

/// A body made a piece at a time: its length is known ahead and written as Content-Length.
@Suite struct StreamedBodyTests {
    private final class Pieces: BodySource, @unchecked Sendable {
        let length: Int
        private var made = 0

        init(length: Int) {
            self.length = length
        }

        func next(atMost limit: Int) -> [UInt8]? {
            let count = min(limit, length - made)
            made += count
            return Array(repeating: 120, count: count)
        }
    }

    @Test func theHeadOfAStreamedAnswerCarriesTheStreamsLengthAndNoBody() {
        let response = Response(headers: Headers([("Content-Type", "application/pdf")]), stream: Pieces(length: 5_000_000))
        #expect(response.bodyLength == 5_000_000)
        let head = String(decoding: response.head(keepAlive: true, date: "Tue, 01 Dec 2026 10:00:00 GMT"), as: UTF8.self)
        #expect(head.contains("Content-Length: 5000000\r\n"))
        #expect(head.hasSuffix("\r\n\r\n"))
        let serialized = response.serialized(keepAlive: true, includeBody: true, date: "Tue, 01 Dec 2026 10:00:00 GMT")
        #expect(serialized.count == head.utf8.count)
    }

    @Test func aPreparedStreamedAnswerKeepsItsLength() {
        let response = Response(headers: Headers([("Content-Type", "text/plain")]), stream: Pieces(length: 42)).prepared()
        let head = String(decoding: response.head(keepAlive: false, date: "Tue, 01 Dec 2026 10:00:00 GMT"), as: UTF8.self)
        #expect(head.contains("Content-Length: 42\r\n"))
        #expect(head.contains("Connection: close\r\n"))
    }
}
