import Testing

/// The checks every hostile case shares.
enum Expect {
    /// Exactly one response, whose status is one of `statuses`; an error status must come as a
    /// small page with a UTF-8 HTML Content-Type and a Content-Length that matches its body.
    static func answer(
        _ exchange: Exchange, _ statuses: Set<Int>, for what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected = statuses.sorted().map(String.init).joined(separator: " or ")
        guard let response = exchange.responses.first else {
            Issue.record("\(what): expected \(expected), got \(exchange.summary)", sourceLocation: sourceLocation)
            return
        }
        #expect(statuses.contains(response.status), "\(what): expected \(expected), got \(exchange.summary)",
                sourceLocation: sourceLocation)
        // A second response means the server read leftover bytes as another request.
        #expect(exchange.responses.count == 1, "\(what): one request, \(exchange.responses.count) responses: \(exchange.summary)",
                sourceLocation: sourceLocation)
        if response.status >= 400 { page(response, for: what, sourceLocation: sourceLocation) }
    }

    /// A small HTML page in UTF-8, its Content-Length true.
    static func page(_ response: RawResponse, for what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let type = response.header("Content-Type")?.lowercased() ?? ""
        #expect(type.hasPrefix("text/html") && type.replacingSpaces.contains("charset=utf-8"),
                "\(what): the \(response.status) page's Content-Type is \(response.header("Content-Type") ?? "missing"): \(response.summary)",
                sourceLocation: sourceLocation)
        #expect(response.header("Content-Length") == String(response.body.count),
                "\(what): Content-Length \(response.header("Content-Length") ?? "missing") for a \(response.body.count)-byte body",
                sourceLocation: sourceLocation)
        #expect(!response.body.isEmpty && response.body.count <= HostileServer.smallPageBytes,
                "\(what): the \(response.status) page is \(response.body.count) bytes", sourceLocation: sourceLocation)
    }
}

extension String {
    fileprivate var replacingSpaces: String { String(filter { $0 != " " }) }
}
