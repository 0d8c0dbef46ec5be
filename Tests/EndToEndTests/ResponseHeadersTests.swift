import Testing
import MailroomCore

/// Every response says what it is and how long it is (DESIGN.md §5), checked on the wire.
@Suite struct ResponseHeadersTests {
    /// One request a test sends, and the status it should get.
    struct Probe: Sendable, CustomTestStringConvertible {
        let method: String
        let target: String
        var form: String? = nil
        let status: Int

        var testDescription: String { "\(method) \(target)\(form.map { " [\($0)]" } ?? "") → \(status)" }
    }

    static let probes: [Probe] = [
        Probe(method: "GET", target: "/", status: 302),
        Probe(method: "GET", target: "/mailboxes/inbox", status: 200),
        Probe(method: "GET", target: "/mailboxes/inbox?mode=active&selected=1", status: 200),
        Probe(method: "GET", target: "/mailboxes/inbox?mode=sideways", status: 400),
        Probe(method: "GET", target: "/messages/1", status: 200),
        Probe(method: "GET", target: "/messages/99", status: 404),
        Probe(method: "GET", target: "/style.css", status: 200),
        Probe(method: "GET", target: "/no/such/page", status: 404),
        Probe(method: "PUT", target: "/mailboxes/inbox", status: 405),
        Probe(method: "DELETE", target: "/style.css", status: 405),
        Probe(method: "POST", target: "/mailboxes/inbox", form: "action=edit", status: 303),
        Probe(method: "POST", target: "/mailboxes/inbox", form: "action=add&subject=", status: 422),
        Probe(method: "POST", target: "/mailboxes/inbox", form: "action=teleport", status: 400),
        Probe(method: "POST", target: "/messages/1", form: "action=flag", status: 303),
        Probe(method: "HEAD", target: "/mailboxes/inbox", status: 200),
        Probe(method: "HEAD", target: "/style.css", status: 200),
    ]

    @Test(arguments: probes)
    func everyResponseHasAContentTypeWithCharsetAndOneContentLength(probe: Probe) throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let client = server.client()
        let body = Array((probe.form ?? "").utf8)
        let headers = probe.form == nil ? [] : [("Content-Type", "application/x-www-form-urlencoded")]
        let response = try client.send(probe.method, probe.target, headers: headers, body: body)

        #expect(response.status == probe.status)
        let types = response.headerValues("Content-Type")
        #expect(types.count == 1, "Content-Type: \(types)")
        if let type = types.first, type.hasPrefix("text/") {
            #expect(type.hasSuffix("; charset=utf-8"), "Content-Type: \(type)")
        }
        let lengths = response.headerValues("Content-Length")
        #expect(lengths.count == 1, "Content-Length: \(lengths)")
        if probe.method != "HEAD" {
            #expect(lengths.first == String(response.body.count))
        }
    }

    @Test(arguments: ["/mailboxes/inbox", "/style.css", "/messages/1", "/no/such/page"])
    func headHasTheContentLengthOfGetButNoBody(path: String) throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        // GET first: opening a message marks it read, and HEAD should then describe that same page.
        let get = try server.client().send("GET", path)

        let client = server.client()
        try client.write(Array("HEAD \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n".utf8))
        let raw = try client.readUntilClosed()
        let head = try #require(raw.firstRange(of: Array("\r\n\r\n".utf8)), "no end of headers in \(raw.count) bytes")
        let headers = String(decoding: raw[..<head.lowerBound], as: UTF8.self)
        #expect(raw.count == head.upperBound, "HEAD carried \(raw.count - head.upperBound) body bytes")
        #expect(headers.hasPrefix("HTTP/1.1 \(get.status) "))
        #expect(headers.contains("\r\nContent-Length: \(get.body.count)\r\n"))
        #expect(get.body.count > 0)
    }

    @Test func headOnAMessageDoesNotMarkItRead() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let response = try server.client().send("HEAD", "/messages/1")
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(server.mailbox.message(.init(1))?.isUnread == true)
    }

    @Test func theStylesheetIsCSSInUTF8() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let response = try server.client().send("GET", "/style.css")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/css; charset=utf-8")
        #expect(!response.body.isEmpty)
    }
}
