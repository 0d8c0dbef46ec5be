import Glibc
import Testing

/// What Mailroom writes out (response heads, log lines, imported mail) carries nothing a
/// hostile input put there to forge a field, a line or a file.
@Suite struct HostileOutputTests {
    typealias Folder = ImportExportTests.Folder

    /// A sign-in whose `next` smuggles a CRLF, or a tab a browser removes to leave `//host`:
    /// the raw head has one Set-Cookie (the session's) and a Location on this site.
    @Test(arguments: ["/x%0d%0aSet-Cookie:%20injected=1", "/%09/evil.example/x", "/x%0aLocation:%20//evil.example"])
    func signingInWithAHostileNextSetsOneCookieAndStaysOnTheSite(next: String) throws {
        let folder = Folder()
        let database = ScratchDatabase("signin-next")
        let password = try folder.write("password", "door-key\n")
        let server = try RunningMailroom(database: database.path, extra: ["--password-file", password])
        defer { _ = try? server.stop() }

        let host = "127.0.0.1:\(server.port)"
        let page = try HTTPClient(port: server.port).send("GET", "/signin", headers: [("Connection", "close")])
        let token = try #require(ListHTML.formToken(in: page.text))
        let body = Array("csrf=\(token)&password=door-key&next=\(next)".utf8)
        let raw = HTTPClient(port: server.port)
        try raw.write(Array("""
            POST /signin HTTP/1.1\r
            Host: \(host)\r
            Origin: http://\(host)\r
            Content-Type: application/x-www-form-urlencoded\r
            Content-Length: \(body.count)\r
            Connection: close\r
            \r\n
            """.utf8) + body)
        let bytes = try raw.readUntilClosed()
        let headEnd = try #require(bytes.firstRange(of: Array("\r\n\r\n".utf8)))
        let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)

        #expect(lines.first == "HTTP/1.1 303 See Other", "\(head)")
        // A lone CR or LF inside the head would be a line of its own to some reader.
        #expect(lines.allSatisfy { !$0.contains("\r") && !$0.contains("\n") && !$0.contains("\t") }, "\(head)")
        let cookies = lines.filter { $0.lowercased().hasPrefix("set-cookie:") }
        #expect(cookies.count == 1, "\(head)")
        #expect(cookies.first?.contains("mailroom_session=") == true, "\(head)")
        #expect(!head.contains("injected"))
        let locations = lines.filter { $0.lowercased().hasPrefix("location:") }
        #expect(locations == ["Location: /mailboxes/inbox"], "\(head)")
    }
}
