import HTTP
import Testing

/// No header field can end its line early: a response given one it cannot write becomes a 500.
struct HeaderSafetyTests {
    static let hostileValues = [
        "/x\r\nSet-Cookie: injected=1", "/x\nSet-Cookie: injected=1", "/x\rSet-Cookie: injected=1",
        "a\u{0}b", "\r\n\r\n<script>alert(1)</script>", "trailing\r\n",
    ]

    static let hostileNames = ["", "X Y", "X:Y", "X-A\r\nSet-Cookie", "Zürich", "X\u{0}", "(comment)", "X\t"]

    @Test(arguments: hostileValues)
    func aValueWithALineBreakOrNULIsNeverStored(value: String) {
        var headers = Headers([("Content-Type", "text/plain")])
        headers.add("X-Note", value)
        #expect(headers["X-Note"] == nil)
        #expect(headers.refusedAField)
        #expect(headers.map(\.name) == ["Content-Type"])
    }

    @Test(arguments: hostileNames)
    func aNameThatIsNotATokenIsNeverStored(name: String) {
        let headers = Headers([(name, "1"), ("Vary", "Cookie")])
        #expect(headers.map(\.name) == ["Vary"])
        #expect(headers.refusedAField)
    }

    @Test func setWithAnUnsafeValueRemovesTheOldValueAndAddsNothing() {
        var headers = Headers([("Location", "/mailboxes/inbox")])
        headers.set("location", "/x\r\nSet-Cookie: a=1")
        #expect(headers["Location"] == nil)
        #expect(headers.refusedAField)
    }

    @Test(arguments: ["text/html; charset=utf-8", "a\tb", "caf\u{e9}", "\"quoted\", W/\"etag\"", ""])
    func ordinaryValuesAreKept(value: String) {
        let headers = Headers([("X-Value", value)])
        #expect(headers["X-Value"] == value)
        #expect(!headers.refusedAField)
    }

    @Test(arguments: hostileValues)
    func aRedirectToAnUnsafeLocationWritesNoSecondField(location: String) {
        let response = Response.seeOther(location)
        let head = String(decoding: response.head(keepAlive: true, date: "D"), as: UTF8.self)
        #expect(response.status.code == 500)
        #expect(!head.contains("injected"))
        #expect(!head.contains("Location"))
        #expect(head.split(separator: "\r\n", omittingEmptySubsequences: false).allSatisfy { !$0.contains("\n") && !$0.contains("\r") })
    }

    @Test func aResponseGivenAnUnsafeFieldSendsNothingOfItself() {
        var response = Response(
            status: .ok,
            headers: Headers([("Content-Type", "text/html; charset=utf-8"), ("Content-Disposition", "attachment")]),
            body: Array("<p>secret</p>".utf8))
        response.headers.add("Set-Cookie", "a=1\r\nX-Injected: 1")
        let bytes = String(decoding: response.serialized(keepAlive: false, includeBody: true, date: "D"), as: UTF8.self)
        #expect(response.isRefusal)
        #expect(bytes.hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
        #expect(!bytes.contains("secret") && !bytes.contains("Set-Cookie") && !bytes.contains("X-Injected"))
        #expect(bytes.contains("X-Content-Type-Options: nosniff\r\n"))
    }

    @Test func aRefusalStaysARefusalWhateverIsChangedLater() {
        var response = Response.seeOther("/x\r\nSet-Cookie: a=1")
        response.status = .ok
        #expect(response.status.code == 500)
        response.headers.add("Set-Cookie", "session=1")
        response.body = Array("late".utf8)
        #expect(response.isRefusal)
        #expect(response.headers["Set-Cookie"] == nil)
        #expect(response.body == Response.refusal.body)
    }

    @Test func aStreamHeadCannotCarryAnUnsafeFieldEither() {
        var response = Response(status: .ok, headers: Headers([("Content-Type", "text/event-stream")]))
        response.headers.set("X-Last", "1\n\ndata: forged")
        let head = String(decoding: response.streamHead(date: "D"), as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 500 "))
        #expect(!head.contains("forged"))
    }

    @Test func aReasonPhraseWithALineBreakIsRefused() {
        let response = Response(status: Status(code: 200, reason: "OK\r\nSet-Cookie: a=1"), text: "hi")
        #expect(response.isRefusal)
        #expect(!String(decoding: response.head(keepAlive: true, date: "D"), as: UTF8.self).contains("Set-Cookie"))
    }

    @Test func ordinaryResponsesAreUntouched() {
        var response = Response.seeOther("/mailboxes/inbox?mode=active&selected=1")
        response.headers.add("Set-Cookie", "mailroom_session=abc; HttpOnly; SameSite=Strict")
        #expect(!response.isRefusal)
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/mailboxes/inbox?mode=active&selected=1")
    }
}
