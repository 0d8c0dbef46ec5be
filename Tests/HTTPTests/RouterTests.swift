import HTTP
import Testing

/// The route table: which pattern a path finds, what its captures hold, and the `Allow` its
/// methods make.
struct RouterTests {
    typealias Table = Router<String, Int>

    static func answer(_ text: String) -> Table.Handler {
        { context, _, parameters in Response(status: .ok, body: Array("\(context) \(text) \(parameters["id"])".utf8)) }
    }

    let table: Table = {
        var table = Table()
        table.add("/", info: 0, [.get: answer("root")])
        table.add("/messages/read", info: 1, [.post: answer("read")])
        table.add("/messages/:id", info: 2, [.get: answer("show"), .post: answer("change")])
        table.add("/messages/:id/parts/:part", info: 3, [.get: answer("part")])
        table.add("/things", info: 4, [.put: answer("put"), .delete: answer("delete")])
        return table
    }()

    func body(_ method: Method, _ path: String) throws -> String? {
        guard let match = table.match(path), let handler = match.route.handler(for: method) else { return nil }
        return String(decoding: try handler("app", Request(method: method, target: path), match.parameters).body, as: UTF8.self)
    }

    @Test func aLiteralAheadOfACaptureWinsAndTheCaptureTakesTheRest() throws {
        #expect(table.match("/messages/read")?.route.info == 1)
        #expect(table.match("/messages/42")?.route.info == 2)
        #expect(table.match("/messages/42")?.parameters["id"] == "42")
        #expect(try body(.post, "/messages/42") == "app change 42")
    }

    @Test func tableOrderDecidesBetweenACaptureFirstAndALiteralFirstPattern() {
        // The router keeps patterns that start with a literal apart from those that start with a
        // capture; between the two, the one added first still wins.
        var table = Table()
        table.add("/:box/list", info: 1, [.get: Self.answer("captured")])
        table.add("/inbox/list", info: 2, [.get: Self.answer("literal")])
        table.add("/inbox/:view", info: 3, [.get: Self.answer("view")])
        table.add("/:box/:view/more", info: 4, [.get: Self.answer("more")])
        table.add("/inbox/:view/more", info: 5, [.get: Self.answer("inbox more")])
        #expect(table.match("/inbox/list")?.route.info == 1)
        #expect(table.match("/inbox/list")?.parameters["box"] == "inbox")
        #expect(table.match("/inbox/other")?.route.info == 3)
        #expect(table.match("/archive/list")?.route.info == 1)
        #expect(table.match("/inbox/x/more")?.route.info == 4)
        #expect(table.match("/archive/other") == nil)
    }

    @Test func segmentsCompareAsBytesAndCapturesKeepTheirText() throws {
        let match = try #require(table.match("/messages/été"))
        #expect(match.route.info == 2)
        #expect(match.parameters["id"] == "été")
        // A literal differs from a longer or shorter segment that starts the same way.
        #expect(table.match("/messages/reader")?.route.info == 2)
        #expect(table.match("/messages/rea")?.route.info == 2)
        #expect(table.match("/thing") == nil)
        #expect(table.match("/thingsx") == nil)
    }

    @Test func capturesAreNamedAndNeverEmpty() throws {
        let match = try #require(table.match("/messages/7/parts/2"))
        #expect(match.parameters["id"] == "7")
        #expect(match.parameters["part"] == "2")
        #expect(table.match("/messages/") == nil)
        #expect(table.match("/messages//parts/2") == nil)
    }

    @Test(arguments: ["/nowhere", "/messages", "/messages/1/extra", "/messages/1/parts", "/things/1", "//", ""])
    func aPathNoPatternMatchesIsNotFound(path: String) {
        #expect(table.match(path) == nil)
    }

    @Test func getAnswersHeadAndAllowSaysBoth() throws {
        #expect(try body(.head, "/") == "app root ")
        #expect(table.match("/")?.route.allow == "GET, HEAD")
        #expect(table.match("/messages/1")?.route.allow == "GET, HEAD, POST")
        #expect(table.match("/messages/read")?.route.allow == "POST")
        #expect(table.match("/things")?.route.allow == "PUT, DELETE")
    }

    @Test func aMethodTheRouteDoesNotTakeIsA405WithItsAllow() throws {
        let route = try #require(table.match("/messages/read")?.route)
        #expect(route.handler(for: .get) == nil)
        let refusal = route.methodNotAllowed()
        #expect(refusal.status.code == 405)
        #expect(refusal.headers["Allow"] == "POST")
        #expect(try body(.delete, "/things") == "app delete ")
        #expect(try body(.get, "/things") == nil)
    }
}
