import Testing

/// Bad percent-escapes, invalid UTF-8 and NUL bytes are a 400, wherever they appear.
@Suite struct EncodingTests {
    static func get(_ target: [UInt8]) -> [UInt8] { RequestBytes.make("GET", target) }
    static func get(_ target: String) -> [UInt8] { get(Array(target.utf8)) }
    static func post(_ form: [UInt8]) -> [UInt8] { RequestBytes.post(form) }
    static func post(_ form: String) -> [UInt8] { post(Array(form.utf8)) }
    static let addForm = HostileServer.addForm

    static let pathCases: [HostileCase] = [
        HostileCase("path: a bad escape %zz", get("/mailboxes/inbox%zz"), [400]),
        HostileCase("path: a cut-off escape at the end", get("/mailboxes/inbox%"), [400]),
        HostileCase("path: %FF (invalid UTF-8)", get("/mailboxes/%FF"), [400]),
        HostileCase("path: %C3 (a cut-off UTF-8 sequence)", get("/mailboxes/%C3"), [400]),
        HostileCase("path: %C0%AF (an overlong slash)", get("/mailboxes/%C0%AFinbox"), [400]),
        HostileCase("path: %00", get("/mailboxes/inbox%00"), [400]),
        HostileCase("path: a raw 0xFF byte", get(Array("/mailboxes/".utf8) + [0xFF]), [400]),
        HostileCase("path: a raw NUL byte", get(Array("/mailboxes/inbox".utf8) + [0x00]), [400]),
    ]

    // `x` is a field the list page ignores, so only the encoding can make these a 400.
    static let queryCases: [HostileCase] = [
        HostileCase("query: a bad escape %zz in a value", get("/mailboxes/inbox?x=%zz"), [400]),
        HostileCase("query: a bad escape %zz in a name", get("/mailboxes/inbox?%zz=1"), [400]),
        HostileCase("query: a cut-off escape at the end", get("/mailboxes/inbox?x=%4"), [400]),
        HostileCase("query: %FF (invalid UTF-8)", get("/mailboxes/inbox?x=%FF"), [400]),
        HostileCase("query: %00", get("/mailboxes/inbox?x=%00"), [400]),
        HostileCase("query: a raw 0xFF byte", get(Array("/mailboxes/inbox?x=".utf8) + [0xFF]), [400]),
        HostileCase("query: a raw NUL byte", get(Array("/mailboxes/inbox?x=".utf8) + [0x00]), [400]),
    ]

    static let formCases: [HostileCase] = [
        HostileCase("form: a bad escape %zz in a value", post(addForm + "&body=%zz"), [400]),
        HostileCase("form: a bad escape %zz in a name", post(addForm + "&%zz=1"), [400]),
        HostileCase("form: %FF (invalid UTF-8)", post(addForm + "&body=%FF"), [400]),
        HostileCase("form: %00", post(addForm + "&body=a%00b"), [400]),
        HostileCase("form: a raw 0xFF byte", post(Array((addForm + "&body=").utf8) + [0xFF]), [400]),
        HostileCase("form: a raw NUL byte", post(Array((addForm + "&body=a").utf8) + [0x00, UInt8(ascii: "b")]), [400]),
    ]

    @Test(arguments: pathCases)
    func aBadPathIsA400Page(_ hostile: HostileCase) throws {
        try hostile.run()
    }

    @Test(arguments: queryCases)
    func aBadQueryIsA400Page(_ hostile: HostileCase) throws {
        try hostile.run()
    }

    @Test(arguments: formCases)
    func aBadFormIsA400PageAndChangesNothing(_ hostile: HostileCase) throws {
        try hostile.run()
    }
}
