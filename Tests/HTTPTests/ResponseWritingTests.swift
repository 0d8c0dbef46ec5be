import HTTP
import Testing

/// A response as HTTP/1.1 bytes, and the `Date` header's form.
struct ResponseWritingTests {
    private let date = "Fri, 28 Nov 2025 14:05:00 GMT"

    private func text(_ response: Response, keepAlive: Bool = true, echoKeepAlive: Bool = false, includeBody: Bool = true) -> String {
        String(decoding: response.serialized(
            keepAlive: keepAlive, echoKeepAlive: echoKeepAlive, includeBody: includeBody, date: date), as: UTF8.self)
    }

    /// The header lines between the status line and the empty line.
    private func headerLines(_ text: String) -> [String] {
        let head = text.split(separator: "\r\n\r\n", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return head.split(separator: "\r\n").dropFirst().map(String.init)
    }

    @Test(arguments: [true, false])
    func aPreparedResponseIsWrittenExactlyAsItWouldBeOtherwise(keepAlive: Bool) {
        let response = Response(status: .ok, headers: Headers([("Content-Type", "text/css"), ("ETag", "\"1\"")]),
                                body: Array("body{}".utf8))
        let prepared = response.prepared()
        #expect(prepared.isPrepared && !response.isPrepared)
        #expect(text(prepared, keepAlive: keepAlive) == text(response, keepAlive: keepAlive))
        #expect(text(prepared, includeBody: false) == text(response, includeBody: false))
        #expect(text(prepared, echoKeepAlive: true) == text(response, echoKeepAlive: true))
    }

    @Test func changingAPreparedResponseDropsItsPreparedHead() {
        let prepared = Response(status: .ok, headers: Headers([("Content-Type", "text/css")]), body: [1, 2]).prepared()
        var withField = prepared
        withField.headers.add("X-Extra", "1")
        #expect(!withField.isPrepared)
        #expect(text(withField).contains("\r\nX-Extra: 1\r\n"))
        var longer = prepared
        longer.body = [1, 2, 3]
        #expect(text(longer).contains("\r\nContent-Length: 3\r\n"))
        var gone = prepared
        gone.status = .notFound
        #expect(text(gone).hasPrefix("HTTP/1.1 404 Not Found\r\n"))
    }

    @Test func aResponseIsTheStatusLineItsHeadersInOrderThenLengthDateAndBody() {
        let response = Response(status: .ok, headers: Headers([
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Set-Cookie", "a=1"),
            ("X-Frame-Options", "DENY"),
            ("Set-Cookie", "b=2"),
        ]), body: Array("hello".utf8))
        #expect(text(response) == "HTTP/1.1 200 OK\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\n"
            + "Set-Cookie: a=1\r\n"
            + "X-Frame-Options: DENY\r\n"
            + "Set-Cookie: b=2\r\n"
            + "Content-Length: 5\r\n"
            + "Date: Fri, 28 Nov 2025 14:05:00 GMT\r\n"
            + "\r\n"
            + "hello")
    }

    @Test(arguments: [Status.ok, .seeOther, .badRequest, .notFound, .headersTooLarge, .internalServerError,
                      Status(code: 505, reason: "HTTP Version Not Supported")])
    func theStatusLineCarriesTheCodeAndReason(status: Status) {
        #expect(text(Response(status: status, text: "x")).hasPrefix("HTTP/1.1 \(status.code) \(status.reason)\r\n"))
    }

    @Test(arguments: [("", 0), ("a", 1), ("é✉️", 8), ("<p>hello</p>\n", 13)])
    func contentLengthCountsTheBodysBytes(body: String, length: Int) {
        expectLength(of: Array(body.utf8), length)
    }

    @Test func contentLengthCountsALargeBody() {
        expectLength(of: [UInt8](repeating: 0x41, count: 100_000), 100_000)
    }

    private func expectLength(of body: [UInt8], _ length: Int) {
        let bytes = Response(status: .ok, headers: Headers([("Content-Type", "application/octet-stream")]), body: body)
            .serialized(keepAlive: true, includeBody: true, date: date)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(headerLines(text).filter { $0.hasPrefix("Content-Length:") } == ["Content-Length: \(length)"])
        #expect(bytes.suffix(body.count + 4) == ArraySlice(Array("\r\n\r\n".utf8) + body))
    }

