import HTTP
import Testing

@Suite struct ETagTests {
    @Test(arguments: [
        ("\"a\"", true), ("\"b\", \"a\"", true), ("\"b\",\t\"a\" ", true), ("*", true),
        ("\"b\"", false), ("a", false), ("", false),
    ])
    func ifNoneMatchNamesTheTagOrAnything(header: String, matches: Bool) {
        #expect(ETag.ifNoneMatch(header, matches: "\"a\"") == matches)
    }

    @Test func noHeaderMatchesNothing() {
        #expect(!ETag.ifNoneMatch(nil, matches: "\"a\""))
    }
}
