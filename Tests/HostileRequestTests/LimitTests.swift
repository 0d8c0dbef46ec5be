import Testing

/// Requests over a limit get that limit's status as a small page; HostileServer's limits are
/// 1 KiB of URL, 4 KiB of headers, 4 KiB of body and 2 s of silence.
@Suite struct LimitTests {
    static let limits = HostileServer.configuration
    /// 200 short fields, well under the byte limit: only their number is hostile.
    static let manyFields = (0..<200).map { "X-\($0): v" }

    static let cases: [HostileCase] = [
        HostileCase("a request target of 2,000 bytes (over the 1 KiB limit)",
                    RequestBytes.get("/mailboxes/inbox?pad=" + String(repeating: "a", count: 2_000)), [414]),
        HostileCase("a request target of 2,000 bytes written in 40 pieces",
                    RequestBytes.get("/mailboxes/inbox?pad=" + String(repeating: "a", count: 2_000)), [414], pieces: 40),
        HostileCase("a request target of 30,000 bytes (over libevent's own cap too)",
                    RequestBytes.get("/mailboxes/inbox?pad=" + String(repeating: "a", count: 30_000)), [414]),
        HostileCase("a 6,000-byte header field (over the 4 KiB limit)",
                    RequestBytes.get("/mailboxes/inbox", headers: [RequestBytes.host, "X-Pad: " + String(repeating: "a", count: 6_000), "Connection: close"]), [431]),
        HostileCase("a 30,000-byte header field (over libevent's own cap too)",
                    RequestBytes.get("/mailboxes/inbox", headers: [RequestBytes.host, "X-Pad: " + String(repeating: "a", count: 30_000), "Connection: close"]), [431]),
        HostileCase("200 header fields of a few bytes each",
                    RequestBytes.get("/mailboxes/inbox", headers: [RequestBytes.host] + manyFields + ["Connection: close"]), [431]),
        HostileCase("a 5,000-byte body (over the 4 KiB limit)",
                    RequestBytes.post(form(padTo: 5_000)), [413]),
        HostileCase("a 20,000-byte body (over libevent's own cap too)",
                    RequestBytes.post(form(padTo: 20_000)), [413]),
        HostileCase("a Content-Length of 1,000,000,000 with no body sent",
                    RequestBytes.post([], contentLength: "1000000000"), [413]),
        HostileCase("a 5,000-byte body in chunked transfer coding",
                    RequestBytes.post(RequestBytes.chunked(form(padTo: 5_000)), extra: ["Transfer-Encoding: chunked"]), [413]),
    ]

    @Test(arguments: cases)
    func aRequestOverALimitGetsItsStatusAsASmallPage(_ hostile: HostileCase) throws {
        try hostile.run()
    }

    @Test func theFieldCountCaseIsUnderTheByteLimitSoOnlyTheCountIsHostile() {
        // Counted as the server counts: name, value and four bytes for ": " and CRLF.
        let bytes = Self.manyFields.reduce(0) { $0 + $1.utf8.count - 2 + 4 }
        #expect(bytes < Self.limits.maxHeaderBytes / 2)
    }

    @Test func aRequestJustUnderEveryLimitIsServed() throws {
        let server = try HostileServer()
        let get = RequestBytes.get(
            "/mailboxes/inbox?pad=" + String(repeating: "a", count: Self.limits.maxURLBytes - 100),
            headers: [RequestBytes.host, "X-Pad: " + String(repeating: "a", count: Self.limits.maxHeaderBytes - 500),
                      "Connection: close"])
        let page = try server.exchange(get)
        #expect(page.responses.first?.status == 200, "\(page.summary)")

        let post = try server.exchange(RequestBytes.post(Self.form(padTo: Self.limits.maxBodyBytes - 50)))
        #expect(post.responses.first?.status == 303, "\(post.summary)")
        #expect(server.app.snapshot.messages.first?.subject == "Hostile", "a post under the limits must be applied")
    }

    /// The add form padded with an ignored field to `size` bytes: applied, it would add a message.
    static func form(padTo size: Int) -> [UInt8] {
        let start = Array((HostileServer.addForm + "&pad=").utf8)
        return start + Array(repeating: UInt8(ascii: "a"), count: max(0, size - start.count))
    }
}
