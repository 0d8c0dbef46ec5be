import Testing

/// A body whose length is missing, malformed or ambiguous is refused and changes nothing:
/// a server and a proxy that framed it differently could be made to see two requests.
@Suite struct FramingTests {
    static let form = Array(HostileServer.addForm.utf8)
    static let length = String(form.count)
    static let chunkedForm = RequestBytes.chunked(form)

    static let cases: [HostileCase] = [
        HostileCase("Content-Length: abc", RequestBytes.post(form, contentLength: "abc"), [400]),
        HostileCase("Content-Length: -1", RequestBytes.post(form, contentLength: "-1"), [400]),
        HostileCase("two different Content-Length fields",
                    RequestBytes.post(form, contentLength: "5", extra: ["Content-Length: \(length)"]), [400]),
        HostileCase("two equal Content-Length fields",
                    RequestBytes.post(form, contentLength: length, extra: ["Content-Length: \(length)"]), [400]),
        HostileCase("Content-Length with Transfer-Encoding: chunked (lengths agree)",
                    RequestBytes.post(chunkedForm, contentLength: String(chunkedForm.count), extra: ["Transfer-Encoding: chunked"]), [400]),
        HostileCase("Content-Length: 4 with Transfer-Encoding: chunked",
                    RequestBytes.post(chunkedForm, contentLength: "4", extra: ["Transfer-Encoding: chunked"]), [400]),
        HostileCase("a POST without Content-Length or Transfer-Encoding", RequestBytes.post(form, contentLength: nil), [411]),
        // Beyond the brief: more spellings of a bad length.
        HostileCase("Content-Length: +37 (a sign is not a digit)", RequestBytes.post(form, contentLength: "+\(length)"), [400]),
        HostileCase("an empty Content-Length", RequestBytes.post(form, contentLength: ""), [400]),
        HostileCase("one Content-Length field listing the length twice",
                    RequestBytes.post(form, contentLength: "\(length), \(length)"), [400]),
        HostileCase("a chunk size that is not hexadecimal",
                    RequestBytes.post(Array("zz\r\n".utf8) + form + Array("\r\n0\r\n\r\n".utf8), extra: ["Transfer-Encoding: chunked"]), [400]),
        HostileCase("a chunk-size line ended by a bare LF (RFC 9112 7.1)",
                    RequestBytes.post(Array(String(form.count, radix: 16).utf8) + [10] + form + Array("\r\n0\r\n\r\n".utf8),
                                      extra: ["Transfer-Encoding: chunked"]), [400]),
    ]

    @Test(arguments: cases)
    func aBadlyFramedBodyIsRefusedAndChangesNothing(_ hostile: HostileCase) throws {
        try hostile.run()
    }

    @Test func theSameFormProperlyFramedIsApplied() throws {
        // Without this, "nothing changed" above could mean the form itself was never valid.
        let server = try HostileServer()
        let exchange = try server.exchange(RequestBytes.post(Self.form))
        #expect(exchange.responses.first?.status == 303, "\(exchange.summary)")
        #expect(server.app.snapshot.messages.first?.subject == "Hostile")
    }

    @Test func theSameFormInChunksIsApplied() throws {
        let server = try HostileServer()
        let exchange = try server.exchange(RequestBytes.post(Self.chunkedForm, extra: ["Transfer-Encoding: chunked"]))
        #expect(exchange.responses.first?.status == 303, "\(exchange.summary)")
        #expect(server.app.snapshot.messages.first?.subject == "Hostile")
    }
}
