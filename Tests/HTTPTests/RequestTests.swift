import HTTP
import Testing

/// Splitting a request target, and reading a posted form.
struct RequestTests {
    @Test(arguments: [
        ("/", "/", []),
        ("/mailboxes/inbox", "/mailboxes/inbox", []),
        ("/mailboxes/inbox?", "/mailboxes/inbox", []),
        ("/mailboxes/inbox?mode=active&selected=1&selected=3",
         "/mailboxes/inbox", [["mode", "active"], ["selected", "1"], ["selected", "3"]]),
        ("/a%20b", "/a b", []),
        ("/a+b?q=a+b", "/a+b", [["q", "a b"]]),
        ("/caf%C3%A9?x=%C3%A9", "/café", [["x", "é"]]),
        ("/x?a=1?b=2", "/x", [["a", "1?b=2"]]),
        ("/messages/12?keep=unread", "/messages/12", [["keep", "unread"]]),
        ("//double", "//double", []),
        ("/%2e%2e/etc/passwd", "/../etc/passwd", []),
        // The query starts at the first "?" byte, even where a mark after it makes one character.
        ("/x?\u{301}a=1", "/x", [["\u{301}a", "1"]]),
        ("/x\u{600}?a=1", "/x\u{600}", [["a", "1"]]),
        // A fragment is cut off; an escaped "#" is part of the path or the value.
        ("/messages/12#top", "/messages/12", []),
        ("/x?a=1#b=2", "/x", [["a", "1"]]),
        ("/x#?a=1", "/x", []),
        ("/a%23b?q=%23", "/a#b", [["q", "#"]]),
    ] as [(String, String, [[String]])])
    func splitsAndDecodesPathAndQuery(target: String, path: String, query: [[String]]) throws {
        let request = try Request(method: .get, target: target)
        #expect(request.path == path)
        #expect(request.query.fields.map { [$0.name, $0.value] } == query)
    }

    @Test func theTargetKeptIsTheOneBeforeAFragment() throws {
        #expect(try Request(method: .get, target: "/messages/12?keep=unread#top").target == "/messages/12?keep=unread")
        #expect(try Request(method: .get, target: "/messages/12").target == "/messages/12")
    }

    @Test(arguments: ["", "*", "mailboxes/inbox", "http://example.com/", "?a=1", " /"])
    func refusesATargetThatDoesNotStartWithASlash(target: String) {
        let error = #expect(throws: HTTPError.self) { try Request(method: .get, target: target) }
        #expect(error?.status == .badRequest)
        #expect(error?.status.code == 400)
    }

    @Test(arguments: ["/%", "/%4", "/a%zz", "/%FF", "/%C3", "/a%00b", "/%00", "/%CC%81", "/%CC%81?a=1"])
    func refusesABadPathWithA400(target: String) {
        let error = #expect(throws: HTTPError.self) { try Request(method: .get, target: target) }
        #expect(error?.status == .badRequest)
        #expect(error?.message.isEmpty == false)
    }

    @Test(arguments: ["/?a=%", "/?a=%zz", "/?a=%FF", "/?a=%00", "/x?%4=1"])
    func refusesAMalformedQueryWithA400(target: String) {
        let error = #expect(throws: HTTPError.self) { try Request(method: .get, target: target) }
        #expect(error?.status == .badRequest)
    }

    @Test func keepsMethodHeadersAndBody() throws {
        let request = try Request(
            method: .post, target: "/x", headers: Headers([("Host", "localhost")]), body: Array("a=1".utf8))
        #expect(request.method == .post)
        #expect(request.headers["host"] == "localhost")
        #expect(request.body == Array("a=1".utf8))
    }

    // MARK: Forms

    private func post(contentType: String?, body: String) -> Request {
        var headers = Headers()
        if let contentType { headers.add("Content-Type", contentType) }
        return Request(method: .post, path: "/mailboxes/inbox", headers: headers, body: Array(body.utf8))
    }

    @Test(arguments: [
        "application/x-www-form-urlencoded",
        "application/x-www-form-urlencoded; charset=UTF-8",
        "application/x-www-form-urlencoded;charset=utf-8",
        "Application/X-WWW-Form-URLEncoded",
        "APPLICATION/X-WWW-FORM-URLENCODED; Charset=UTF-8",
        " application/x-www-form-urlencoded ",
    ])
    func readsAFormSentWithTheFormContentType(contentType: String) throws {
        let form = try post(contentType: contentType, body: "action=add&subject=Hi+there").form()
        #expect(form["action"] == "add")
        #expect(form["subject"] == "Hi there")
    }

    @Test func findsTheContentTypeWhateverTheCaseOfItsName() throws {
        var request = post(contentType: nil, body: "a=1")
        request.headers.add("content-type", "application/x-www-form-urlencoded")
        #expect(try request.form()["a"] == "1")
    }

    @Test(arguments: [
        String?.none,
        "",
        "text/plain",
        "multipart/form-data; boundary=x",
        "application/json",
        "application/x-www-form-urlencodedx",
        "application/x-www-form",
    ])
    func refusesAnyOtherContentTypeWith415(contentType: String?) {
        let error = #expect(throws: HTTPError.self) { try post(contentType: contentType, body: "a=1").form() }
        #expect(error?.status == .unsupportedMediaType)
        #expect(error?.status.code == 415)
    }

    @Test(arguments: ["a=%", "subject=%zz", "a=%FF", "a=%00"])
    func refusesAMalformedBodyWith400(body: String) {
        let error = #expect(throws: HTTPError.self) {
            try post(contentType: "application/x-www-form-urlencoded", body: body).form()
        }
        #expect(error?.status == .badRequest)
    }

    @Test func anEmptyFormBodyIsAnEmptyForm() throws {
        #expect(try post(contentType: "application/x-www-form-urlencoded", body: "").form().isEmpty)
    }

    // MARK: Methods

    @Test(arguments: [
        ("GET", Method.get), ("HEAD", .head), ("POST", .post), ("PUT", .put), ("DELETE", .delete),
        ("OPTIONS", .options), ("PATCH", .patch), ("TRACE", .trace), ("CONNECT", .connect),
        ("get", .other("get")), ("PROPFIND", .other("PROPFIND")),
    ])
    func methodsAreKnownByTheirExactName(name: String, method: Method) {
        #expect(Method(name) == method)
        #expect(method.name == name)
    }
}
