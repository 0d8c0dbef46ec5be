import Testing

/// Request lines and header sections that are not HTTP get a 400 page, not silence or a crash.
@Suite struct MalformedRequestTests {
    static let garbage: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03, 0xFF, 0xFE, 0x00,
                                   0x80, 0x7F, 0x20, 0x0D, 0x0A, 0xC3, 0x28, 0x0D, 0x0A, 0x0D, 0x0A]

    static let cases: [HostileCase] = [
        HostileCase("a request line of only a method", Array("GET\r\n\r\n".utf8), [400]),
        HostileCase("HTTP/9.9", RequestBytes.make("GET", Array("/".utf8), version: "HTTP/9.9"), [400, 505]),
        HostileCase("garbage bytes ending in blank lines", garbage, [400]),
        HostileCase("a lone blank line", Array("\r\n\r\n".utf8), [400]),
        // Beyond the brief: other shapes of a broken request line or header.
        HostileCase("a request line without a version (HTTP/0.9)", Array("GET /\r\n\r\n".utf8), [400]),
        HostileCase("a version that is not HTTP", RequestBytes.make("GET", Array("/".utf8), version: "SPDY/3"), [400]),
        HostileCase("a header line without a colon",
                    RequestBytes.get("/mailboxes/inbox", headers: [RequestBytes.host, "No colon here", "Connection: close"]), [400]),
    ]

    @Test(arguments: cases)
    func aMalformedRequestGetsA400Page(_ hostile: HostileCase) throws {
        try hostile.run()
    }
}