    @Test func anAnswerToHEADKeepsTheLengthButSendsNoBody() {
        let response = Response(html: Array("<p>hello</p>".utf8))
        let written = text(response, includeBody: false)
        #expect(headerLines(written).contains("Content-Length: 12"))
        #expect(written.hasSuffix("\r\n\r\n"))
        #expect(!written.contains("<p>"))
        #expect(written.utf8.count == text(response).utf8.count - 12)
    }

    @Test(arguments: [true, false])
    func aNotModifiedHasNoLengthAndNoBody(includeBody: Bool) {
        let response = Response(status: .notModified, headers: Headers([("ETag", "\"v1\"")]), body: Array("stale".utf8))
        let written = text(response, includeBody: includeBody)
        #expect(written == "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nDate: \(date)\r\n\r\n")
    }

    @Test func aNoContentHasNoLengthAndNoBody() {
        let response = Response(status: Status(code: 204, reason: "No Content"), body: Array("x".utf8))
        #expect(text(response) == "HTTP/1.1 204 No Content\r\nDate: \(date)\r\n\r\n")
    }

    @Test(arguments: [
        (true, false, nil),
        (true, true, "keep-alive"),
        (false, false, "close"),
        (false, true, "close"),
    ] as [(Bool, Bool, String?)])
    func theConnectionFieldSaysWhetherTheConnectionStaysOpen(keepAlive: Bool, echoKeepAlive: Bool, connection: String?) {
        let written = text(Response(text: "x"), keepAlive: keepAlive, echoKeepAlive: echoKeepAlive)
        let fields = headerLines(written).filter { $0.lowercased().hasPrefix("connection:") }
        #expect(fields == (connection.map { ["Connection: \($0)"] } ?? []))
    }

    @Test func theDateIsWrittenAsGiven() {
        #expect(headerLines(text(Response(text: "x"))).filter { $0.hasPrefix("Date:") } == ["Date: \(date)"])
    }

    // MARK: HTTPDate

    @Test(arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (86_399, "Thu, 01 Jan 1970 23:59:59 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (951_868_800, "Wed, 01 Mar 2000 00:00:00 GMT"),
        (1_078_012_800, "Sun, 29 Feb 2004 00:00:00 GMT"),
        (1_709_164_800, "Thu, 29 Feb 2024 00:00:00 GMT"),
        (1_709_251_199, "Thu, 29 Feb 2024 23:59:59 GMT"),
        (1_764_338_700, "Fri, 28 Nov 2025 14:05:00 GMT"),
        (2_147_483_648, "Tue, 19 Jan 2038 03:14:08 GMT"),
        (4_102_444_800, "Fri, 01 Jan 2100 00:00:00 GMT"),
        (4_107_542_399, "Sun, 28 Feb 2100 23:59:59 GMT"),
        (4_107_542_400, "Mon, 01 Mar 2100 00:00:00 GMT"),
        (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
        (-86_400, "Wed, 31 Dec 1969 00:00:00 GMT"),
    ] as [(Int64, String)])
    func knownInstantsAreFormatted(seconds: Int64, expected: String) {
        #expect(HTTPDate.string(seconds) == expected)
    }

    /// Walks day by day from 1970 to 2200 with a plain calendar, so every month end, every leap
    /// day (and 2100's absence of one) and every weekday is checked.
    @Test func everyDayFrom1970To2200IsTheNextCalendarDay() {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }
        func length(_ month: Int, _ year: Int) -> Int {
            [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month]
        }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

        var (year, month, day, weekday) = (1970, 0, 1, 4)
        var leapDays = 0
        var mismatches: [String] = []
        for index in Int64(0)... {
            guard year < 2200 else { break }
            let expected = "\(weekdays[weekday]), \(two(day)) \(months[month]) \(year) 12:34:56 GMT"
            let actual = HTTPDate.string(index * 86_400 + 12 * 3_600 + 34 * 60 + 56)
            if actual != expected { mismatches.append("\(expected) ≠ \(actual)") }
            if month == 1 && day == 29 { leapDays += 1 }
            weekday = (weekday + 1) % 7
            day += 1
            if day > length(month, year) {
                day = 1
                month += 1
                if month == 12 { month = 0; year += 1 }
            }
        }
        #expect(mismatches.prefix(5) == [])
        // 1972 to 2196 in steps of four, less 2100.
        #expect(leapDays == 56)
    }
}
