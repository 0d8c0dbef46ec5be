import Testing

/// Methods the address does not take are a 405 with `Allow`; a Host that is missing or not
/// Mailroom's is refused.
@Suite struct MethodAndHostTests {
    static let methodCases: [HostileCase] = [
        HostileCase("BREW / (an unknown method)", RequestBytes.make("BREW", Array("/".utf8)), [405], requiredHeader: "Allow"),
        HostileCase("BREW /mailboxes/inbox (an unknown method)",
                    RequestBytes.make("BREW", Array("/mailboxes/inbox".utf8)), [405], requiredHeader: "Allow"),
        HostileCase("DELETE /mailboxes/inbox", RequestBytes.make("DELETE", Array("/mailboxes/inbox".utf8)), [405],
                    requiredHeader: "Allow"),
        // Beyond the brief: another known method, on a static file.
        HostileCase("PUT /style.css", RequestBytes.make("PUT", Array("/style.css".utf8),
                    headers: [RequestBytes.host, "Content-Length: 0", "Connection: close"]), [405], requiredHeader: "Allow"),
    ]

    static let hostCases: [HostileCase] = [
        HostileCase("HTTP/1.1 without Host",
                    RequestBytes.make("GET", Array("/mailboxes/inbox".utf8), headers: ["Connection: close"]), [400]),
        HostileCase("a foreign Host", RequestBytes.get("/mailboxes/inbox", headers: ["Host: evil.example", "Connection: close"]), [403]),
        // Beyond the brief: a Host that is ours next to one that is not, and an empty one.
        HostileCase("two Host fields, ours first",
                    RequestBytes.get("/mailboxes/inbox", headers: [RequestBytes.host, "Host: evil.example", "Connection: close"]), [400]),
        HostileCase("an empty Host", RequestBytes.get("/mailboxes/inbox", headers: ["Host:", "Connection: close"]), [400]),
    ]

    @Test(arguments: methodCases)
    func aMethodTheAddressDoesNotTakeIsA405WithAllow(_ hostile: HostileCase) throws {
        try hostile.run()
    }

    @Test(arguments: hostCases)
    func aMissingOrForeignHostIsRefused(_ hostile: HostileCase) throws {
        try hostile.run()
    }

    @Test func deleteNamesTheMethodsTheInboxTakes() throws {
        let server = try HostileServer()
        let exchange = try server.exchange(RequestBytes.make("DELETE", Array("/mailboxes/inbox".utf8)))
        let allow = exchange.responses.first?.header("Allow") ?? ""
        #expect(allow.contains("GET") && allow.contains("POST") && !allow.contains("DELETE"), "\(exchange.summary)")
    }

    /// HTTP/1.0 does not require Host, and a DNS-rebinding page cannot omit it (browsers always
    /// send it), so the page is served.
    @Test func http10WithoutHostIsAnsweredAndTheConnectionClosed() throws {
        let server = try HostileServer()
        let exchange = try server.exchange(
            RequestBytes.make("GET", Array("/mailboxes/inbox".utf8), version: "HTTP/1.0", headers: []))
        Expect.answer(exchange, [200], for: "HTTP/1.0 without Host")
        #expect(exchange.responses.first?.header("Content-Type")?.hasPrefix("text/html") == true, "\(exchange.summary)")
        #expect(exchange.closed, "an HTTP/1.0 request without keep-alive must end with the connection closed")
        server.expectStillServesInbox(after: "HTTP/1.0 without Host")
    }

    /// HTTP/1.1 does require it (RFC 9112 3.2).
    @Test func http11WithoutHostIsRefused() throws {
        let server = try HostileServer()
        let exchange = try server.exchange(
            RequestBytes.make("GET", Array("/mailboxes/inbox".utf8), version: "HTTP/1.1", headers: []))
        Expect.answer(exchange, [400], for: "HTTP/1.1 without Host")
        server.expectStillServesInbox(after: "HTTP/1.1 without Host")
    }
}
