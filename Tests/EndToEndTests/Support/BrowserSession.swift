import Testing

/// One browser tab without JavaScript: it follows redirects, remembers where it is and what the
/// last page said, and submits forms the way a browser encodes them.
final class BrowserSession {
    let client: HTTPClient
    /// The path and query of the page shown now.
    private(set) var currentURL = "/"
    /// The final response of the last navigation (after redirects).
    private(set) var response = HTTPResponse(status: 0, reason: "", headers: [], body: [])
    /// The redirects the last navigation went through, in order.
    private(set) var redirects: [HTTPResponse] = []

    /// A tab on the in-process server, which it keeps running for as long as the tab exists.
    init(server: TestServer) {
        self.client = server.client()
    }

    /// A tab on any server listening on 127.0.0.1.
    init(port: Int) {
        self.client = HTTPClient(port: port)
    }

    var status: Int { response.status }
    var page: Page { Page(html: response.text) }

    /// The values of one field in the current URL's query, decoded.
    func queryValues(_ name: String) -> [String] { URLQuery.values(name, in: currentURL) }

    /// The ids that the id list `name` (`selected` or `undo`) of the current URL names, ascending;
    /// empty when there is none. The list must be one field, written compactly, as the app writes it.
    func queryIDs(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> [Int] {
        let values = queryValues(name)
        guard !values.isEmpty else { return [] }
        #expect(values.count == 1, "\(name) should be one field in \(currentURL)", sourceLocation: sourceLocation)
        #expect(!currentURL.contains("%2C"), "the commas of \(currentURL) are escaped", sourceLocation: sourceLocation)
        var ids: [Int] = []
        for value in values {
            guard let decoded = URLQuery.ids(inList: value) else {
                Issue.record("\(name)=\(value) is not an id list in \(currentURL)", sourceLocation: sourceLocation)
                continue
            }
            #expect(URLQuery.idList(decoded) == value, "\(name)=\(value) is not compact", sourceLocation: sourceLocation)
            ids += decoded
        }
        return ids.sorted()
    }

    /// Navigates to a path, like typing it or following a link.
    @discardableResult
    func get(_ target: String) throws -> Page {
        redirects = []
        return try navigate("GET", target, body: nil)
    }

    /// Reloads the current page (a GET, never a re-post: the URL after a 303 is a GET target).
    @discardableResult
    func reload() throws -> Page { try get(currentURL) }

    /// Follows the link on the current page whose element has `id`.
    @discardableResult
    func follow(linkID: String) throws -> Page {
        guard let href = page.element(id: linkID)?["href"] else {
            throw TestFailure("no link with id \(linkID) on \(currentURL)")
        }
        return try get(href)
    }

    /// Posts form fields, `application/x-www-form-urlencoded`, and follows the answer's redirects.
    @discardableResult
    func post(_ target: String, fields: [(String, String)]) throws -> Page {
        redirects = []
        return try navigate("POST", target, body: Array(URLQuery.encode(fields).utf8))
    }

    /// Submits a form from the current page, optionally by pressing one of its buttons.
    @discardableResult
    func submit(_ form: HTMLForm, pressing button: (String, String)? = nil) throws -> Page {
        let fields = try form.submission(pressing: button)
        let target = form.action.isEmpty ? currentURL : form.action
        guard form.method == "POST" else {
            let query = URLQuery.encode(fields)
            return try get(query.isEmpty ? target : target + "?" + query)
        }
        return try post(target, fields: fields)
    }

    private func navigate(_ method: String, _ target: String, body: [UInt8]?) throws -> Page {
        // A browser says where a navigation comes from; Mailroom marks a message read only then.
        var headers: [(String, String)] = [
            ("Accept", "text/html"), ("User-Agent", "MailroomEndToEndTests"), ("Sec-Fetch-Site", "same-origin"),
        ]
        if let body, !body.isEmpty || method == "POST" {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            // Browsers send Origin with every form post.
            headers.append(("Origin", "http://127.0.0.1:\(client.port)"))
        }
        var answer = try client.send(method, target, headers: headers, body: body ?? [])
        var location = target
        while answer.isRedirect {
            guard redirects.count < 10 else { throw TestFailure("more than 10 redirects from \(target)") }
            guard let next = answer.header("Location") else { throw TestFailure("\(answer.status) without Location") }
            redirects.append(answer)
            location = Self.pathAndQuery(of: next, port: client.port)
            answer = try client.send("GET", location, headers: [("Accept", "text/html"), ("Sec-Fetch-Site", "same-origin")])
        }
        currentURL = location
        response = answer
        return page
    }

    /// Reduces `http://127.0.0.1:PORT/x` to `/x`; refuses to leave the test server.
    private static func pathAndQuery(of location: String, port: Int) -> String {
        let origin = "http://127.0.0.1:\(port)"
        if location.hasPrefix(origin) { return String(location.dropFirst(origin.count)) }
        precondition(location.hasPrefix("/"), "redirect leaves the test server: \(location)")
        return location
    }
}

extension TestServer {
    /// A new browser tab on this server, with its own connection.
    func browser() -> BrowserSession { BrowserSession(server: self) }
}
